package audio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"
)

// flacBomb builds the decompression bomb of issue #19: frames of 65,535 constant samples on 8
// channels, a few bytes each.
func flacBomb(frames int) []byte {
	const block, ch, rate = 65535, 8, 44100
	var b bytes.Buffer
	b.WriteString("fLaC")
	b.Write([]byte{0x80, 0, 0, 34}) // last metadata block: STREAMINFO, 34 bytes
	var si [34]byte
	binary.BigEndian.PutUint16(si[0:], block)
	binary.BigEndian.PutUint16(si[2:], block)
	total := uint64(frames) * block
	// sample rate (20) | channels-1 (3) | bps-1 (5) | total samples (36)
	v := uint64(rate)<<44 | uint64(ch-1)<<41 | uint64(15)<<36 | total
	binary.BigEndian.PutUint64(si[10:], v)
	b.Write(si[:])
	for n := range frames {
		var h []byte
		h = append(h, 0xFF, 0xF8, 0x79, 0x78) // sync; blocksize 16-bit at end; 44.1 kHz; 8 channels of 16 bits
		if n < 0x80 {
			h = append(h, byte(n))
		} else {
			h = append(h, 0xC0|byte(n>>6), 0x80|byte(n&0x3F))
		}
		bs := uint16(block - 1)
		h = append(h, byte(bs>>8), byte(bs))
		h = append(h, crc8(h))
		for range ch {
			h = append(h, 0x00, 0x12, 0x34) // constant subframe, value 0x1234
		}
		c := crc16(h)
		h = append(h, byte(c>>8), byte(c))
		b.Write(h)
	}
	return b.Bytes()
}

func crc8(p []byte) byte {
	var c byte
	for _, x := range p {
		c ^= x
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
	}
	return c
}

func crc16(p []byte) uint16 {
	var c uint16
	for _, x := range p {
		c ^= uint16(x) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x8005
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// fakeLimits are the ceilings the fake applies.
var fakeLimits = Limits{MaxDuration: 12 * time.Hour, MaxChannels: 2}

// TestBombsStopAtACeiling: the bomb stops soon after crossing a ceiling, with a clear error;
// an honest file of the same format is measured under the same ceilings.
func TestBombsStopAtACeiling(t *testing.T) {
	t.Parallel()
	if b, err := os.ReadFile("testdata/bombs/flac-8ch-65535x2000.flac"); err != nil || !bytes.Equal(b, flacBomb(2000)) {
		t.Fatalf("testdata/bombs/flac-8ch-65535x2000.flac is not flacBomb(2000): %v", err)
	}
	small := flacBomb(3)
	if m, err := Measure(bytes.NewReader(small)); err != nil || m.Channels != 8 || m.Duration < 4*time.Second {
		t.Fatalf("the crafted FLAC does not decode: %+v %v", m, err)
	}
	tests := []struct {
		name   string
		file   []byte
		limits Limits
	}{
		{"2,000 constant 8-channel frames (54 KB)", flacBomb(2000), fakeLimits},
		{"over the duration ceiling", flacBomb(60), Limits{MaxDuration: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			_, err := MeasureContext(context.Background(), bytes.NewReader(tt.file), WithLimits(tt.limits))
			took := time.Since(began)
			if !errors.Is(err, ErrOverCeiling) {
				t.Fatalf("err = %v, want ErrOverCeiling", err)
			}
			// The channels are refused before decoding, the duration within a block of the
			// minute; the bound is generous for -race on a shared machine.
			if took > 10*time.Second {
				t.Fatalf("the bomb ran %v before stopping", took)
			}
			t.Logf("%v after %v", err, took)
		})
	}
	honest, err := Synthesize(SynthSpec{DurationSeconds: 90, Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MeasureContext(context.Background(), bytes.NewReader(honest), WithLimits(fakeLimits)); err != nil {
		t.Fatalf("an honest file under the fake's ceilings: %v", err)
	}
}

// TestMeasureHonoursItsContext: a cancelled context stops decoding with the context's error.
func TestMeasureHonoursItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := MeasureContext(ctx, bytes.NewReader(flacBomb(2000)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
