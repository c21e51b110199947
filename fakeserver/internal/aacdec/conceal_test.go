package aacdec

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// frames splits an ADTS fixture into its frames (headers included).
func frames(t *testing.T, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for len(data) > 0 {
		h, err := ParseADTSHeader(data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data[:h.FrameLength])
		data = data[h.FrameLength:]
	}
	return out
}

// TestCorruptFrameIsConcealed cuts one frame's data short, or garbles it: it decodes as
// silence with ErrCorrupt and the same number of samples, and the frames from the second after
// it decode exactly as in the intact stream. (A fixture without noise substitution: a concealed
// frame draws no noise, so the generator's later draws would differ.)
func TestCorruptFrameIsConcealed(t *testing.T) {
	t.Parallel()
	fs := frames(t, "testdata/s11_stereo_pns_off.aac") // noise would draw on the generator differently
	want, _ := decodeADTS(t, bytes.Join(fs, nil))
	h, _ := ParseADTSHeader(fs[0])
	for _, tc := range []struct {
		name  string
		frame int
		mend  func([]byte) []byte
		says  string
	}{
		{"cut short", 5, func(b []byte) []byte { return b[:len(b)/3] }, "past the frame's end"},
		{"no channel element", 8, func([]byte) []byte { return []byte{0xe0} }, "no channel element"},
		{"max_sfb beyond the band table", 10, func([]byte) []byte {
			// A channel pair with a common long window of 63 bands, where 11.025 kHz has 43.
			return new(bitWriter).put(elemCPE, 3).put(0, 4).put(1, 1).put(0, 1).put(onlyLong, 2).put(0, 1).put(63, 6).buf
		}, "max_sfb 63 of 43 bands"},
		{"a section past max_sfb", 14, func([]byte) []byte {
			// An independent long window of 2 bands whose one section claims 5.
			return new(bitWriter).put(elemCPE, 3).put(0, 4).put(0, 1).put(100, 8).put(0, 1).put(onlyLong, 2).put(0, 1).
				put(2, 6).put(0, 1).put(1, 4).put(5, 5).buf
		}, "section past max_sfb"},
		{"reserved codebook", 12, func([]byte) []byte {
			return new(bitWriter).put(elemCPE, 3).put(0, 4).put(0, 1).put(100, 8).put(0, 1).put(onlyLong, 2).put(0, 1).
				put(2, 6).put(0, 1).put(12, 4).put(2, 5).buf
		}, "reserved codebook 12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := NewDecoder(h.Config)
			if err != nil {
				t.Fatal(err)
			}
			var pcm []float64
			for i, f := range fs {
				block := f[h.HeaderLength:]
				if i == tc.frame {
					block = tc.mend(bytes.Clone(block))
				}
				pcm, err = d.Decode(pcm, block)
				if i == tc.frame && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.says)) {
					t.Fatalf("frame %d: %v, want ErrCorrupt saying %q", i, err, tc.says)
				}
				if i != tc.frame && err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
			}
			if len(pcm) != len(want) {
				t.Fatalf("%d samples, want %d", len(pcm), len(want))
			}
			from := (tc.frame + 2) * FrameSamples * 2
			for i := from; i < len(want); i++ {
				if math.Abs(pcm[i]-want[i]) > 1e-12 {
					t.Fatalf("sample %d after the concealed frame: %g, want %g", i, pcm[i], want[i])
				}
			}
			if d.Stats().Corrupt != 1 {
				t.Fatalf("%d frames counted corrupt", d.Stats().Corrupt)
			}
		})
	}
}

// TestADTSResync loses sync twice midway (garbage between frames, a frame cut short by the
// next) and requires the reader to skip exactly the bad bytes and keep every whole frame.
func TestADTSResync(t *testing.T) {
	t.Parallel()
	fs := frames(t, "testdata/s24_stereo_low.aac")
	garbage := []byte{0xff, 0xf1, 0x00, 0x12, 0xff, 0x00, 0x55}
	var stream []byte
	kept := 0
	for i, f := range fs {
		switch i {
		case 5:
			stream = append(stream, garbage...)
		case 9:
			stream = append(stream, f[:len(f)/2]...) // cut: the next frame starts inside it
			continue
		}
		stream = append(stream, f...)
		kept++
	}
	a := NewADTSReader(bytes.NewReader(stream))
	n := 0
	for {
		_, _, err := a.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != kept || a.Skipped() != int64(len(garbage)+len(fs[9])/2) {
		t.Fatalf("%d frames, %d bytes skipped; want %d and %d", n, a.Skipped(), kept, len(garbage)+len(fs[9])/2)
	}
}

// TestSBRInTheStreamIsRefused finds HE-AAC signalled only implicitly, by SBR data in a fill
// element after the channel element, and refuses it naming the profile, without output.
func TestSBRInTheStreamIsRefused(t *testing.T) {
	t.Parallel()
	fs := frames(t, "testdata/s8_mono.aac")
	h, _ := ParseADTSHeader(fs[0])
	d, err := NewDecoder(h.Config)
	if err != nil {
		t.Fatal(err)
	}
	// A fill element of 2 bytes whose extension type is SBR data, then END.
	block := new(bitWriter).put(elemFIL, 3).put(2, 4).put(extSBRData, 4).put(0, 12).put(elemEND, 3).buf
	out, err := d.Decode(nil, block)
	if !errors.Is(err, ErrUnsupported) || len(out) != 0 || !bytes.Contains([]byte(err.Error()), []byte("HE-AAC")) {
		t.Fatalf("%d samples, %v; want ErrUnsupported naming HE-AAC", len(out), err)
	}
}

// withCRC rewrites an ADTS frame as a protected one: protection_absent cleared, the frame two
// bytes longer, a CRC word (not checked by decoders that skip it, as this one does) after the
// header.
func withCRC(f []byte) []byte {
	n := len(f) + 2
	h := bytes.Clone(f[:ADTSHeaderSize])
	h[1] &^= 1
	h[3] = h[3]&^3 | byte(n>>11)
	h[4] = byte(n >> 3)
	h[5] = h[5]&0x1f | byte(n&7)<<5
	return append(append(h, 0xbe, 0xef), f[ADTSHeaderSize:]...)
}

// TestADTSWithCRC: frames that carry a CRC word decode to the same samples as without it.
func TestADTSWithCRC(t *testing.T) {
	t.Parallel()
	fs := frames(t, "testdata/s24_stereo_low.aac")
	var plain, protected []byte
	for _, f := range fs {
		plain = append(plain, f...)
		protected = append(protected, withCRC(f)...)
	}
	h, err := ParseADTSHeader(protected)
	if err != nil || h.HeaderLength != 9 || h.FrameLength != len(fs[0])+2 {
		t.Fatalf("%+v %v", h, err)
	}
	want, _ := decodeADTS(t, plain)
	got, _ := decodeADTS(t, protected)
	if !slices.Equal(got, want) {
		t.Fatal("the protected stream decodes differently")
	}
}

// TestADTSSeveralBlocksRefused: a stream whose frames hold more than one raw data block is
// refused by name, before any output.
func TestADTSSeveralBlocksRefused(t *testing.T) {
	t.Parallel()
	fs := frames(t, "testdata/s8_mono.aac")
	stream := bytes.Join(fs, nil)
	stream[6] |= 1 // number_of_raw_data_blocks_in_frame: 2
	_, _, err := NewADTSReader(bytes.NewReader(stream)).Next()
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "2 raw data blocks") {
		t.Fatalf("%v, want ErrUnsupported naming 2 raw data blocks", err)
	}
}
