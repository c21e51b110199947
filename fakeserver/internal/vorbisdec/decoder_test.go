package vorbisdec

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fixture is one case of testdata/cases.txt (written by testdata/gen.sh).
type fixture struct {
	name     string
	rate, ch int
	quality  string
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			t.Fatalf("bad line %q", sc.Text())
		}
		rate, _ := strconv.Atoi(f[1])
		ch, _ := strconv.Atoi(f[2])
		out = append(out, fixture{name: f[0], rate: rate, ch: ch, quality: f[3]})
	}
	if len(out) < 10 {
		t.Fatalf("%d fixtures", len(out))
	}
	return out
}

// decodeOgg decodes every audio packet of an Ogg Vorbis file, returning planar samples and
// how many of them precede the last page's granule position (the end an Ogg reader cuts to).
func decodeOgg(t testing.TB, b []byte) (Info, [][]float32, int) {
	t.Helper()
	pk := oggPacketsOf(t, b)
	if len(pk) < 3 {
		t.Fatalf("%d packets", len(pk))
	}
	info, err := ParseIdentification(pk[0].data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseComments(pk[1].data); err != nil {
		t.Fatal(err)
	}
	d, err := NewDecoder(info, pk[2].data)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, info.Channels)
	end := -1
	for i, p := range pk[3:] {
		got, err := d.Decode(p.data)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		for c := range out {
			if len(got[c]) != len(got[0]) {
				t.Fatalf("packet %d: channels of %d and %d samples", i, len(got[c]), len(got[0]))
			}
			out[c] = append(out[c], got[c]...)
		}
		if p.eos && p.last {
			end = int(min(p.granule, int64(len(out[0]))))
		}
	}
	if end < 0 {
		t.Fatal("no end-of-stream page")
	}
	return info, out, end
}

// ffmpegOrder maps ffmpeg's output channel to the Vorbis channel it carries (ffmpeg reorders
// 5.1 from L C R Ls Rs LFE to L R C LFE Ls Rs).
func ffmpegOrder(ch int) []int {
	if ch == 6 {
		return []int{0, 2, 1, 5, 3, 4}
	}
	o := make([]int, ch)
	for i := range o {
		o[i] = i
	}
	return o
}

func readS24(t testing.TB, name string) []float64 {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(raw)/3)
	for i := range out {
		v := int32(uint32(raw[3*i])<<8|uint32(raw[3*i+1])<<16|uint32(raw[3*i+2])<<24) >> 8
		out[i] = float64(v) / (1 << 23)
	}
	return out
}

// TestDecodeMatchesFFmpeg decodes every fixture and compares it with ffmpeg's decode (rounded to
// 24 bits): as many samples as the granule position of the last page says, an SNR of at least
// 105 dB per case and no sample more than 2^-20 away. Vorbis decoding is exact up to float
// rounding; the 24-bit reference alone (its step is 2^-23) bounds the SNR at 110 to 130 dB
// for these signals.
func TestDecodeMatchesFFmpeg(t *testing.T) {
	t.Parallel()
	for _, fx := range loadFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", fx.name+".ogg"))
			if err != nil {
				t.Fatal(err)
			}
			info, got, end := decodeOgg(t, b)
			if info.Channels != fx.ch || info.SampleRate != fx.rate {
				t.Fatalf("%d channels at %d Hz, want %d at %d", info.Channels, info.SampleRate, fx.ch, fx.rate)
			}
			ref := readS24(t, filepath.Join("testdata", fx.name+".s24.gz"))
			if n := len(ref) / fx.ch; n != end {
				t.Fatalf("ffmpeg decodes %d samples per channel; we decode %d, cut to %d", n, len(got[0]), end)
			}
			order := ffmpegOrder(fx.ch)
			var sig, noise, maxDiff float64
			for i, r := range ref {
				g := float64(got[order[i%fx.ch]][i/fx.ch])
				d := g - r
				sig += r * r
				noise += d * d
				maxDiff = max(maxDiff, math.Abs(d))
			}
			snr := 10 * math.Log10(sig/noise)
			t.Logf("q %s, %d ch, %d Hz: SNR %.1f dB, max |diff| %.2g", fx.quality, fx.ch, fx.rate, snr, maxDiff)
			if snr < 105 || maxDiff > 1.0/(1<<20) {
				t.Errorf("SNR %.1f dB (want at least 105), max |diff| %.2g (want at most 2^-20)", snr, maxDiff)
			}
		})
	}
}
