package audio

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// withOpusSegment sets the samples per channel of a parallel Opus segment.
func withOpusSegment(n int) Option { return func(o *options) { o.opusSeg = n } }

// TestOpusSegmentsAgreeWithSerial measures CELT streams (the speech and step fixtures and the
// libopus vectors of internal/opusdec) serially and in parallel segments short enough that
// every file has several segment starts, each after a 400 ms pre-roll: duration and size are
// the same, and loudness (integrated, range), sample and true peak agree within
// 0.001 (LU or dB); here they differ by at most 5.4e-6 dB, on one file, and are identical on the
// others.
func TestOpusSegmentsAgreeWithSerial(t *testing.T) {
	t.Parallel()
	files := []string{"testdata/formats/speech_s44_96.opus", "testdata/formats/step_s48.opus"}
	vectors, err := filepath.Glob("../opusdec/testdata/vectors/*.opus")
	if err != nil || len(vectors) == 0 {
		t.Fatalf("no libopus vectors (%v)", err)
	}
	files = append(files, vectors...)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			serial, err := Measure(bytes.NewReader(b), WithWorkers(1))
			if err != nil {
				t.Fatal(err)
			}
			for _, seg := range []int{4800, 24000} { // 100 ms and 500 ms segments
				for _, workers := range []int{2, 3} {
					got, err := Measure(bytes.NewReader(b), WithWorkers(workers), withOpusSegment(seg))
					if err != nil {
						t.Fatal(err)
					}
					if got.Frames != serial.Frames || got.Size != serial.Size || got.Channels != serial.Channels {
						t.Fatalf("segments of %d, %d workers: %d frames %d bytes %d ch; serial %d frames %d bytes %d ch",
							seg, workers, got.Frames, got.Size, got.Channels, serial.Frames, serial.Size, serial.Channels)
					}
					for _, v := range []struct {
						name     string
						got, ser float64
					}{
						{"integrated", got.IntegratedLUFS, serial.IntegratedLUFS},
						{"range", got.LoudnessRange, serial.LoudnessRange},
						{"sample peak", got.SamplePeakDB, serial.SamplePeakDB},
						{"true peak", got.TruePeakDB, serial.TruePeakDB},
					} {
						if math.Abs(v.got-v.ser) > 0.001 && !(math.IsInf(v.got, -1) && math.IsInf(v.ser, -1)) {
							t.Errorf("segments of %d, %d workers: %s %.4f, serial %.4f", seg, workers, v.name, v.got, v.ser)
						}
						if v.got != v.ser {
							t.Logf("segments of %d, %d workers: %s differs by %.2g", seg, workers, v.name, v.got-v.ser)
						}
					}
				}
			}
		})
	}
}

// TestOpusSegmentsStop stops a segmented Opus measurement early, on a ceiling and on a
// cancelled context, with the decoding pipeline full (segments of 20 ms, three workers): it
// returns the stop's error, and it returns at all: measureOpusSegments waits for its walker
// and workers, so one left blocked would hang the test.
func TestOpusSegmentsStop(t *testing.T) {
	t.Parallel()
	b := readFixture(t, "speech_s44_96.opus")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		opts []Option
		want error
	}{
		{"ceiling", context.Background(), []Option{WithLimits(Limits{MaxDuration: 300 * time.Millisecond})}, ErrOverCeiling},
		{"cancelled", cancelled, nil, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := append([]Option{WithWorkers(3), withOpusSegment(960)}, tt.opts...)
			_, err := MeasureContext(tt.ctx, bytes.NewReader(b), opts...)
			if !errors.Is(err, tt.want) {
				t.Fatalf("MeasureContext = %v, want an error wrapping %v", err, tt.want)
			}
		})
	}
}
