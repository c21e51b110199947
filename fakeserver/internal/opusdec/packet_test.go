package opusdec

import (
	"errors"
	"os"
	"slices"
	"testing"
)

// vectorPackets returns the audio packets of a reference vector.
func vectorPackets(t testing.TB, name string) oggOpus {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors/" + name + ".opus")
	if err != nil {
		t.Fatal(err)
	}
	return parseOggOpus(t, b)
}

func decodeSeq(t *testing.T, channels int, pkts [][]byte) []float32 {
	t.Helper()
	d, err := NewDecoder(channels)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, MaxFrameSamples*channels)
	var out []float32
	for i, p := range pkts {
		n, err := d.Decode(p, buf)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		out = append(out, buf[:n*channels]...)
	}
	return out
}

func lenBytes(n int) []byte {
	if n < 252 {
		return []byte{byte(n)}
	}
	return []byte{byte(252 + n%4), byte((n - 252 - n%4) / 4)}
}

// TestPacketCodes repacks the frames of code 0 packets as code 1, 2 and 3 packets (CBR, VBR,
// padded) and checks that the decode is the same, sample for sample.
func TestPacketCodes(t *testing.T) {
	t.Parallel()
	o := vectorPackets(t, "ld20_s48c") // CBR: every frame the same size, as code 1 needs
	frames := make([][]byte, 0, len(o.packets))
	for _, p := range o.packets {
		if p[0]&3 != 0 {
			t.Fatalf("vector packet of code %d", p[0]&3)
		}
		frames = append(frames, p[1:])
	}
	toc := o.packets[0][0] &^ 3
	single := make([][]byte, len(frames))
	for i, f := range frames {
		single[i] = append([]byte{toc}, f...)
	}
	want := decodeSeq(t, o.channels, single)
	pad := func(n int) []byte {
		var b []byte
		for ; n >= 255; n -= 254 {
			b = append(b, 255)
		}
		return append(b, byte(n))
	}
	tests := []struct {
		name  string
		group int
		pack  func(fs [][]byte) []byte
	}{
		{"code 1", 2, func(fs [][]byte) []byte { return slices.Concat([]byte{toc | 1}, fs[0], fs[1]) }},
		{"code 2", 2, func(fs [][]byte) []byte {
			return slices.Concat([]byte{toc | 2}, lenBytes(len(fs[0])), fs[0], fs[1])
		}},
		{"code 3 CBR", 3, func(fs [][]byte) []byte { return slices.Concat([]byte{toc | 3, 3}, fs[0], fs[1], fs[2]) }},
		{"code 3 VBR padded", 3, func(fs [][]byte) []byte {
			return slices.Concat([]byte{toc | 3, 0xC0 | 3}, pad(300), lenBytes(len(fs[0])), lenBytes(len(fs[1])), fs[0], fs[1], fs[2], make([]byte, 300))
		}},
		{"code 3 CBR padded", 2, func(fs [][]byte) []byte {
			return slices.Concat([]byte{toc | 3, 0x40 | 2}, pad(7), fs[0], fs[1], make([]byte, 7))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := len(frames) / tt.group * tt.group
			var pkts [][]byte
			for i := 0; i < n; i += tt.group {
				pkts = append(pkts, tt.pack(frames[i:i+tt.group]))
			}
			for _, p := range pkts {
				if n, err := PacketSamples(p); n != tt.group*960 || err != nil {
					t.Fatalf("PacketSamples = %d, %v; want %d", n, err, tt.group*960)
				}
			}
			got := decodeSeq(t, o.channels, pkts)
			if !slices.Equal(got, want[:len(got)]) || len(got) != n*960*o.channels {
				t.Fatalf("repacked decode differs from the code 0 decode (%d samples, want %d)", len(got), n*960*o.channels)
			}
		})
	}
}

