package corpus_test

import (
	"bytes"
	"fmt"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/audio/internal/corpus"
)

// Example writes the first case, EBU Tech 3341 case 1 (1 kHz at −23 dBFS, stereo), and
// measures it.
func Example() {
	c := corpus.Cases()[0]
	var wav bytes.Buffer
	if err := c.WriteWAV(&wav); err != nil {
		fmt.Println(err)
		return
	}
	m, err := audio.Measure(&wav)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d Hz, %d channels, %.1f LUFS, %v\n", c.Name, m.SampleRate, m.Channels, m.IntegratedLUFS, m.Duration)
	// Output: 3341-1-sine-23: 48000 Hz, 2 channels, -23.0 LUFS, 4s
}
