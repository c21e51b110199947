package mp3enc_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/podqa/podqa-go/fakeserver/internal/mp3enc"
)

// Encode one second of a 440 Hz tone, announced up front so that the Info frame can say how
// long the stream is.
func Example() {
	const rate = 44100
	pcm := make([]float64, rate)
	for i := range pcm {
		pcm[i] = 0.5 * math.Sin(2*math.Pi*440*float64(i)/rate)
	}
	var mp3 bytes.Buffer
	e, err := mp3enc.New(&mp3, mp3enc.Options{SampleRate: rate, Channels: 1, BitRate: 64}, int64(len(pcm)))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := e.Write(pcm); err != nil {
		fmt.Println(err)
		return
	}
	if err := e.Close(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes, starting %q\n", mp3.Len(), mp3.Bytes()[:2])
	// Output: 8567 bytes, starting "\xff\xfb"
}
