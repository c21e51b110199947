package hosted

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/audio/calibrate"
)

// TestExcerptCodesAsTheWholeFile is what calibration rests on: the coded excerpt of an MP3
// episode (a fraction of the file) measures the same true peak as the whole coded file, to the
// last bit, at each MPEG version, mono and stereo. (The files are short, so that a whole period
// is left out; the served cases hold files up to 20 minutes to the same bound.)
func TestExcerptCodesAsTheWholeFile(t *testing.T) {
	t.Parallel()
	tests := []Episode{
		{Title: "A", DurationS: 45, LoudnessLUFS: ptr(-20.0), TruePeakDB: ptr(-2.0)},
		{Title: "B", DurationS: 40, SampleRate: 22050, Channels: 1, BitRate: 64, LoudnessLUFS: ptr(-18.0), TruePeakDB: ptr(-3.0)},
		{Title: "C", DurationS: 40, SampleRate: 8000, Channels: 2, BitRate: 24, LoudnessLUFS: ptr(-23.0)},
	}
	for _, e := range tests {
		t.Run(fmt.Sprintf("%s %d Hz", e.Title, e.SampleRate), func(t *testing.T) {
			t.Parallel()
			if testing.Short() && e.SampleRate == 0 {
				// Its 45 s of 44.1 kHz stereo are most of this test's CPU under -race (calibrated,
				// then coded again whole); -short keeps MPEG-2 mono and MPEG-2.5 stereo, and
				// TestServedAudioMeasuresAsAsked's -short cases serve MPEG-1 at 44.1 kHz.
				t.Skip("-short: the full run also holds the MPEG-1 44.1 kHz stereo excerpt to its whole file")
			}
			e.GUID = "g"
			if err := check(&e, "Show"); err != nil {
				t.Fatal(err)
			}
			plan, err := audio.PlanSynthesis(synthSpec(e))
			if err != nil {
				t.Fatal(err)
			}
			var excerptFrames, fileFrames int64
			if err := plan.Excerpt(func(n int64, _, _ int) error { excerptFrames = n; return errStop }, nil); err != errStop {
				t.Fatal(err)
			}
			if err := plan.Samples(func(n int64, _, _ int) error { fileFrames = n; return errStop }, nil); err != errStop {
				t.Fatal(err)
			}
			if excerptFrames >= fileFrames {
				t.Fatalf("the excerpt has %d frames of the file's %d", excerptFrames, fileFrames)
			}
			want, err := calibrate.CodedPeak(plan, e.BitRate)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := synthesize(&b, e); err != nil {
				t.Fatal(err)
			}
			m, err := audio.MeasureFile(&b, "x.mp3")
			if err != nil {
				t.Fatal(err)
			}
			if m.TruePeakDB != want {
				t.Errorf("the file peaks at %.6f dBTP, its excerpt at %.6f", m.TruePeakDB, want)
			}
		})
	}
}

// errStop ends a synthesis once its layout is known.
var errStop = errors.New("hosted: stop")

// BenchmarkCalibrate times hosting an MP3 episode asked for a true peak (planning and
// calibration), at 1 h and 3 h: the excerpt, not the duration, sets the cost.
func BenchmarkCalibrate(b *testing.B) {
	for _, hours := range []float64{1, 3} {
		b.Run(fmt.Sprintf("%gh", hours), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e := Episode{Title: "Long", GUID: "g", DurationS: hours * 3600, LoudnessLUFS: ptr(-23.0), TruePeakDB: ptr(-3.0)}
				if err := check(&e, "Show"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
