package flacdec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecoder feeds arbitrary bytes to the decoder as frames: it must return frames of equal
// channel lengths or an error, never panic, and stop at the end of the input.
func FuzzDecoder(f *testing.F) {
	names, err := filepath.Glob("testdata/*.flac")
	if err != nil || len(names) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		si, frames := splitFLAC(f, b)
		f.Add(uint32(si.SampleRate), uint8(si.BitsPerSample), frames[:min(len(frames), 3000)])
	}
	f.Fuzz(func(t *testing.T, rate uint32, bps uint8, data []byte) {
		d := NewDecoder(bytes.NewReader(data), StreamInfo{SampleRate: int(rate), BitsPerSample: int(bps)})
		// Every frame takes at least its 6-byte header and 2-byte CRC.
		for n := 0; n <= len(data)/8; n++ {
			fr, err := d.Next()
			if err != nil {
				return
			}
			if len(fr.Samples) == 0 || len(fr.Samples) > MaxChannels {
				t.Fatalf("a frame of %d channels", len(fr.Samples))
			}
			for _, s := range fr.Samples {
				if len(s) != len(fr.Samples[0]) || len(s) == 0 || len(s) > MaxBlockSize {
					t.Fatalf("channels of %d and %d samples", len(s), len(fr.Samples[0]))
				}
			}
		}
		t.Fatalf("more frames than %d bytes of input can hold", len(data))
	})
}
