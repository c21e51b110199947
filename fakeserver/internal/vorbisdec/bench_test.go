package vorbisdec

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkVorbisDecode decodes every audio packet of a fixture per iteration with one
// decoder (Reset between iterations, as after a seek), so allocs/op shows what a packet
// allocates in steady state: nothing. It reports samples per second per channel as
// "samples/s".
func BenchmarkVorbisDecode(b *testing.B) {
	for _, name := range []string{"speech_s44_q5", "clicks_s44_q4", "speech_s48_q8", "speech_m8_qm1"} {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("testdata", name+".ogg"))
			if err != nil {
				b.Fatal(err)
			}
			pk := oggPacketsOf(b, data)
			info, err := ParseIdentification(pk[0].data)
			if err != nil {
				b.Fatal(err)
			}
			d, err := NewDecoder(info, pk[2].data)
			if err != nil {
				b.Fatal(err)
			}
			audio := pk[3:]
			samples := 0
			b.ReportAllocs()
			for b.Loop() {
				d.Reset()
				for _, p := range audio {
					out, err := d.Decode(p.data)
					if err != nil {
						b.Fatal(err)
					}
					samples += len(out[0])
				}
			}
			b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
