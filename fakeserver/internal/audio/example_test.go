package audio_test

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

// ExampleMeter measures one second of silence, two seconds of a 1 kHz tone at −20 dBFS in the
// left channel and its inversion in the right, and half a second of silence.
func ExampleMeter() {
	const rate = 48000
	m, err := audio.NewMeter(rate, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for n := range 7 * rate / 2 {
		var v float64
		if n >= rate && n < 3*rate {
			v = 0.1 * math.Sin(2*math.Pi*1000*float64(n)/rate)
		}
		m.Process([]float64{v, -v})
	}
	r := m.Result()
	fmt.Printf("integrated %.1f LUFS, true peak %.1f dBTP\n", r.IntegratedLUFS, r.TruePeakDB)
	fmt.Printf("leading silence %v, trailing %v, clipping runs %d\n", r.LeadingSilence, r.TrailingSilence, r.ClippingRuns)
	fmt.Printf("left %.2f dBFS RMS, correlation %.0f, noise floor %v dBFS\n", r.ChannelRMSDB[0], r.Correlation, r.NoiseFloorDB)
	// Output:
	// integrated -20.6 LUFS, true peak -20.0 dBTP
	// leading silence 1s, trailing 500ms, clipping runs 0
	// left -25.44 dBFS RMS, correlation -1, noise floor -Inf dBFS
}

// ExampleSynthesize makes a tagged 10-second stereo episode and measures it.
func ExampleSynthesize() {
	peak := -2.0
	file, err := audio.Synthesize(audio.SynthSpec{
		DurationSeconds: 10, SampleRate: 44100, Channels: 2, LoudnessLUFS: -16, TruePeakDB: &peak,
		Tags: audio.SynthTags{
			Title: "Episode 1", Artist: "The Host", Album: "The Show", Year: 2026,
			Chapters: []audio.SynthChapter{{Start: 0, End: 10 * time.Second, Title: "All of it"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := audio.Measure(bytes.NewReader(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q: %v, %.1f LUFS, %.1f dBTP\n", m.Title, m.Duration, m.IntegratedLUFS, m.TruePeakDB)
	// Output: "Episode 1": 10s, -16.0 LUFS, -2.0 dBTP
}
