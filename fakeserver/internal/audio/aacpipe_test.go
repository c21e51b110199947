package audio

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
	"go.uber.org/goleak"
)

// adtsBlocks returns an ADTS fixture's configuration and raw blocks, with the blocks at the
// given indexes garbled (an END element first: no channel element).
func adtsBlocks(t *testing.T, name string, garble ...int) (aacdec.Config, [][]byte) {
	t.Helper()
	r := aacdec.NewADTSReader(bytes.NewReader(readFixture(t, name)))
	var cfg aacdec.Config
	var blocks [][]byte
	for {
		h, b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		cfg = h.Config
		b = bytes.Clone(b)
		if slices.Contains(garble, len(blocks)) {
			b[0] = 0xe0
		}
		blocks = append(blocks, b)
	}
	return cfg, blocks
}

// readPipeline reads all of an aacPCM's samples in pieces of n.
func readPipeline(t *testing.T, p *aacPCM, n int) ([]float64, error) {
	t.Helper()
	var out []float64
	buf := make([]float64, n)
	for {
		k, err := p.read(buf)
		out = append(out, buf[:k]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestAACPipelineMatchesDecode holds the pipelined decode (parsing, and each channel's
// synthesis, on goroutines of their own) to aacdec.Decoder.Decode of the same blocks in order,
// sample for sample, for mono and stereo, with concealed blocks and with trimming.
func TestAACPipelineMatchesDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fixture string
		garble  []int
		trim    aacTrim
	}{
		{"mono", "tone_m44.aac", nil, aacTrim{keep: -1}},
		{"stereo", "step_s48.aac", nil, aacTrim{keep: -1}},
		{"stereo, concealed blocks", "step_s48.aac", []int{3, 8, 9, 40}, aacTrim{keep: -1}},
		{"stereo, trimmed", "step_s48.aac", nil, aacTrim{skip: 2112, keep: 30000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, blocks := adtsBlocks(t, tt.fixture, tt.garble...)
			d, err := aacdec.NewDecoder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var want []float64
			concealed := 0
			for _, b := range blocks {
				if want, err = d.Decode(want, b); errors.Is(err, aacdec.ErrCorrupt) {
					concealed++
				} else if err != nil {
					t.Fatal(err)
				}
			}
			ch := int64(cfg.Channels)
			want = want[min(int64(len(want)), tt.trim.skip*ch):]
			if tt.trim.keep >= 0 {
				want = want[:min(int64(len(want)), tt.trim.keep*ch)]
			}
			i := 0
			p, err := newAACPCM(cfg, tt.trim, func() ([]byte, error) {
				if i == len(blocks) {
					return nil, io.EOF
				}
				i++
				return blocks[i-1], nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readPipeline(t, p, 1000)
			p.close()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("the pipeline's %d samples differ from Decode's %d", len(got), len(want))
			}
			if tt.trim.keep < 0 && (p.blocks != int64(len(blocks)) || p.concealed != int64(concealed)) {
				t.Fatalf("%d blocks, %d concealed; want %d, %d", p.blocks, p.concealed, len(blocks), concealed)
			}
		})
	}
}

// TestAACPipelineStops checks that the pipeline's goroutines end when the reader stops early
// or the block source fails, and that the source's error comes back.
func TestAACPipelineStops(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg, blocks := adtsBlocks(t, "step_s48.aac")
	boom := errors.New("boom")
	for _, failAt := range []int{-1, 0, 5, 50} {
		i := 0
		p, err := newAACPCM(cfg, aacTrim{keep: -1}, func() ([]byte, error) {
			if i == failAt {
				return nil, boom
			}
			i = (i + 1) % len(blocks) // endless unless it fails
			return blocks[i], nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if failAt < 0 {
			if _, err := p.read(make([]float64, 100)); err != nil {
				t.Fatal(err)
			}
			p.close() // the reader gives up with blocks still coming
			continue
		}
		_, err = readPipeline(t, p, 4096)
		p.close()
		if !errors.Is(err, boom) {
			t.Fatalf("failing at block %d: got %v, want the source's error", failAt, err)
		}
	}
}
