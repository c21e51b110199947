package blockref_test

import (
	"fmt"
	"math"

	"github.com/podqa/podqa-go/fakeserver/internal/blockref"
)

// Hold a decode to a reference: here the reference is a sine's own statistics, and a decode
// 1 % too loud misses it.
func ExampleCompare() {
	pcm := make([]float64, 2*blockref.BlockSize)
	for i := range pcm {
		pcm[i] = 0.5 * math.Sin(float64(i)/10)
	}
	ref := blockref.Stats{Channels: 1, Samples: len(pcm), Blocks: blockref.Summarise(pcm, 1)}
	fmt.Println(blockref.Compare(pcm, 1, ref, 2e-5))
	for i := range pcm {
		pcm[i] *= 1.01
	}
	fmt.Println(blockref.Compare(pcm, 1, ref, 2e-5) != nil)
	// Output:
	// <nil>
	// true
}
