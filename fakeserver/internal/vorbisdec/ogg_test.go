package vorbisdec

import (
	"encoding/binary"
	"testing"
)

// oggPacketsOf splits an Ogg file of one logical stream into its packets, with the granule
// position of the page each packet ends on and whether that page ends the stream.
type oggPacket struct {
	data    []byte
	granule int64
	last    bool // last packet completed on its page
	eos     bool
}

func oggPacketsOf(t testing.TB, b []byte) []oggPacket {
	t.Helper()
	var out []oggPacket
	var partial []byte
	for len(b) > 0 {
		if len(b) < 27 || string(b[:4]) != "OggS" {
			t.Fatalf("bad Ogg page at %d bytes from the end", len(b))
		}
		granule := int64(binary.LittleEndian.Uint64(b[6:]))
		eos := b[5]&4 != 0
		nseg := int(b[26])
		segs := b[27 : 27+nseg]
		body := b[27+nseg:]
		first := len(out)
		for _, s := range segs {
			partial = append(partial, body[:s]...)
			body = body[s:]
			if s < 255 {
				out = append(out, oggPacket{data: partial})
				partial = nil
			}
		}
		if len(out) > first {
			out[len(out)-1].last = true
			out[len(out)-1].granule = granule
			out[len(out)-1].eos = eos
		}
		b = body
	}
	return out
}
