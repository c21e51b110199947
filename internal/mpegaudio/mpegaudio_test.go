package mpegaudio

import (
	"encoding/binary"
	"testing"
)

func TestParseHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                string
		hdr                                 [4]byte
		ok                                  bool
		version, layer, bitrate, rate, size int
		channels, samples, sideInfo         int
	}{
		{"MPEG-1 layer III 128k 44.1k stereo", [4]byte{0xFF, 0xFB, 0x90, 0x00}, true, 1, 3, 128000, 44100, 417, 2, 1152, 32},
		{"MPEG-1 layer III padded mono", [4]byte{0xFF, 0xFB, 0x92, 0xC0}, true, 1, 3, 128000, 44100, 418, 1, 1152, 17},
		{"MPEG-2 layer III 64k 24k", [4]byte{0xFF, 0xF3, 0x84, 0x00}, true, 2, 3, 64000, 24000, 192, 2, 576, 17},
		{"MPEG-2.5 layer III 8k 8k mono", [4]byte{0xFF, 0xE3, 0x18, 0xC0}, true, 25, 3, 8000, 8000, 72, 1, 576, 9},
		{"MPEG-1 layer II", [4]byte{0xFF, 0xFD, 0x90, 0x00}, true, 1, 2, 160000, 44100, 522, 2, 1152, 0},
		{"free format", [4]byte{0xFF, 0xFB, 0x00, 0x00}, false, 0, 0, 0, 0, 0, 0, 0, 0},
		{"bad bit rate", [4]byte{0xFF, 0xFB, 0xF0, 0x00}, false, 0, 0, 0, 0, 0, 0, 0, 0},
		{"reserved rate", [4]byte{0xFF, 0xFB, 0x9C, 0x00}, false, 0, 0, 0, 0, 0, 0, 0, 0},
		{"reserved version", [4]byte{0xFF, 0xEB, 0x90, 0x00}, false, 0, 0, 0, 0, 0, 0, 0, 0},
		{"reserved emphasis", [4]byte{0xFF, 0xFB, 0x90, 0x02}, false, 0, 0, 0, 0, 0, 0, 0, 0},
		{"no sync", [4]byte{0xFF, 0x1B, 0x90, 0x00}, false, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, ok := ParseHeader(tt.hdr[:])
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, h)
			}
			if !ok {
				return
			}
			if h.Version != tt.version || h.Layer != tt.layer || h.Bitrate != tt.bitrate || h.Rate != tt.rate ||
				h.Size != tt.size || h.Channels != tt.channels || h.Samples != tt.samples || h.SideInfo != tt.sideInfo {
				t.Errorf("%+v", h)
			}
		})
	}
}

// infoFrame builds a layer III frame carrying an Info tag with a LAME delay and padding, after
// the CRC when the header has one.
func infoFrame(t *testing.T, hdr [4]byte, encoder string, delay, padding int) ([]byte, Header) {
	return infoFrameAt(t, hdr, encoder, delay, padding, true)
}

// infoFrameAt is infoFrame with the tag right after the side information, ignoring a CRC, as
// LAME writes it, when afterCRC is false.
func infoFrameAt(t *testing.T, hdr [4]byte, encoder string, delay, padding int, afterCRC bool) ([]byte, Header) {
	t.Helper()
	h, ok := ParseHeader(hdr[:])
	if !ok {
		t.Fatal("bad header")
	}
	f := make([]byte, h.Size)
	copy(f, hdr[:])
	off := 4 + h.SideInfo
	if h.CRC && afterCRC {
		off += 2
	}
	copy(f[off:], "Info")
	binary.BigEndian.PutUint32(f[off+4:], 1) // frame count present
	p := off + 8 + 4
	copy(f[p:], encoder)
	f[p+21], f[p+22], f[p+23] = byte(delay>>4), byte(delay<<4|padding>>8), byte(padding)
	return f, h
}

func TestParseInfoFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		hdr     [4]byte
		encoder string
		lame    bool
	}{
		{"no CRC, LAME", [4]byte{0xFF, 0xFB, 0x90, 0x00}, "LAME3.100", true},
		{"CRC-protected, Lavc", [4]byte{0xFF, 0xFA, 0x90, 0x00}, "Lavc60.31", true},
		{"mono MPEG-2, Lavf", [4]byte{0xFF, 0xF3, 0x84, 0xC0}, "Lavf60.16", true},
		{"unknown encoder", [4]byte{0xFF, 0xFB, 0x90, 0x00}, "XYZ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, h := infoFrame(t, tt.hdr, tt.encoder, 576, 1000)
			info, ok := ParseInfoFrame(f, h)
			if !ok || info.LAME != tt.lame {
				t.Fatalf("ParseInfoFrame = %+v, %v", info, ok)
			}
			if tt.lame && (info.Delay != 576 || info.Padding != 1000) {
				t.Errorf("delay %d padding %d, want 576 and 1000", info.Delay, info.Padding)
			}
		})
	}
	// LAME's own layout with a CRC (lame -p): the tag where it would be without one.
	lame, h := infoFrameAt(t, [4]byte{0xFF, 0xFA, 0x90, 0x00}, "LAME3.100", 576, 1000, false)
	if info, ok := ParseInfoFrame(lame, h); !ok || !info.LAME || info.Delay != 576 || info.Padding != 1000 {
		t.Errorf("LAME's CRC-protected Info frame: %+v, %v", info, ok)
	}
	audio, h := infoFrame(t, [4]byte{0xFF, 0xFB, 0x90, 0x00}, "LAME", 0, 0)
	copy(audio[4+h.SideInfo:], "Data")
	if _, ok := ParseInfoFrame(audio, h); ok {
		t.Error("an audio frame was taken for an Info frame")
	}
}

// FuzzParse feeds arbitrary bytes to both parsers: they must not panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte{0xFF, 0xFB, 0x90, 0x00, 'X', 'i', 'n', 'g'})
	f.Add([]byte{0xFF, 0xFA, 0x90, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, ok := ParseHeader(b); ok {
			_, _ = ParseInfoFrame(b, h)
		}
	})
}
