package flacdec_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mewkiz/flac/meta"
	"github.com/podqa/podqa-go/fakeserver/internal/flacdec"
)

// Decode a FLAC file: skip the metadata blocks (here with github.com/mewkiz/flac/meta, as the
// fake does), then decode frame after frame and find the sample peak.
func ExampleDecoder_Next() {
	f, err := os.Open("testdata/s16_44k_stereo.flac")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r := bufio.NewReader(f)
	if _, err := io.ReadFull(r, make([]byte, 4)); err != nil { // "fLaC"
		fmt.Println(err)
		return
	}
	var info flacdec.StreamInfo
	for {
		b, err := meta.Parse(r)
		if err != nil {
			fmt.Println(err)
			return
		}
		if si, ok := b.Body.(*meta.StreamInfo); ok {
			info = flacdec.StreamInfo{SampleRate: int(si.SampleRate), BitsPerSample: int(si.BitsPerSample)}
		}
		if b.IsLast {
			break
		}
	}
	d := flacdec.NewDecoder(r, info)
	var frames, samples int
	var peak int32
	for {
		fr, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		frames++
		samples += len(fr.Samples[0])
		for _, ch := range fr.Samples {
			for _, v := range ch {
				peak = max(peak, v, -v)
			}
		}
	}
	fmt.Printf("%d frames, %d samples per channel at %d Hz, peak %d\n", frames, samples, info.SampleRate, peak)
	// Output: 11 frames, 48510 samples per channel at 44100 Hz, peak 21393
}
