package vorbisdec

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzVorbisDecoder feeds arbitrary identification and setup headers and audio packets (each
// preceded by its length in two bytes) to the decoder: it must refuse them with an error
// wrapping ErrCorrupt or ErrTooLarge or decode them into channels of equal length, a quarter
// of the previous block plus a quarter of this one, and never panic.
func FuzzVorbisDecoder(f *testing.F) {
	for _, name := range []string{"clicks_s22_q2", "speech_m8_qm1", "speech_51_48_q3"} {
		b, err := os.ReadFile(filepath.Join("testdata", name+".ogg"))
		if err != nil {
			f.Fatal(err)
		}
		pk := oggPacketsOf(f, b)
		var audio []byte
		for _, p := range pk[3:min(len(pk), 40)] {
			audio = binary.LittleEndian.AppendUint16(audio, uint16(len(p.data)))
			audio = append(audio, p.data...)
		}
		f.Add(pk[0].data, pk[2].data, audio)
	}
	c := basicCraft()
	var audio []byte
	for _, p := range randomPackets(1, 20, 40) {
		audio = binary.LittleEndian.AppendUint16(audio, uint16(len(p)))
		audio = append(audio, p...)
	}
	var ident [30]byte
	ident[0] = 1
	copy(ident[1:], "vorbis")
	ident[11] = 2
	binary.LittleEndian.PutUint32(ident[12:], 8000)
	ident[28] = 8 | 11<<4
	ident[29] = 1
	f.Add(ident[:], c.setup(), audio)
	f.Fuzz(func(t *testing.T, ident, setup, audio []byte) {
		info, err := ParseIdentification(ident)
		if err != nil {
			return
		}
		d, err := NewDecoder(info, setup)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("setup refused with %v", err)
			}
			return
		}
		prev := 0
		for len(audio) >= 2 {
			n := min(int(binary.LittleEndian.Uint16(audio)), len(audio)-2)
			p := audio[2 : 2+n]
			audio = audio[2+n:]
			bs, err := d.BlockSize(p)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("BlockSize: %v", err)
				}
				if _, err := d.Decode(p); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Decode of a packet BlockSize refuses: %v", err)
				}
				continue
			}
			out, err := d.Decode(p)
			if err != nil {
				t.Fatalf("Decode of a packet BlockSize takes: %v", err)
			}
			want := 0
			if bs > 0 {
				if prev > 0 {
					want = prev/4 + bs/4
				}
				prev = bs
			}
			if len(out) != info.Channels {
				t.Fatalf("%d channels of %d", len(out), info.Channels)
			}
			for _, s := range out {
				if len(s) != want {
					t.Fatalf("%d samples, want %d", len(s), want)
				}
			}
		}
	})
}
