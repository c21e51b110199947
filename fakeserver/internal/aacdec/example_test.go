package aacdec_test

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
)

// Decode an ADTS file: the reader finds the frames, the first header configures the decoder,
// and each frame's raw data block appends 1024 samples per channel.
func ExampleDecoder_Decode() {
	f, err := os.Open("testdata/s44_stereo.aac")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	frames := aacdec.NewADTSReader(f)
	var d *aacdec.Decoder
	var pcm []float64
	for {
		h, block, err := frames.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err) // not ADTS, or a profile the decoder refuses
			return
		}
		if d == nil {
			if d, err = aacdec.NewDecoder(h.Config); err != nil {
				fmt.Println(err)
				return
			}
		}
		if pcm, err = d.Decode(pcm, block); err != nil {
			fmt.Println(err) // the block decoded as silence; go on
		}
	}
	c := d.Config()
	fmt.Printf("%s, %d Hz, %d channels, %d samples per channel\n", aacdec.Profile(c.ObjectType), c.SampleRate, c.Channels, len(pcm)/c.Channels)
	// Output:
	// LC, 44100 Hz, 2 channels, 67584 samples per channel
}

// An AudioSpecificConfig that signals SBR is refused, naming the profile.
func ExampleParseConfig() {
	// AAC LC at 24 kHz, mono, then the backward-compatible extension: SBR present, 48 kHz.
	_, err := aacdec.ParseConfig([]byte{0x13, 0x08, 0x56, 0xe5, 0x98})
	fmt.Println(errors.Is(err, aacdec.ErrUnsupported), err)
	// Output:
	// true aacdec: unsupported AAC stream: profile HE-AAC (only AAC LC is decoded)
}
