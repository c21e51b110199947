package aacdec

import (
	"errors"
	"strings"
	"testing"
)

// bitWriter writes test bit strings most significant bit first.
type bitWriter struct {
	buf []byte
	n   int
}

func (w *bitWriter) put(v uint32, bits int) *bitWriter {
	for i := bits - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>uint(i)&1 == 1 {
			w.buf[w.n/8] |= 0x80 >> uint(w.n%8)
		}
		w.n++
	}
	return w
}

// lcConfig writes an AAC LC AudioSpecificConfig.
func lcConfig(rateIndex, channels uint32) *bitWriter {
	return new(bitWriter).put(2, 5).put(rateIndex, 4).put(channels, 4).put(0, 3)
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		asc      []byte
		want     Config
		err      error
		errNames string
	}{
		{"LC 44.1 kHz stereo", lcConfig(4, 2).buf, Config{ObjectType: 2, SampleRate: 44100, Channels: 2, RateIndex: 4}, nil, ""},
		{"LC 7.35 kHz mono", lcConfig(12, 1).buf, Config{ObjectType: 2, SampleRate: 7350, Channels: 1, RateIndex: 12}, nil, ""},
		{"LC explicit 44 kHz", new(bitWriter).put(2, 5).put(15, 4).put(44000, 24).put(1, 4).put(0, 3).buf,
			Config{ObjectType: 2, SampleRate: 44000, Channels: 1, RateIndex: 4}, nil, ""},
		{"HE-AAC explicit", new(bitWriter).put(5, 5).put(7, 4).put(2, 4).put(4, 4).put(2, 5).put(0, 3).buf, Config{}, ErrUnsupported, "HE-AAC"},
		{"HE-AAC v2 explicit", new(bitWriter).put(29, 5).put(7, 4).put(1, 4).put(4, 4).put(2, 5).put(0, 3).buf, Config{}, ErrUnsupported, "HE-AACv2"},
		{"HE-AAC backward compatible", lcConfig(6, 2).put(0x2b7, 11).put(5, 5).put(1, 1).put(3, 4).buf, Config{}, ErrUnsupported, "HE-AAC"},
		{"HE-AAC v2 backward compatible", lcConfig(6, 1).put(0x2b7, 11).put(5, 5).put(1, 1).put(3, 4).put(0x548, 11).put(1, 1).buf, Config{}, ErrUnsupported, "HE-AACv2"},
		{"SBR extension absent", lcConfig(4, 2).put(0x2b7, 11).put(5, 5).put(0, 1).buf, Config{ObjectType: 2, SampleRate: 44100, Channels: 2, RateIndex: 4}, nil, ""},
		{"Main", new(bitWriter).put(1, 5).put(4, 4).put(2, 4).put(0, 3).buf, Config{}, ErrUnsupported, "Main"},
		{"LTP", new(bitWriter).put(4, 5).put(4, 4).put(2, 4).put(0, 3).buf, Config{}, ErrUnsupported, "LTP"},
		{"xHE-AAC", new(bitWriter).put(31, 5).put(10, 6).put(4, 4).put(2, 4).buf, Config{}, ErrUnsupported, "xHE-AAC"},
		{"960-sample frames", new(bitWriter).put(2, 5).put(4, 4).put(2, 4).put(4, 3).buf, Config{}, ErrUnsupported, "960"},
		{"5.1", lcConfig(4, 6).buf, Config{}, ErrUnsupported, "channel configuration 6"},
		{"program config element", lcConfig(4, 0).buf, Config{}, ErrUnsupported, "program config"},
		{"empty", nil, Config{}, ErrMalformed, ""},
		{"reserved rate", new(bitWriter).put(2, 5).put(13, 4).put(2, 4).buf, Config{}, ErrMalformed, ""},
		{"cut short", []byte{0x12}, Config{}, ErrMalformed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseConfig(tc.asc)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.errNames) {
					t.Fatalf("error %v, want %v naming %q", err, tc.err, tc.errNames)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("%+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// adtsHeader writes an ADTS header without CRC.
func adtsHeader(profile, rateIndex, channels uint32, length int) []byte {
	return new(bitWriter).put(0xfff, 12).put(0, 1).put(0, 2).put(1, 1).put(profile, 2).put(rateIndex, 4).
		put(0, 1).put(channels, 3).put(0, 4).put(uint32(length), 13).put(0x7ff, 11).put(0, 2).buf
}

func TestParseADTSHeader(t *testing.T) {
	t.Parallel()
	h, err := ParseADTSHeader(adtsHeader(1, 3, 2, 300))
	if err != nil || h.SampleRate != 48000 || h.Channels != 2 || h.FrameLength != 300 || h.HeaderLength != 7 || h.Blocks != 1 {
		t.Fatalf("%+v, %v", h, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		err  error
		says string
	}{
		{"Main", adtsHeader(0, 4, 2, 300), ErrUnsupported, "Main"},
		{"SSR", adtsHeader(2, 4, 2, 300), ErrUnsupported, "SSR"},
		{"LTP", adtsHeader(3, 4, 2, 300), ErrUnsupported, "LTP"},
		{"no sync", []byte{0xff, 0x00, 0, 0, 0, 0, 0}, ErrMalformed, "sync"},
		{"short", []byte{0xff, 0xf1}, ErrMalformed, "sync"},
		{"reserved rate", adtsHeader(1, 14, 2, 300), ErrMalformed, "index 14"},
		{"frame shorter than its header", adtsHeader(1, 4, 2, 5), ErrMalformed, "5 bytes"},
	} {
		if _, err := ParseADTSHeader(tc.b); !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.err, tc.says)
		}
	}
}

// TestSameStream: frames belong to one stream when object type, rate and channels agree; the
// frame length, CRC and block count may differ.
func TestSameStream(t *testing.T) {
	t.Parallel()
	base := ADTSHeader{Config: Config{ObjectType: 2, SampleRate: 44100, Channels: 2}, FrameLength: 300, HeaderLength: 7, Blocks: 1}
	tests := []struct {
		name string
		edit func(h *ADTSHeader)
		want bool
	}{
		{"identical", func(*ADTSHeader) {}, true},
		{"another length, a CRC, two blocks", func(h *ADTSHeader) { h.FrameLength, h.HeaderLength, h.Blocks = 12, 9, 2 }, true},
		{"another object type", func(h *ADTSHeader) { h.ObjectType = 1 }, false},
		{"another rate", func(h *ADTSHeader) { h.SampleRate = 48000 }, false},
		{"another channel configuration", func(h *ADTSHeader) { h.Channels = 1 }, false},
	}
	for _, tt := range tests {
		o := base
		tt.edit(&o)
		if got := o.SameStream(base); got != tt.want || base.SameStream(o) != got {
			t.Errorf("%s: SameStream = %v, want %v (both ways)", tt.name, got, tt.want)
		}
	}
}
