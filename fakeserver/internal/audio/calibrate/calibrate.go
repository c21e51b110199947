// Package calibrate aims the synthesiser (audio.PlanSynthesis) at a coded target: it searches
// for the true peak to ask of the synthesis so that its file, coded as MP3 (internal/mp3enc),
// measures at the true peak asked. It sits beside the synthesiser and the encoder it drives, so
// that a caller (the podcast host) asks for one result and never steps the search itself.
//
// It is its own package rather than a file of package audio because the encoder's tests
// measure with package audio: audio itself cannot import the encoder.
package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/mp3enc"
)

// How far under the true peak asked an MP3 may measure, in dB: at most PeakWindow, and the
// search stops at the first trial within PeakClose.
const (
	PeakWindow = 0.5
	PeakClose  = 0.1
)

// Trials bounds the encodes one search makes of a synthesis' excerpt.
const Trials = 8

// DefaultPeak is the true peak an MP3 measures at most when none is asked, in dBTP.
const DefaultPeak = -1.0

// Unmet is the error of a synthesis whose true peak its format cannot meet: what was asked, and
// the nearest peak a trial reached.
type Unmet struct {
	Format      string
	BitRate     int      // kbit/s
	AskedPeak   *float64 // dBTP; nil: the default, at most -1
	NearestPeak float64  // dBTP
}

func (u *Unmet) Error() string {
	asked := "at most -1 dBTP"
	if u.AskedPeak != nil {
		asked = fmt.Sprintf("%.2f dBTP (or up to %.1f dB under)", *u.AskedPeak, PeakWindow)
	}
	return fmt.Sprintf("a true peak of %s cannot be met in %s at %d kbit/s; the nearest it measured is %.2f dBTP: ask that, or format wav",
		asked, strings.ToUpper(u.Format), u.BitRate, u.NearestPeak)
}

// MP3 returns the true peak to ask of the synthesiser in place of spec.TruePeakDB so that
// spec's whole file, coded as MP3 at bitRate kbit/s, measures at or under asked (preferably
// within PeakClose of it, at most PeakWindow under it), or at most DefaultPeak when asked is
// nil; nil, with no error, when the plan as it is already meets the default. plan is spec
// solved as it is (audio.PlanSynthesis), which the first trial reuses.
//
// Coding moves the peak of a transient (the click the synthesiser adds to raise a peak) and of
// clipped speech, by an amount that depends on where the frames fall and on how the click's
// spectrum quantises. The speech repeats with a period the frames fit (spec.PeriodMultiple, from
// mp3enc.LayoutPeriod), so an excerpt of the file (audio.SynthesizeExcerpt) holds every stretch
// the file codes; the search measures the coded excerpt (CodedPeak) and moves the synthesiser's
// target by the miss. The coded peak is not a smooth function of the target (a tenth of a dB
// more of click can quantise to three tenths less), so it keeps the best trial at or under the
// peak asked. What no trial meets is an *Unmet, naming the nearest peak a trial reached; a
// synthesis or coding that fails is that error as it is.
func MP3(spec audio.SynthSpec, plan *audio.SynthPlan, asked *float64, bitRate int) (*float64, error) {
	lo, hi := math.Inf(-1), DefaultPeak
	if asked != nil {
		hi = *asked
		lo = hi - PeakWindow
	}
	aim := hi - PeakClose/2
	var (
		ask      = aim
		best     *float64 // the ask of the best trial in [lo, hi]
		bestGot  = math.Inf(-1)
		nearest  = math.NaN()
		lastGood = math.NaN()
	)
	for n := range Trials {
		trial := ask
		asTried := n > 0 || asked != nil // false: the default's first trial, the plan's own peak
		trialPlan := plan
		if asTried {
			trialPlan = nil
		}
		got, err := trialPeak(trialPlan, spec, trial, bitRate)
		switch {
		case err != nil && (n == 0 || !errors.Is(err, audio.ErrInvalidSpec)):
			return nil, err
		case err != nil:
			// The synthesiser cannot reach this target: step back halfway to the last that did.
			ask = (trial + lastGood) / 2
			continue
		}
		if !asTried {
			trial = plan.TruePeak()
			if got <= hi {
				return nil, nil
			}
		}
		lastGood = trial
		if got >= lo && got <= hi && got > bestGot {
			best, bestGot = ptr(trial), got
			if got >= hi-PeakClose {
				break
			}
		}
		if math.IsNaN(nearest) || math.Abs(got-aim) < math.Abs(nearest-aim) {
			nearest = got
		}
		ask = min(max(trial+min(max(aim-got, -1), 1), -20), 0)
	}
	if best == nil {
		return nil, &Unmet{Format: "mp3", BitRate: bitRate, AskedPeak: asked, NearestPeak: nearest}
	}
	return best, nil
}

// trialPeak is CodedPeak of plan, or, when plan is nil, of spec planned with the true peak
// trial asked of the synthesiser.
func trialPeak(plan *audio.SynthPlan, spec audio.SynthSpec, trial float64, bitRate int) (float64, error) {
	if plan == nil {
		spec.TruePeakDB = &trial
		var err error
		if plan, err = audio.PlanSynthesis(spec); err != nil {
			return 0, err
		}
	}
	return CodedPeak(plan, bitRate)
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// CodedPeak codes the excerpt of plan's audio that stands for all of it (SynthPlan.Excerpt) as
// MP3 at bitRate kbit/s and returns the true peak the coded excerpt measures: the whole coded
// file's, when spec.PeriodMultiple fits the encoder's frames.
func CodedPeak(plan *audio.SynthPlan, bitRate int) (float64, error) {
	var (
		buf bytes.Buffer
		enc *mp3enc.Encoder
	)
	err := plan.Excerpt(func(frames int64, ch, r int) (err error) {
		enc, err = mp3enc.New(&buf, mp3enc.Options{SampleRate: r, Channels: ch, BitRate: bitRate}, frames)
		return err
	}, func(samples []float64) error { return enc.Write(samples) })
	if err != nil {
		return 0, err
	}
	if err := enc.Close(); err != nil {
		return 0, err
	}
	m, err := audio.MeasureFile(&buf, "calibration.mp3")
	return m.TruePeakDB, err
}
