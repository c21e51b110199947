package fakeserver_test

import (
	"fmt"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// SynthesizeWAV makes audio to upload in a test: twelve seconds of stereo speech with a title tag.
func ExampleSynthesizeWAV() {
	wav, err := fakeserver.SynthesizeWAV(fakeserver.AudioSpec{Duration: 12 * time.Second, SampleRate: 44100, Channels: 2, Title: "Local take"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(wav[:4]), string(wav[8:12]), len(wav) > 12*44100*2*2)
	// Output: RIFF WAVE true
}
