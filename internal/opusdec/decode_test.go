package opusdec

import (
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
			t.Logf("SNR %.1f dB, max |diff| %.2g", snr, maxDiff)
			if snr < 120 || maxDiff > 1e-5 {
				t.Errorf("SNR %.1f dB, max |diff| %.2g; want over 120 dB and under 1e-5 (float rounding)", snr, maxDiff)
			}
		})
	}
}
