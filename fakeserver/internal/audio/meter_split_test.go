package audio

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// TestMeterSplitMatchesSequential measures the same samples with the channels on one goroutine,
// split across two (processSplit) and alternately both, in blocks of several sizes, and wants
// equal results bit for bit: the chunks, the order of every sum and the maxima are the same.
func TestMeterSplitMatchesSequential(t *testing.T) {
	t.Parallel()
	speech := renderSpeech(speechPlan(patternSeconds), 8000, patternSeconds*8000)
	signal := func(rate, channels, frames int) []float64 {
		out := make([]float64, 0, frames*channels)
		for i := range frames {
			v := speech[(i*8000/rate)%len(speech)]
			for c := range channels {
				s := v * (0.4 + 0.1*float64(c))
				if c%2 == 1 {
					s = -s + 0.01*math.Sin(float64(i)/7)
				}
				out = append(out, s)
			}
		}
		// Clipped runs, a NaN and a huge value, which the meter sanitises.
		for i := frames / 3; i < frames/3+50; i++ {
			out[i*channels] = 1
		}
		out[(frames/2)*channels] = math.NaN()
		out[(frames/2+1)*channels+channels-1] = 1e12
		return out
	}
	tests := []struct {
		name                    string
		rate, channels, seconds int
		block                   int // frames per Process call
	}{
		{"stereo 44.1 kHz", 44100, 2, 20, 8192},
		{"stereo 8 kHz, short sub-blocks", 8000, 2, 20, 8192},
		{"stereo, odd blocks", 48000, 2, 12, 5001},
		{"3 channels", 48000, 3, 8, 8192},
		{"6 channels", 44100, 6, 8, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := signal(tt.rate, tt.channels, tt.rate*tt.seconds)
			// Sequential, split, and split on every other call as measurePCM does when the
			// decoder gets ahead of the meter and falls behind again.
			var res [3]MeterResult
			for i, split := range []func(call int) bool{
				func(int) bool { return false },
				func(int) bool { return true },
				func(call int) bool { return call%2 == 1 },
			} {
				m, err := NewMeter(tt.rate, tt.channels)
				if err != nil {
					t.Fatal(err)
				}
				step := tt.block*tt.channels + 1 // a partial frame at every call's end
				for j := 0; j < len(x); j += step {
					m.split = split(j / step)
					m.Process(x[j:min(j+step, len(x))])
				}
				res[i] = m.Result()
			}
			if res[0].ClippingRuns == 0 || math.IsInf(res[0].IntegratedLUFS, 0) {
				t.Fatalf("the signal does not exercise the meter: %+v", res[0])
			}
			for i, name := range []string{"split", "alternating"} {
				a, b := res[0], res[i+1]
				if math.IsNaN(a.Correlation) && math.IsNaN(b.Correlation) {
					a.Correlation, b.Correlation = 0, 0
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s:\n%+v\nsequential:\n%+v", name, b, a)
				}
			}
		})
	}
}

// TestMeasureWorkersSameResult measures stereo fixtures of every parallel path (MP3 segments,
// the AAC pipeline, the split meter always and while the decoder is ahead) with one worker, two
// and four: the measurements are equal.
func TestMeasureWorkersSameResult(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"speech_s44.mp3", "step_s48.aac", "speech_s44.m4a", "step_s48_24.flac", "step_s48_s24.wav", "speech_s44.ogg"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, name)
			workers := []int{1, 2, 4}
			ms := make([]Measurement, len(workers))
			for i, w := range workers {
				m, err := MeasureFile(bytes.NewReader(data), name, WithWorkers(w))
				if err != nil {
					t.Fatal(err)
				}
				if math.IsNaN(m.Correlation) {
					m.Correlation = 0
				}
				ms[i] = m
			}
			if ms[0].Channels != 2 {
				t.Fatalf("%d channels, want a stereo fixture", ms[0].Channels)
			}
			for i := 1; i < len(ms); i++ {
				if !reflect.DeepEqual(ms[0], ms[i]) {
					t.Fatalf("one worker:\n%+v\n%d:\n%+v", ms[0], workers[i], ms[i])
				}
			}
		})
	}
}
