package mp3enc

import (
	"io"
	"testing"
)

// BenchmarkKernels times the encoder's per-granule kernels on one channel of speech: the
// analysis (polyphase filter bank and MDCT, (*channel).push) and the quantization loop
// (quantize). They are marked //go:norace; comparing `go test -race -bench Kernels` with and
// without the marks shows what the race detector's instrumentation costs them.
func BenchmarkKernels(b *testing.B) {
	o := Options{SampleRate: 44100, Channels: 1, BitRate: 64}
	pcm := speech(b, o.SampleRate, o.Channels, 2)
	granules := len(pcm) / granule
	e, err := New(io.Discard, o, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("analysis", func(b *testing.B) {
		b.ReportAllocs()
		var c channel
		i := 0
		for b.Loop() {
			g := i % granules
			c.push(pcm[g*granule:(g+1)*granule], blockLong, &e.short)
			i++
		}
	})
	b.Run("quantize", func(b *testing.B) {
		var c channel
		spectra := make([][granule]float64, 0, granules)
		for g := range granules {
			if xr, ok := c.push(pcm[g*granule:(g+1)*granule], blockLong, &e.short); ok {
				spectra = append(spectra, xr)
			}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			// 64 kbit/s mono at 44.1 kHz leaves about 700 bits for a granule's Huffman data.
			quantize(spectra[i%len(spectra)], 700, &e.bands, &e.short, blockLong)
			i++
		}
	})
}
