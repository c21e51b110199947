package aacdec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeFrame feeds arbitrary raw data blocks, seeded with fixture frames, to decoders of
// every layout: no panic, and either a whole frame of samples or an error with none (for
// ErrUnsupported) or silence (for ErrCorrupt).
func FuzzDecodeFrame(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.aac")
	for _, name := range files[:4] {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i := 0; len(data) > 0 && i < 6; i++ {
			h, err := ParseADTSHeader(data)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(h.RateIndex), uint8(h.Channels), data[h.HeaderLength:h.FrameLength])
			data = data[h.FrameLength:]
		}
	}
	f.Fuzz(func(t *testing.T, rate, channels uint8, block []byte) {
		c := Config{ObjectType: objectLC, RateIndex: int(rate % 13), Channels: 1 + int(channels%2)}
		c.SampleRate = sampleRates[c.RateIndex]
		d, err := NewDecoder(c)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // twice: the second frame overlaps the first
			out, err := d.Decode(nil, block)
			switch {
			case errors.Is(err, ErrUnsupported):
				if len(out) != 0 {
					t.Fatalf("%d samples with %v", len(out), err)
				}
			case err == nil || errors.Is(err, ErrCorrupt):
				if len(out) != FrameSamples*c.Channels {
					t.Fatalf("%d samples with %v", len(out), err)
				}
			default:
				t.Fatalf("unexpected error %v", err)
			}
		}
	})
}

// FuzzADTS reads and decodes arbitrary ADTS streams, seeded with a fixture: no panic, and the
// bytes taken as frames plus those skipped never exceed the input.
func FuzzADTS(f *testing.F) {
	data, err := os.ReadFile("testdata/s8_mono.aac")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:1200])
	f.Add(append(append([]byte{}, data[:300]...), data[310:900]...))
	f.Fuzz(func(t *testing.T, stream []byte) {
		a := NewADTSReader(bytes.NewReader(stream))
		var d *Decoder
		var taken int64
		for {
			h, block, err := a.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
					t.Fatal(err)
				}
				break
			}
			taken += int64(h.FrameLength)
			if d == nil {
				if d, err = NewDecoder(h.Config); err != nil {
					t.Fatal(err)
				}
			}
			_, _ = d.Decode(nil, block)
		}
		if taken+a.Skipped() > int64(len(stream)) {
			t.Fatalf("%d bytes in frames and %d skipped of %d", taken, a.Skipped(), len(stream))
		}
	})
}

// FuzzParseConfig parses arbitrary AudioSpecificConfigs: no panic, and a configuration taken
// without error makes a decoder.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte{0x12, 0x10})
	f.Add(lcConfig(6, 2).put(0x2b7, 11).put(5, 5).put(1, 1).put(3, 4).buf)
	f.Fuzz(func(t *testing.T, asc []byte) {
		c, err := ParseConfig(asc)
		if err != nil {
			return
		}
		if _, err := NewDecoder(c); err != nil {
			t.Fatalf("%+v parsed but makes no decoder: %v", c, err)
		}
	})
}
