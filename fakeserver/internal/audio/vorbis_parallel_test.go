package audio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// vorbisFixtures returns the Ogg Vorbis files of this package and of internal/vorbisdec by
// name, and speech_s44.ogg with its granule positions and flags edited as in
// TestVorbisGranules, and cut short in the middle of a page.
func vorbisFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, glob := range []string{"testdata/formats/*.ogg", "../vorbisdec/testdata/*.ogg"} {
		names, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Base(name)] = b
		}
	}
	if len(files) < 10 {
		t.Fatalf("only %d Vorbis files", len(files))
	}
	orig := files["speech_s44.ogg"]
	pages := oggPageStarts(t, orig)
	firstAudio := pages[2] // the identification, then the comment and setup headers
	last := pages[len(pages)-1]
	for name, edit := range map[string]func(b []byte){
		"start before zero": func(b []byte) { addGranule(b[firstAudio:], -3000) },
		"start after zero":  func(b []byte) { addGranule(b[firstAudio:], 1000) },
		"end before last":   func(b []byte) { addGranule(b[last:], -5000) },
		"no end of stream":  func(b []byte) { b[last+5] &^= 4 },
	} {
		b := bytes.Clone(orig)
		edit(b)
		files[name] = b
	}
	files["cut short"] = orig[:len(orig)*2/3] // inside the last page (the test requires samples)
	// A packet in the middle that is not an audio packet (its first bit set): the samples before
	// it, then the decoder's error.
	corrupt := bytes.Clone(orig)
	for _, at := range pages[3 : len(pages)-1] {
		if corrupt[at+5]&1 == 0 { // the page starts with a packet, not a continued one
			corrupt[at+27+int(corrupt[at+26])] |= 1
			files["not an audio packet"] = corrupt
			break
		}
	}
	if files["not an audio packet"] == nil {
		t.Fatal("speech_s44.ogg has no middle page that starts with a packet")
	}
	return files
}

// decodeVorbisAll decodes an Ogg Vorbis file to interleaved samples, sequentially (workers 0)
// or in segments of segPackets packets, and returns them with the error that ended the decode.
func decodeVorbisAll(t *testing.T, b []byte, workers, segPackets int) ([]float64, error) {
	t.Helper()
	vs, _, err := openVorbis(&oggPackets{r: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	read := vs.read
	if workers > 0 {
		rd, stop := vorbisSegments(vs, workers, segPackets)
		defer func() { _ = stop() }() // its error has reached read, in order
		read = rd.read
	}
	var out []float64
	buf := make([]float64, 4096)
	for {
		n, err := read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestVorbisSegmentsMatchSequential: decoded in parallel segments of every size from one
// packet up, every file gives bit for bit the samples of one sequential decoder, trimmed
// alike at both ends, and a cut-short file gives the same samples before the same error.
func TestVorbisSegmentsMatchSequential(t *testing.T) {
	t.Parallel()
	for name, b := range vorbisFixtures(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			seq, seqErr := decodeVorbisAll(t, b, 0, 0)
			if len(seq) == 0 {
				t.Fatal("no samples")
			}
			if wantErr := name == "cut short" || name == "not an audio packet"; wantErr != (seqErr != nil) {
				t.Fatalf("sequential decode: error %v", seqErr)
			}
			configs := []struct{ workers, seg int }{{2, 1}, {3, 7}, {3, 2}, {2, 128}}
			if testing.Short() {
				// One-packet segments put a boundary at every packet; seven on three workers
				// reorders segments. The full run adds two more shapes.
				configs = configs[:2]
			}
			for _, tc := range configs {
				par, parErr := decodeVorbisAll(t, b, tc.workers, tc.seg)
				if (parErr == nil) != (seqErr == nil) || parErr != nil && parErr.Error() != seqErr.Error() {
					t.Errorf("%d workers, segments of %d packets: error %v, sequential %v", tc.workers, tc.seg, parErr, seqErr)
				}
				if len(par) != len(seq) {
					t.Errorf("%d workers, segments of %d packets: %d samples, sequential %d", tc.workers, tc.seg, len(par), len(seq))
					continue
				}
				for i := range seq {
					if math.Float64bits(par[i]) != math.Float64bits(seq[i]) {
						t.Errorf("%d workers, segments of %d packets: sample %d is %v, sequential %v", tc.workers, tc.seg, i, par[i], seq[i])
						break
					}
				}
			}
		})
	}
}

// measureVorbisFixture measures an Ogg Vorbis file as Measure does, sequentially or in
// segments of 5 packets on 2 workers, with the meter measuring channels on two goroutines or
// on one.
func measureVorbisFixture(t *testing.T, data []byte, segments, split bool) MeterResult {
	t.Helper()
	cr := &countingReader{r: bytes.NewReader(data)}
	in := &source{r: bufio.NewReaderSize(cr, sniffSize), counter: cr, ctx: context.Background(), split: split}
	vs, _, err := openVorbis(&oggPackets{r: in})
	if err != nil {
		t.Fatal(err)
	}
	var res MeterResult
	if segments {
		res, err = measureVorbisSegments(in, vs, options{workers: 2, segFrames: 5})
	} else {
		res, err = measurePCM(in, vs.dec.Info().SampleRate, vs.ch, vorbisWeights(vs.ch), vs.read)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestVorbisMeasureSegments: the meter measures the same loudness and true peak, bit for bit,
// whether the samples come from parallel segments or one sequential decoder.
func TestVorbisMeasureSegments(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"speech_s44.ogg", "tagged.ogg", "tone_s48.ogg"} {
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s split %v", name, split), func(t *testing.T) {
				t.Parallel()
				data := readFixture(t, name)
				seq := measureVorbisFixture(t, data, false, split)
				par := measureVorbisFixture(t, data, true, split)
				if par.Frames != seq.Frames || par.IntegratedLUFS != seq.IntegratedLUFS || par.TruePeakDB != seq.TruePeakDB ||
					par.SamplePeakDB != seq.SamplePeakDB || par.LoudnessRange != seq.LoudnessRange {
					t.Errorf("segments: %+v, sequential %+v", par, seq)
				}
			})
		}
	}
}
