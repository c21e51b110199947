package mp3dec

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFilterBank measures one granule of one channel through the filter bank: a full
// long-block spectrum, and one whose lines end at 16 kHz as a 128 kbit/s encoder leaves them.
func BenchmarkFilterBank(b *testing.B) {
	for _, bc := range []struct {
		name  string
		lines int
	}{{"full", 576}, {"lowpass16k", 418}} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			var src spectrum
			src.lines = bc.lines
			for i := range bc.lines {
				src.xr[i] = rng.NormFloat64() * 0.01
			}
			var fb filterBank
			out := make([]float64, 2*576)
			var s spectrum
			b.ReportAllocs()
			for b.Loop() {
				s = src
				fb.granule(&s, out, 2)
			}
		})
	}
}
