package audio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"
)

// flacConstant builds a FLAC of frames of 65,535 constant samples at rate on ch independent
// channels: a few bytes a frame, as many samples as the header says (the rate is read from
// STREAMINFO, so any rate the format allows).
func flacConstant(frames, rate, ch int) []byte {
	const block = 65535
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
		// sync; blocksize 16-bit at end, rate from STREAMINFO; ch channels of 16 bits
		h := []byte{0xFF, 0xF8, 0x70, byte(ch-1)<<4 | 0x08}
		switch { // the frame number, UTF-8 coded
		case n < 0x80:
			h = append(h, byte(n))
		case n < 0x800:
			h = append(h, 0xC0|byte(n>>6), 0x80|byte(n&0x3F))
		default:
			h = append(h, 0xE0|byte(n>>12), 0x80|byte(n>>6&0x3F), 0x80|byte(n&0x3F))
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

// TestSampleCeilings: a file above MaxSampleRate fails before anything is decoded, naming the
// rate; a file whose rate and channels decode more samples than SamplesPerSecond allows stops
// within a block of the allowance (counted in blocks metered, not in seconds), whatever its
// coding; files within the allowance are measured. The allowance here is the fake's, 48 kHz
// stereo a second, with a floor of one second's worth instead of the fake's ten minutes (the
// floor's size proves nothing and metering costs seconds of CPU under -race).
func TestSampleCeilings(t *testing.T) {
	t.Parallel()
	const perSecond = 48000 * 2
	limits := Limits{MaxDuration: 12 * time.Hour, MaxChannels: 2, MaxSampleRate: 192000, SamplesPerSecond: perSecond, MinSamples: perSecond}
	// blocks is how many blocks of the meter hold n frames, rounded up.
	blocks := func(frames int64) int64 { return (frames + pcmBlock - 1) / pcmBlock }
	tests := []struct {
		name                 string
		file                 []byte
		minChecks, maxChecks int64  // checks of the context before the error (or the end)
		wantErr              string // in the error; "" when the file is measured
	}{
		// 10 minutes of 384 kHz stereo in 63 KB, the file of issue 41.
		{"384 kHz stereo, over the rate ceiling", flacConstant(3516, 384000, 2), 1, 1, "a sample rate of 384000 Hz; at most 192000 Hz"},
		// 192 kHz stereo decodes four times the samples of 48 kHz stereo: it stops once past
		// the floor (96,000 samples: 48,000 frames), long before its 2 minutes.
		{"192 kHz stereo past the allowance", flacConstant(360, 192000, 2), blocks(48000), 2 * (blocks(48000) + 2), "decodes to"},
		// 96 kHz stereo, twice the allowance a second: stopped as soon.
		{"96 kHz stereo past the allowance", flacConstant(180, 96000, 2), blocks(48000), 2 * (blocks(48000) + 2), "decodes to"},
		// Within the allowance whatever the duration: measured to the end.
		{"48 kHz stereo, 4 s", flacConstant(3, 48000, 2), blocks(3 * 65535), blocks(3*65535) + 2, ""},
		{"96 kHz mono, 2 s", flacConstant(3, 96000, 1), blocks(3 * 65535), blocks(3*65535) + 2, ""},
		{"192 kHz mono within the floor, 0.3 s", flacConstant(1, 192000, 1), blocks(65535) - 1, blocks(65535) + 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := &checkCounter{Context: context.Background()}
			m, err := MeasureContext(ctx, bytes.NewReader(tt.file), WithLimits(limits))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("a file within the ceilings: %v", err)
			case tt.wantErr == "" && m.Duration == 0:
				t.Fatalf("a file within the ceilings measured %+v", m)
			case tt.wantErr != "" && (!errors.Is(err, ErrOverCeiling) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want ErrOverCeiling saying %q", err, tt.wantErr)
			}
			if n := ctx.n.Load(); n < tt.minChecks || n > tt.maxChecks {
				t.Fatalf("%d checks of the context (blocks of %d frames metered), want %d to %d (%v)", n, pcmBlock, tt.minChecks, tt.maxChecks, err)
			}
		})
	}
}

// BenchmarkTenMinutesAtAnyRate is what ten minutes of audio cost under the fake's ceilings:
// 48 kHz stereo measured whole, 192 kHz stereo stopped at the same samples, 384 kHz refused
// before decoding. Each is a FLAC of constant frames, the cheapest coding per sample.
func BenchmarkTenMinutesAtAnyRate(b *testing.B) {
	const perSecond = 48000 * 2
	limits := Limits{MaxDuration: 12 * time.Hour, MaxChannels: 2, MaxSampleRate: 192000, SamplesPerSecond: perSecond, MinSamples: perSecond * 600}
	for _, bb := range []struct {
		name string
		rate int
	}{{"48kHz", 48000}, {"192kHz", 192000}, {"384kHz", 384000}} {
		file := flacConstant(600*bb.rate/65535+1, bb.rate, 2)
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, err := MeasureContext(context.Background(), bytes.NewReader(file), WithLimits(limits))
				if (err != nil) != (bb.rate > 48000) {
					b.Fatal(err)
				}
			}
		})
	}
}
