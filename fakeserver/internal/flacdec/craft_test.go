package flacdec

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

// bitWriter writes bits most significant first, for frames crafted by the tests.
type bitWriter struct {
	b   []byte
	n   uint // bits in cur, the byte being written
	cur byte
}

func (w *bitWriter) write(v uint64, k uint) {
	for i := int(k) - 1; i >= 0; i-- {
		w.cur = w.cur<<1 | byte(v>>uint(i)&1)
		w.n++
		if w.n == 8 {
			w.b = append(w.b, w.cur)
			w.cur, w.n = 0, 0
		}
	}
}

func (w *bitWriter) signed(v int64, k uint) { w.write(uint64(v)&(1<<k-1), k) }

func (w *bitWriter) align() {
	if w.n > 0 {
		w.write(0, 8-w.n)
	}
}

// rice writes v as a Rice code of parameter k.
func (w *bitWriter) rice(v int32, k uint) {
	u := uint64(uint32(v<<1) ^ uint32(v>>31))
	q := u >> k
	for range q {
		w.write(0, 1)
	}
	w.write(1, 1)
	w.write(u&(1<<k-1), k)
}

// craftFrame returns a mono 16-bit frame of 16 samples (block size in one byte, rate from
// STREAMINFO) holding one subframe written by sub, with both CRCs.
func craftFrame(sub func(w *bitWriter)) []byte {
	w := &bitWriter{}
	w.write(0xFFF8, 16) // sync, fixed block size
	w.write(6, 4)       // block size: 8 bits follow
	w.write(0, 4)       // rate: STREAMINFO
	w.write(0, 4)       // one channel
	w.write(4, 3)       // 16 bits
	w.write(0, 1)
	w.write(0, 8)  // frame number 0
	w.write(15, 8) // 16 samples
	w.write(uint64(crc8(w.b)), 8)
	sub(w)
	w.align()
	w.write(uint64(crc16(w.b)), 16)
	return w.b
}

// TestCraftedSubframes decodes frames written bit by bit with what the encoders' fixtures do
// not use: an escaped (raw) residual partition beside a Rice2 one, a fixed predictor of order
// 4, wasted bits, and a verbatim subframe.
func TestCraftedSubframes(t *testing.T) {
	t.Parallel()
	want := []int32{100, 90, 70, 40, 0, -50, -110, -180, -260, -350, -440, -500, -520, -500, -440, -350}
	tests := []struct {
		name string
		sub  func(w *bitWriter)
	}{
		{"verbatim", func(w *bitWriter) {
			w.write(0x02, 8) // verbatim, no wasted bits
			for _, v := range want {
				w.signed(int64(v), 16)
			}
		}},
		{"fixed order 4, escaped and Rice2 partitions", func(w *bitWriter) {
			w.write(0x18, 8) // fixed, order 4
			for _, v := range want[:4] {
				w.signed(int64(v), 16)
			}
			res := make([]int32, 0, 12)
			for i := 4; i < len(want); i++ {
				res = append(res, want[i]-(4*want[i-1]-6*want[i-2]+4*want[i-3]-want[i-4]))
			}
			w.write(1, 2)  // Rice2
			w.write(1, 4)  // two partitions of 8: the first holds 4 residuals
			w.write(31, 5) // escaped
			w.write(9, 5)  // 9 raw bits each
			for _, r := range res[:4] {
				w.signed(int64(r), 9)
			}
			w.write(17, 5) // Rice2 parameter 17: long low parts
			for _, r := range res[4:] {
				w.rice(r, 17)
			}
		}},
		{"wasted bits, fixed order 1, escape with no bits", func(w *bitWriter) {
			// Every sample is 100 << 3: three wasted bits, a constant residual of zero.
			w.write(0x13, 8) // fixed, order 1, wasted bits follow
			w.write(0b001, 3)
			w.signed(100, 13)
			w.write(0, 2)  // Rice
			w.write(0, 4)  // one partition
			w.write(15, 4) // escaped
			w.write(0, 5)  // zero bits: all residuals 0
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			frame := craftFrame(tt.sub)
			d := NewDecoder(bytes.NewReader(frame), StreamInfo{SampleRate: 44100, BitsPerSample: 16})
			f, err := d.Next()
			if err != nil {
				t.Fatal(err)
			}
			exp := want
			if i == 2 {
				exp = slices.Repeat([]int32{800}, 16)
			}
			if len(f.Samples) != 1 || !slices.Equal(f.Samples[0], exp) || f.SampleRate != 44100 || f.BitsPerSample != 16 {
				t.Fatalf("got %d channels %v at %d Hz, %d bits; want %v", len(f.Samples), f.Samples, f.SampleRate, f.BitsPerSample, exp)
			}
			if _, err := d.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after the frame: %v, want io.EOF", err)
			}
		})
	}
}
