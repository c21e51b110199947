package audio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"sync/atomic"
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

// checkCounter is a context that counts how often the decoder asks it whether to stop: Measure
// checks its context and ceilings once per block of pcmBlock frames handed to the meter, so the
// count is the work done, whatever the speed of the machine.
type checkCounter struct {
	context.Context
	n atomic.Int64
}

func (c *checkCounter) Err() error {
	c.n.Add(1)
	return c.Context.Err()
}

// TestBombsStopAtACeiling: the bomb stops soon after crossing a ceiling, with a clear error;
// an honest file of the same format is measured under the same ceilings. "Soon" is counted in
// blocks metered, not in seconds.
func TestBombsStopAtACeiling(t *testing.T) {
	t.Parallel()
	if b, err := os.ReadFile("testdata/bombs/flac-8ch-65535x2000.flac"); err != nil || !bytes.Equal(b, flacBomb(2000)) {
		t.Fatalf("testdata/bombs/flac-8ch-65535x2000.flac is not flacBomb(2000): %v", err)
	}
	small := flacBomb(3)
	if m, err := Measure(bytes.NewReader(small)); err != nil || m.Channels != 8 || m.Duration < 4*time.Second {
		t.Fatalf("the crafted FLAC does not decode: %+v %v", m, err)
	}
	const rate = 44100 // flacBomb's
	// blocks is how many blocks of the meter hold d of the bomb's audio, rounded up.
	blocks := func(d time.Duration) int64 {
		return (int64(d.Seconds()*rate) + pcmBlock - 1) / pcmBlock
	}
	bomb := flacBomb(2000) // 49.5 minutes of 8-channel audio: 16,000 blocks if nothing stopped it
	tests := []struct {
		name   string
		limits Limits
		// minChecks and maxChecks bound the checks made before the error: refused before
		// decoding, or stopped within a block of the ceiling. maxChecks allows twice the blocks
		// so that a decoder checking more than once per block still passes; one that ran on
		// would make hundreds of times more.
		minChecks, maxChecks int64
	}{
		{"2,000 constant 8-channel frames (54 KB) over the channel ceiling", fakeLimits, 1, 2},
		// 3 s rather than the fake's 12 h: the ceiling's size proves nothing, and metering 8
		// channels under -race costs seconds of CPU per 10 s of audio.
		{"over the duration ceiling", Limits{MaxDuration: 3 * time.Second}, blocks(3 * time.Second), 2 * (blocks(3*time.Second) + 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := &checkCounter{Context: context.Background()}
			_, err := MeasureContext(ctx, bytes.NewReader(bomb), WithLimits(tt.limits))
			if !errors.Is(err, ErrOverCeiling) {
				t.Fatalf("err = %v, want ErrOverCeiling", err)
			}
			if n := ctx.n.Load(); n < tt.minChecks || n > tt.maxChecks {
				t.Fatalf("the bomb stopped after %d checks of its context (blocks of %d frames metered), want %d to %d", n, pcmBlock, tt.minChecks, tt.maxChecks)
			}
			t.Logf("%v after %d checks", err, ctx.n.Load())
		})
	}
	honest, err := Synthesize(SynthSpec{DurationSeconds: 10, Channels: 2})
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
