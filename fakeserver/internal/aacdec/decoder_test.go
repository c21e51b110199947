package aacdec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/blockref"
)

// decodeADTS decodes every frame of an ADTS file, requiring each to decode without error.
func decodeADTS(t testing.TB, data []byte) ([]float64, *Decoder) {
	t.Helper()
	a := NewADTSReader(bytes.NewReader(data))
	var d *Decoder
	var pcm []float64
	for {
		h, block, err := a.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			if d, err = NewDecoder(h.Config); err != nil {
				t.Fatal(err)
			}
		}
		if pcm, err = d.Decode(pcm, block); err != nil {
			t.Fatalf("frame %d: %v", len(pcm)/d.cfg.Channels/FrameSamples, err)
		}
	}
	if a.Skipped() != 0 {
		t.Fatalf("%d bytes skipped", a.Skipped())
	}
	return pcm, d
}

// TestMatchesFFmpeg decodes every ADTS fixture (every rate from 7.35 to 96 kHz, mono and
// stereo, the three coding algorithms, each tool on and off) and holds every block's RMS and
// peak to those of ffmpeg's float decoder within 2·10⁻⁵ of full scale. Noise substitution
// included: the decoder draws its noise from ffmpeg's generator, in ffmpeg's order. Each file
// must show the tools its name says are on or off.
func TestMatchesFFmpeg(t *testing.T) {
	t.Parallel()
	refs, err := blockref.Load("testdata/ffmpeg.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/*.aac")
	if len(files) < 12 || len(files) != len(refs) {
		t.Fatalf("%d fixtures, %d references: run testdata/gen.sh", len(files), len(refs))
	}
	var total Stats
	rates := map[int]bool{}
	for _, name := range files {
		base := filepath.Base(name)
		ref, ok := refs[base]
		if !ok {
			t.Fatalf("no reference for %s: run testdata/gen.sh", name)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pcm, d := decodeADTS(t, data)
		channels := d.Config().Channels
		rates[d.Config().SampleRate] = true
		if channels != ref.Channels || len(pcm)/channels != ref.Samples {
			t.Fatalf("%s: %d channels × %d samples, ffmpeg %d × %d", base, channels, len(pcm)/channels, ref.Channels, ref.Samples)
		}
		if err := blockref.Compare(pcm, channels, ref, 2e-5); err != nil {
			t.Fatalf("%s against ffmpeg: %v", base, err)
		}
		s := d.Stats()
		for _, off := range []struct {
			tag   string
			count int
		}{{"_is_off", s.Intensity}, {"_pns_off", s.Noise}, {"_tns_off", s.TNSFilters}, {"_ms_off", s.MidSide}} {
			if strings.Contains(base, off.tag) && off.count != 0 {
				t.Errorf("%s: the tool switched off was used %d times", base, off.count)
			}
		}
		t.Logf("%s: %+v", base, s)
		total.add(s)
	}
	if len(rates) != len(sampleRates) {
		t.Errorf("the fixtures cover %d of %d sampling rates", len(rates), len(sampleRates))
	}
	for _, tool := range []struct {
		name  string
		count int
	}{
		{"long start windows", total.Windows[longStart]}, {"eight short windows", total.Windows[eightShort]},
		{"long stop windows", total.Windows[longStop]}, {"sine windows", total.Shapes[0]}, {"KBD windows", total.Shapes[1]},
		{"mid/side bands", total.MidSide}, {"intensity bands", total.Intensity}, {"noise bands", total.Noise},
		{"TNS filters", total.TNSFilters}, {"escapes", total.Escapes},
		{"common windows", total.CommonWindow}, {"independent windows", total.IndependentWindows},
	} {
		if tool.count == 0 {
			t.Errorf("no fixture has %s", tool.name)
		}
	}
}

// add sums the counts of several decoders.
func (s *Stats) add(o Stats) {
	s.Frames += o.Frames
	s.Corrupt += o.Corrupt
	for i := range s.Windows {
		s.Windows[i] += o.Windows[i]
	}
	for i := range s.Shapes {
		s.Shapes[i] += o.Shapes[i]
	}
	s.MidSide += o.MidSide
	s.Intensity += o.Intensity
	s.Noise += o.Noise
	s.Pulses += o.Pulses
	s.TNSFilters += o.TNSFilters
	s.Escapes += o.Escapes
	s.CommonWindow += o.CommonWindow
	s.IndependentWindows += o.IndependentWindows
}

// TestSpectralCodewordsFitOnePeek checks what decodeSpectral relies on: a spectral codeword
// and its sign bits (one per value of an unsigned codebook) fit in the 32 bits of one peek.
func TestSpectralCodewordsFitOnePeek(t *testing.T) {
	t.Parallel()
	for i, codes := range spectralCodes {
		for sym, c := range codes {
			if n := int(c.len) + codebookShapes[i].dim; n > 32 {
				t.Fatalf("codebook %d symbol %d: %d bits of codeword and signs", i+1, sym, n)
			}
		}
	}
}
