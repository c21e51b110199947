package vorbisdec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDCT4MatchesDefinition compares the FFT-based DCT-IV of every block size with the sum
// of its definition, u[m] = Σ x[k] cos(π/M (m+½)(k+½)), computed in float64.
func TestDCT4MatchesDefinition(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for n := 64; n <= 8192; n *= 2 {
		m := n / 2
		x := make([]float32, m)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		tr := newIMDCT(n)
		tr.dct4(x)
		var sig, noise float64
		for j := range m {
			var want float64
			for k, v := range x {
				want += float64(v) * math.Cos(math.Pi/float64(m)*(float64(j)+0.5)*(float64(k)+0.5))
			}
			d := float64(tr.u[j]) - want
			sig += want * want
			noise += d * d
		}
		if snr := 10 * math.Log10(sig/noise); snr < 120 {
			t.Errorf("block %d: SNR %.1f dB against the definition (want at least 120)", n, snr)
		}
	}
}

// BenchmarkIMDCT times the DCT-IV at the heart of the IMDCT of a long block (2048 samples,
// the long block of libvorbis at 44.1 and 48 kHz).
func BenchmarkIMDCT(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	tr := newIMDCT(2048)
	x := make([]float32, 1024)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	b.ReportAllocs()
	for b.Loop() {
		tr.dct4(x)
	}
}
