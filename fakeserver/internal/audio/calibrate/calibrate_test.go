package calibrate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/mp3enc"
)

// mp3Case is a short synthesis coded as MP3: cheap enough at low rates to code whole.
type mp3Case struct {
	rate, channels, bitRate int
	lufs                    float64
	asked                   *float64
}

func (c mp3Case) String() string {
	asked := "default"
	if c.asked != nil {
		asked = fmt.Sprintf("%.1f dBTP", *c.asked)
	}
	return fmt.Sprintf("%d Hz %d ch %d kbit/s %.0f LUFS %s", c.rate, c.channels, c.bitRate, c.lufs, asked)
}

// plan returns the case's spec, with the period its MP3 frames fit, and the spec solved as it is.
func (c mp3Case) plan(t *testing.T) (audio.SynthSpec, *audio.SynthPlan) {
	t.Helper()
	period, err := mp3enc.LayoutPeriod(mp3enc.Options{SampleRate: c.rate, Channels: c.channels, BitRate: c.bitRate})
	if err != nil {
		t.Fatal(err)
	}
	spec := audio.SynthSpec{DurationSeconds: 4, SampleRate: c.rate, Channels: c.channels, LoudnessLUFS: c.lufs, TruePeakDB: c.asked, PeriodMultiple: period}
	plan, err := audio.PlanSynthesis(spec)
	if err != nil {
		t.Fatal(err)
	}
	return spec, plan
}

// wholeFilePeak codes spec's whole file, not its excerpt, and returns the true peak it measures.
func wholeFilePeak(t *testing.T, spec audio.SynthSpec, bitRate int) float64 {
	t.Helper()
	plan, err := audio.PlanSynthesis(spec)
	if err != nil {
		t.Fatal(err)
	}
	var (
		buf bytes.Buffer
		enc *mp3enc.Encoder
	)
	err = plan.Samples(func(frames int64, ch, r int) (err error) {
		enc, err = mp3enc.New(&buf, mp3enc.Options{SampleRate: r, Channels: ch, BitRate: bitRate}, frames)
		return err
	}, func(samples []float64) error { return enc.Write(samples) })
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	m, err := audio.MeasureFile(&buf, "whole.mp3")
	if err != nil {
		t.Fatal(err)
	}
	return m.TruePeakDB
}

func ptr64(v float64) *float64 { return &v }

// TestMP3MeetsTheAskedPeak: the peak the search returns makes the whole coded file measure at
// or under the peak asked and at most PeakWindow under it (at most DefaultPeak when none was
// asked); nil means the spec as it is already does.
func TestMP3MeetsTheAskedPeak(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mp3Case
		keepsPlan bool // the default's first trial already meets it
	}{
		{mp3Case{8000, 1, 8, -16, ptr64(-0.2)}, false},
		{mp3Case{8000, 1, 8, -12, ptr64(-0.5)}, false},
		{mp3Case{8000, 1, 16, -16, ptr64(-3)}, false},
		{mp3Case{22050, 2, 64, -18, ptr64(-1)}, false},
		{mp3Case{8000, 1, 16, -12, nil}, true},
		{mp3Case{8000, 1, 16, -23, nil}, true},
	}
	for _, tt := range tests {
		t.Run(tt.String(), func(t *testing.T) {
			t.Parallel()
			spec, plan := tt.plan(t)
			peak, err := MP3(spec, plan, tt.asked, tt.bitRate)
			if err != nil {
				t.Fatal(err)
			}
			if (peak == nil) != tt.keepsPlan {
				t.Fatalf("peak %v, want nil %v", peak, tt.keepsPlan)
			}
			spec.TruePeakDB = cmp.Or(peak, tt.asked)
			got := wholeFilePeak(t, spec, tt.bitRate)
			lo, hi := math.Inf(-1), DefaultPeak
			if tt.asked != nil {
				hi = *tt.asked
				lo = hi - PeakWindow
			}
			if got < lo || got > hi {
				t.Errorf("the whole coded file peaks at %.4f dBTP, want %.2f to %.2f", got, lo, hi)
			}
		})
	}
}

// TestMP3RefusesWhatNoTrialMeets: a peak the coding cannot keep (8 kbit/s) is an *Unmet that
// names what was asked and the nearest peak a trial reached, outside what was asked.
func TestMP3RefusesWhatNoTrialMeets(t *testing.T) {
	t.Parallel()
	tests := []mp3Case{
		{8000, 2, 8, -16, ptr64(-1.5)},
		{8000, 1, 8, -10, ptr64(-3)},
	}
	for _, tt := range tests {
		t.Run(tt.String(), func(t *testing.T) {
			t.Parallel()
			spec, plan := tt.plan(t)
			peak, err := MP3(spec, plan, tt.asked, tt.bitRate)
			var u *Unmet
			if !errors.As(err, &u) || peak != nil {
				t.Fatalf("MP3 = %v, %v; want an *Unmet", peak, err)
			}
			if u.Format != "mp3" || u.BitRate != tt.bitRate || u.AskedPeak != tt.asked {
				t.Errorf("Unmet %+v does not name what was asked", u)
			}
			if math.IsNaN(u.NearestPeak) || (u.NearestPeak >= *tt.asked-PeakWindow && u.NearestPeak <= *tt.asked) {
				t.Errorf("the nearest peak %.3f is no miss of %.1f", u.NearestPeak, *tt.asked)
			}
		})
	}
}

// TestMP3PassesAFailedSynthesisOn: a target the synthesiser refuses at the first trial is its
// error as it is, not an *Unmet.
func TestMP3PassesAFailedSynthesisOn(t *testing.T) {
	t.Parallel()
	c := mp3Case{8000, 1, 16, -10, nil}
	spec, plan := c.plan(t)
	peak, err := MP3(spec, plan, ptr64(-20), c.bitRate)
	var u *Unmet
	if !errors.Is(err, audio.ErrInvalidSpec) || errors.As(err, &u) || peak != nil {
		t.Fatalf("MP3 = %v, %v; want audio.ErrInvalidSpec as it is", peak, err)
	}
}

func TestUnmetMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		u    Unmet
		want string
	}{
		{Unmet{Format: "mp3", BitRate: 32, AskedPeak: ptr64(-1.5), NearestPeak: -0.8123},
			"a true peak of -1.50 dBTP (or up to 0.5 dB under) cannot be met in MP3 at 32 kbit/s; the nearest it measured is -0.81 dBTP: ask that, or format wav"},
		{Unmet{Format: "mp3", BitRate: 8, NearestPeak: -0.3},
			"a true peak of at most -1 dBTP cannot be met in MP3 at 8 kbit/s; the nearest it measured is -0.30 dBTP: ask that, or format wav"},
	}
	for _, tt := range tests {
		if got := tt.u.Error(); got != tt.want {
			t.Errorf("%+v:\n got %s\nwant %s", tt.u, got, tt.want)
		}
	}
}