// TestBadPackets checks that broken framing and unsupported modes are refused with the
// package's errors, and that a refused packet leaves the decoder usable.
func TestBadPackets(t *testing.T) {
	t.Parallel()
	celt := byte(31 << 3) // CELT full band 20 ms, mono
	tests := []struct {
		name string
		pkt  []byte
		want error
	}{
		{"empty", nil, ErrInvalidPacket},
		{"code 1 odd", []byte{celt | 1, 1, 2, 3}, ErrInvalidPacket},
		{"code 2 length past end", []byte{celt | 2, 200, 1, 2}, ErrInvalidPacket},
		{"code 2 length cut", []byte{celt | 2, 253}, ErrInvalidPacket},
		{"code 3 no count", []byte{celt | 3}, ErrInvalidPacket},
		{"code 3 zero frames", []byte{celt | 3, 0}, ErrInvalidPacket},
		{"code 3 over 120 ms", []byte{celt | 3, 7, 1, 2, 3, 4, 5, 6, 7}, ErrInvalidPacket},
		{"code 3 CBR uneven", []byte{celt | 3, 2, 1, 2, 3}, ErrInvalidPacket},
		{"code 3 padding past end", []byte{celt | 3, 0x41, 200, 1, 2}, ErrInvalidPacket},
		{"code 3 padding cut", []byte{celt | 3, 0x41, 255}, ErrInvalidPacket},
		{"code 3 VBR lengths past end", []byte{celt | 3, 0x82, 100, 1, 2}, ErrInvalidPacket},
		{"frame over 1275 bytes", append([]byte{celt}, make([]byte, 1276)...), ErrInvalidPacket},
		{"SILK", []byte{0 << 3, 1, 2, 3}, ErrUnsupported},
		{"hybrid", []byte{12 << 3, 1, 2, 3}, ErrUnsupported},
		{"one-byte frame", []byte{celt, 9}, ErrUnsupported},
		{"empty frame", []byte{celt}, ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := NewDecoder(2)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]float32, 2*MaxFrameSamples)
			n, err := d.Decode(tt.pkt, buf)
			if !errors.Is(err, tt.want) || n != 0 {
				t.Fatalf("Decode = %d, %v; want 0 and an error wrapping %v", n, err, tt.want)
			}
			if CELTOnly(tt.pkt) {
				t.Error("CELTOnly accepts a packet Decode refuses")
			}
			if n, err := PacketSamples(tt.pkt); errors.Is(tt.want, ErrInvalidPacket) != errors.Is(err, ErrInvalidPacket) {
				t.Errorf("PacketSamples = %d, %v; want an error wrapping ErrInvalidPacket only when Decode's does", n, err)
			}
			good := []byte{celt, 0x80, 0x12, 0x34, 0x56}
			if _, err := d.Decode(good, buf); err != nil {
				t.Fatalf("decoder unusable after a refused packet: %v", err)
			}
		})
	}
	if _, err := NewDecoder(3); !errors.Is(err, ErrUnsupported) {
		t.Errorf("NewDecoder(3) = %v, want ErrUnsupported", err)
	}
	d, _ := NewDecoder(1)
	if _, err := d.Decode([]byte{celt | 1, 1, 2, 3, 4}, make([]float32, 960)); err == nil {
		t.Error("Decode into a buffer shorter than the packet's duration succeeded")
	}
}

// FuzzOpusDecoder feeds arbitrary packets to a decoder: it must never panic, never write
// past the samples it reports, and refuse only with the package's errors.
func FuzzOpusDecoder(f *testing.F) {
	for _, name := range []string{"ld20_s64", "ld2.5_m16", "ld60_s64", "ld20_s12"} {
		o := vectorPackets(f, name)
		for _, p := range o.packets[:3] {
			f.Add(byte(o.channels), p)
		}
	}
	f.Add(byte(2), []byte{31<<3 | 3, 0xC3, 255, 0, 1, 2})
	f.Fuzz(func(t *testing.T, ch byte, pkt []byte) {
		channels := int(ch%2) + 1
		d, err := NewDecoder(channels)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]float32, MaxFrameSamples*channels+1)
		const sentinel = float32(-12345)
		for range 2 { // twice, so the second decode starts from the first's state
			buf[len(buf)-1] = sentinel
			n, err := d.Decode(pkt, buf[:len(buf)-1])
			if err != nil {
				if !errors.Is(err, ErrInvalidPacket) && !errors.Is(err, ErrUnsupported) {
					t.Fatalf("error %v wraps neither sentinel", err)
				}
				if CELTOnly(pkt) && errors.Is(err, ErrUnsupported) {
					t.Fatalf("CELTOnly accepts a packet refused as unsupported: %v", err)
				}
				continue
			}
			if n <= 0 || n > MaxFrameSamples || buf[len(buf)-1] != sentinel {
				t.Fatalf("decoded %d samples", n)
			}
			if ps, err := PacketSamples(pkt); ps != n || err != nil {
				t.Fatalf("PacketSamples = %d, %v; Decode decoded %d", ps, err, n)
			}
		}
	})
}
