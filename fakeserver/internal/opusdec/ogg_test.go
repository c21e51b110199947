package opusdec

import (
	"encoding/binary"
	"errors"
	"testing"
)

// oggOpus is an Ogg Opus file split into its packets (test helper; no CRC check).
type oggOpus struct {
	channels int
	preSkip  int
	granule  int64 // of the last page
	packets  [][]byte
}

func parseOggOpus(t testing.TB, b []byte) oggOpus {
	t.Helper()
	var o oggOpus
	var pkts [][]byte
	var cur []byte
	for len(b) > 0 {
		if len(b) < 27 || string(b[:4]) != "OggS" {
			t.Fatal(errors.New("bad Ogg page"))
		}
		o.granule = int64(binary.LittleEndian.Uint64(b[6:]))
		ns := int(b[26])
		segs := b[27 : 27+ns]
		b = b[27+ns:]
		for _, s := range segs {
			cur = append(cur, b[:s]...)
			b = b[s:]
			if s < 255 {
				pkts = append(pkts, cur)
				cur = nil
			}
		}
	}
	head := pkts[0]
	o.channels = int(head[9])
	o.preSkip = int(binary.LittleEndian.Uint16(head[10:]))
	o.packets = pkts[2:]
	return o
}

// decodeAll decodes every packet and trims pre-skip and the end as the granule says.
func decodeAll(t testing.TB, o oggOpus) []float32 {
	t.Helper()
	d, err := NewDecoder(o.channels)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, MaxFrameSamples*o.channels)
	var out []float32
	for i, p := range o.packets {
		n, err := d.Decode(p, buf)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		out = append(out, buf[:n*o.channels]...)
	}
	out = out[o.preSkip*o.channels:]
	if keep := (o.granule - int64(o.preSkip)) * int64(o.channels); keep < int64(len(out)) {
		out = out[:keep]
	}
	return out
}
