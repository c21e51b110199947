package mp3dec_test

import (
	"fmt"
	"math"
	"os"

	"github.com/podqa/podqa-go/fakeserver/internal/mp3dec"
	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// Decode a file frame by frame: find each frame by its header, skip the Xing/Info frame, and
// append the samples.
func ExampleDecoder_DecodeFrame() {
	data, err := os.ReadFile("testdata/lsf22_mono_32k.mp3")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := mp3dec.NewDecoder()
	var pcm []float64
	for i := 0; i+4 <= len(data); {
		h, ok := mpegaudio.ParseHeader(data[i:])
		if !ok || i+h.Size > len(data) {
			i++ // not a frame: skip a byte
			continue
		}
		frame := data[i : i+h.Size]
		i += h.Size
		if _, info := mpegaudio.ParseInfoFrame(frame, h); info {
			continue
		}
		if pcm, err = d.DecodeFrame(pcm, frame); err != nil {
			fmt.Println(err) // the frame decoded as silence; go on
		}
	}
	var peak float64
	for _, v := range pcm {
		peak = math.Max(peak, math.Abs(v))
	}
	fmt.Printf("%d samples, peak %.2f\n", len(pcm), peak)
	// Output: 34560 samples, peak 0.43
}
