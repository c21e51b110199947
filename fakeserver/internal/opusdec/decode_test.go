package opusdec

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refStride is the sample stride of the stored references (testdata/gen.sh).
const refStride = 32

// TestAgreesWithLibopus decodes every vector of testdata/vectors and compares the samples
// with libopus's float decode, kept at every 32nd interleaved sample.
func TestAgreesWithLibopus(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("testdata/vectors/*.opus")
	if err != nil || len(names) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	for _, name := range names {
		base := strings.TrimSuffix(filepath.Base(name), ".opus")
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := os.ReadFile(strings.TrimSuffix(name, ".opus") + ".ref")
			if err != nil {
				t.Fatal(err)
			}
			got := decodeAll(t, parseOggOpus(t, b))
			if want := (len(got) + refStride - 1) / refStride; want != len(rb)/4 {
				t.Fatalf("decoded %d samples, so %d at stride %d; the reference has %d", len(got), want, refStride, len(rb)/4)
			}
			var se, sn, maxDiff float64
			for i := range len(rb) / 4 {
				ref := float64(math.Float32frombits(binary.LittleEndian.Uint32(rb[4*i:])))
				d := float64(got[i*refStride]) - ref
				se += d * d
				sn += ref * ref
				maxDiff = max(maxDiff, math.Abs(d))
			}
			snr := 10 * math.Log10(sn/se)
			t.Logf("%s: SNR %.1f dB, max |diff| %.2g", base, snr, maxDiff)
			if snr < 120 || maxDiff > 1e-5 {
				t.Errorf("SNR %.1f dB, max |diff| %.2g; want over 120 dB and under 1e-5 (float rounding)", snr, maxDiff)
			}
		})
	}
}

// TestOutputChannelsDifferFromStream decodes a mono stream to two channels and a stereo
// stream to one. The layers after the band energies are linear and the same for every
// channel, so the first must give the mono decode in both channels exactly, and the second
// the mean of the stereo decode's channels within float rounding.
func TestOutputChannelsDifferFromStream(t *testing.T) {
	t.Parallel()
	mono := vectorPackets(t, "ld10_m24")
	want := decodeSeq(t, 1, mono.packets)
	got := decodeSeq(t, 2, mono.packets)
	if len(got) != 2*len(want) {
		t.Fatalf("%d samples from two channels, %d from one", len(got), len(want))
	}
	for i, v := range want {
		if got[2*i] != v || got[2*i+1] != v {
			t.Fatalf("sample %d: %v/%v in stereo, %v in mono", i, got[2*i], got[2*i+1], v)
		}
	}
	st := vectorPackets(t, "au20_s96c")
	both := decodeSeq(t, 2, st.packets)
	down := decodeSeq(t, 1, st.packets)
	if len(both) != 2*len(down) {
		t.Fatalf("%d samples from two channels, %d from one", len(both), len(down))
	}
	var maxDiff float64
	for i, v := range down {
		maxDiff = max(maxDiff, math.Abs(float64(v)-0.5*float64(both[2*i]+both[2*i+1])))
	}
	if maxDiff > 1e-5 {
		t.Errorf("downmix differs from the mean of the channels by up to %g", maxDiff)
	}
	t.Logf("downmix vs mean of channels: max |diff| %.2g", maxDiff)
}

// TestSilenceFlag decodes frames whose first symbol is CELT's silence flag (all 0xFF bytes
// make the range decoder's value 0, below the flag's 1/32768 share): the rest of the frame
// is skipped, the band energies drop to the floor and the output is the pre-emphasis
// filter's decay of what came before, so a fresh decoder gives (near) zeros.
func TestSilenceFlag(t *testing.T) {
	t.Parallel()
	d, err := NewDecoder(2)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 2*MaxFrameSamples)
	for _, size := range []int{2, 3, 40} {
		pkt := append([]byte{31<<3 | 4}, bytes.Repeat([]byte{0xFF}, size)...)
		var dec rangeDecoder
		dec.init(pkt[1:])
		if !dec.bitLogp(15) {
			t.Fatalf("%d bytes of 0xFF: the silence flag reads 0", size)
		}
		n, err := d.Decode(pkt, buf)
		if err != nil || n != 960 {
			t.Fatalf("Decode = %d, %v", n, err)
		}
		for i, v := range buf[:2*n] {
			if math.Abs(float64(v)) > 1e-20 {
				t.Fatalf("sample %d of a silent frame: %g", i, v)
			}
		}
		for i, e := range d.celt.oldBandE {
			if e != -28 {
				t.Fatalf("band energy %d after silence: %v, want -28", i, e)
			}
		}
	}
}
