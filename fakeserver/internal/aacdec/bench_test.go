package aacdec

import (
	"os"
	"testing"
)

// BenchmarkDecode decodes a 1.5 s 44.1 kHz stereo fixture (66 frames, every tool) per iteration.
func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile("testdata/s44_stereo.aac")
	if err != nil {
		b.Fatal(err)
	}
	var blocks [][]byte
	var cfg Config
	for len(data) > 0 {
		h, err := ParseADTSHeader(data)
		if err != nil {
			b.Fatal(err)
		}
		cfg = h.Config
		blocks = append(blocks, data[h.HeaderLength:h.FrameLength])
		data = data[h.FrameLength:]
	}
	d, err := NewDecoder(cfg)
	if err != nil {
		b.Fatal(err)
	}
	pcm := make([]float64, 0, len(blocks)*FrameSamples*2)
	b.ReportAllocs()
	for b.Loop() {
		d.Reset()
		pcm = pcm[:0]
		for _, blk := range blocks {
			if pcm, err = d.Decode(pcm, blk); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)/1.5*3600, "s/hour")
}
