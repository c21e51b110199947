package mp4desc

import (
	"bytes"
	"testing"
)

// desc builds a descriptor: tag, a length in the given number of 7-bit bytes, body.
func desc(tag byte, lenBytes int, body ...byte) []byte {
	out := []byte{tag}
	n := len(body)
	for i := lenBytes - 1; i >= 0; i-- {
		b := byte(n>>(7*i)) & 0x7F
		if i > 0 {
			b |= 0x80
		}
		out = append(out, b)
	}
	return append(out, body...)
}

// esds is an esds box body: version and flags, then an ES_Descriptor with the given flags and
// optional fields, holding a DecoderConfigDescriptor of objectType with the DSI asc.
func esds(esFlags byte, optional []byte, lenBytes int, objectType byte, asc []byte) []byte {
	dcd := append([]byte{objectType, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, desc(5, lenBytes, asc...)...)
	es := append(append([]byte{0, 1, esFlags}, optional...), desc(4, lenBytes, dcd...)...)
	es = append(es, desc(6, 1, 2)...) // SLConfigDescriptor
	return append([]byte{0, 0, 0, 0}, desc(3, lenBytes, es...)...)
}

func TestESDS(t *testing.T) {
	t.Parallel()
	asc := []byte{0x12, 0x10}
	plain := esds(0, nil, 1, 0x40, asc)
	tests := []struct {
		name   string
		body   []byte
		wantOT byte
		wantOK bool
		dsi    []byte
	}{
		{"one-byte lengths", plain, 0x40, true, asc},
		{"four-byte lengths (ffmpeg writes these)", esds(0, nil, 4, 0x40, asc), 0x40, true, asc},
		{"a depends-on id, a URL and an OCR id skipped", esds(0x80|0x40|0x20, []byte{0, 7, 3, 'a', 'b', 'c', 0, 9}, 1, 0x40, asc), 0x40, true, asc},
		{"MP3", esds(0, nil, 1, 0x6B, nil), 0x6B, true, []byte{}},
		{"empty", nil, 0, false, nil},
		{"version and flags only", []byte{0, 0, 0, 0}, 0, false, nil},
		{"cut inside the decoder config", plain[:14], 0, false, nil},
		{"cut inside the DSI", plain[:len(plain)-4], 0x40, true, asc[:1]},
		// Found by FuzzESDS: the length says less than the descriptor's fixed 13 bytes.
		{"a decoder config whose length is under its fixed fields", []byte("0000\x03000\x00\x04\x000000000000000"), 0, false, nil},
		{"an ES descriptor too short for its flags", append([]byte{0, 0, 0, 0}, desc(3, 1, 0, 1)...), 0, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ot, dsi, ok := ESDS(tt.body)
			if ot != tt.wantOT || ok != tt.wantOK || !bytes.Equal(dsi, tt.dsi) || (dsi == nil) != (tt.dsi == nil) {
				t.Fatalf("ESDS = 0x%02x, % x, %v; want 0x%02x, % x, %v", ot, dsi, ok, tt.wantOT, tt.dsi, tt.wantOK)
			}
		})
	}
}

func TestCodec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry string
		esds  []byte
		want  string
	}{
		{"mp4a", esds(0, nil, 1, 0x40, []byte{0x12, 0x10}), "aac"},
		{"mp4a", esds(0, nil, 1, 0x67, nil), "aac"}, // MPEG-2 AAC LC
		{"mp4a", esds(0, nil, 1, 0x6B, nil), "mp3"},
		{"mp4a", esds(0, nil, 1, 0x69, nil), "mp3"},
		{"mp4a", esds(0, nil, 1, 0xA5, nil), "mp4a object type 0xa5"},
		{"mp4a", nil, "aac"}, // no esds: AAC, as ffprobe assumes
		{"alac", nil, "alac"},
		{"Opus", nil, "opus"},
		{"fLaC", nil, "flac"},
		{"ac-3", nil, "ac3"},
		{"ec-3", nil, "eac3"},
		{"samr", nil, "samr"},
	}
	for _, tt := range tests {
		if got := Codec(tt.entry, tt.esds); got != tt.want {
			t.Errorf("Codec(%q, % x) = %q, want %q", tt.entry, tt.esds, got, tt.want)
		}
	}
}

// FuzzESDS: any body is read without a panic, and the DSI returned lies within it.
func FuzzESDS(f *testing.F) {
	f.Add(esds(0, nil, 1, 0x40, []byte{0x12, 0x10}))
	f.Add(esds(0xE0, []byte{0, 7, 3, 'a', 'b', 'c', 0, 9}, 4, 0x40, []byte{0x13, 0x88, 0x56, 0xE5}))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, dsi, _ := ESDS(b)
		if len(dsi) > 0 && !bytes.Contains(b, dsi) {
			t.Fatalf("DSI % x is not in the body", dsi)
		}
	})
}
