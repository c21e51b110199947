package audio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"testing"
)

// onlyReader hides every method of a reader but Read (a network body, say).
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// testSource builds the source Measure builds over r.
func testSource(t *testing.T, r io.Reader) *source {
	t.Helper()
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, sniffSize)
	if _, err := br.Peek(sniffSize); err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		t.Fatal(err)
	}
	return &source{r: br, counter: cr, ctx: context.Background()}
}

// longOpus returns an Ogg Opus stream made longer than the 64 KiB Measure sniffs (its audio
// pages repeated, end-of-stream flags cleared but the last); with lateSILK, the last page's
// first packet is turned into a SILK packet (its TOC byte's configuration set to 0).
func longOpus(t *testing.T, file []byte, lateSILK bool) []byte {
	t.Helper()
	pages := bytes.Split(file, []byte("OggS"))[1:] // 0: OpusHead, 1: OpusTags
	b := []byte("OggS")
	b = append(b, bytes.Join(pages[:2], []byte("OggS"))...)
	for len(b) < 2*sniffSize {
		for _, p := range pages[2:] {
			at := len(b)
			b = append(b, "OggS"...)
			b = append(b, p...)
			b[at+5] &^= 4 // not the end of the stream
		}
	}
	last := bytes.LastIndex(b, []byte("OggS"))
	b[last+5] |= 4
	if lateSILK {
		nseg := int(b[last+26])
		b[last+27+nseg] &= 7
	}
	return b
}

// TestOpusDecoderRouting shows the rule of measureOpus: internal/opusdec decodes a stream
// whose every packet is CELT-only when the input is seekable; pion decodes the rest, from the
// stream's start when opusdec met a packet it does not decode, so no stream mixes decoders.
// Each route's figures are compared bit for bit with those of a decode forced down one route
// (measureOpusWith); where opusdec is expected, pion's figures must differ, or the comparison
// could not tell the routes apart. The Size shows that going back does not count bytes twice.
func TestOpusDecoderRouting(t *testing.T) {
	t.Parallel()
	celt := readFixture(t, "speech_s44_96.opus")
	inMemory := func(b []byte) io.Reader { return bytes.NewReader(b) }
	readOnce := func(b []byte) io.Reader { return onlyReader{bytes.NewReader(b)} }
	type opusRoute struct {
		name    string
		file    []byte
		wrap    func([]byte) io.Reader
		opusdec bool
	}
	long, lateSILK := longOpus(t, celt, false), longOpus(t, celt, true)
	tests := []opusRoute{
		{"CELT, in memory", celt, inMemory, true},
		{"CELT, read once", celt, readOnce, false},
		{"CELT past 64 KiB", long, inMemory, true},
		{"CELT then one SILK packet late", lateSILK, inMemory, false},
		{"CELT then one SILK packet late, read once", lateSILK, readOnce, false},
		{"hybrid and CELT", readFixture(t, "speech_m48.opus"), inMemory, false},
		{"SILK", readFixture(t, "speech_m48_12.opus"), inMemory, false},
	}
	workerCounts := []int{1, 2}
	if testing.Short() {
		// The segmented path, and one case per route: the full run adds the serial path, a
		// stream past the first read buffer, and the late SILK packet read once.
		workerCounts = []int{2}
		tests = slices.DeleteFunc(tests, func(tt opusRoute) bool {
			return tt.name == "CELT past 64 KiB" || tt.name == "CELT then one SILK packet late, read once"
		})
	}
	for _, tt := range tests {
		for _, workers := range workerCounts {
			t.Run(fmt.Sprintf("%s, %d workers", tt.name, workers), func(t *testing.T) {
				t.Parallel()
				forced := func(ours bool) Measurement {
					t.Helper()
					in := testSource(t, bytes.NewReader(tt.file))
					in.spare = workers == 2
					m, err := measureOpusWith(in, options{workers: workers}, ours)
					if err != nil {
						t.Fatalf("forced down one route (opusdec %v): %v", ours, err)
					}
					return m
				}
				got, err := Measure(tt.wrap(tt.file), WithWorkers(workers))
				if err != nil {
					t.Fatal(err)
				}
				if got.Size != int64(len(tt.file)) {
					t.Errorf("Size %d, want the file's %d bytes", got.Size, len(tt.file))
				}
				pion := forced(false)
				want, other := pion, "opusdec"
				if tt.opusdec {
					want, other = forced(true), "pion"
					if sameFigures(want, pion) {
						t.Fatal("opusdec and pion give the same figures here, so they cannot show the route")
					}
				}
				if !sameFigures(got, want) {
					t.Errorf("figures %+v, want %+v (%s's figures: the wrong decoder)", figures(got), figures(want), other)
				}
			})
		}
	}
}

// TestOpusMalformedAfterFallback shows that a stream opusdec gives up on and pion cannot read
// either fails with ErrMalformed from pion's pass, not with the internal fallback signal.
func TestOpusMalformedAfterFallback(t *testing.T) {
	t.Parallel()
	b := longOpus(t, readFixture(t, "speech_s44_96.opus"), true)
	b = b[:len(b)-10] // the last page, holding the SILK packet, cut short
	for _, workers := range []int{1, 2} {
		_, err := Measure(bytes.NewReader(b), WithWorkers(workers))
		if !errors.Is(err, ErrMalformed) || errors.Is(err, errOpusNotCELT) {
			t.Errorf("%d workers: %v, want ErrMalformed", workers, err)
		}
	}
}

// figures are the parts of a Measurement that tell two decoders apart.
func figures(m Measurement) [6]float64 {
	return [6]float64{float64(m.Frames), float64(m.Size), m.IntegratedLUFS, m.LoudnessRange, m.SamplePeakDB, m.TruePeakDB}
}

// sameFigures compares figures bit for bit.
func sameFigures(a, b Measurement) bool {
	fa, fb := figures(a), figures(b)
	for i := range fa {
		if math.Float64bits(fa[i]) != math.Float64bits(fb[i]) {
			return false
		}
	}
	return true
}

// TestOpusDecodersAgree measures one CELT file through both routes: opusdec (in memory) and
// pion (not seekable) give the same size and duration and agree on loudness and true peak
// (both agree with libopus; they differ by about 1e-5 dB here).
func TestOpusDecodersAgree(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"speech_s44_96.opus", "step_s48.opus"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := readFixture(t, name)
			ours, err := MeasureFile(bytes.NewReader(b), name)
			if err != nil {
				t.Fatal(err)
			}
			pion, err := MeasureFile(onlyReader{bytes.NewReader(b)}, name)
			if err != nil {
				t.Fatal(err)
			}
			if ours.Frames != pion.Frames || ours.Size != pion.Size || ours.Channels != pion.Channels {
				t.Errorf("opusdec %d frames %d bytes %d ch, pion %d frames %d bytes %d ch",
					ours.Frames, ours.Size, ours.Channels, pion.Frames, pion.Size, pion.Channels)
			}
			if d := ours.IntegratedLUFS - pion.IntegratedLUFS; math.Abs(d) > 0.001 {
				t.Errorf("integrated %.3f LUFS with opusdec, %.3f with pion", ours.IntegratedLUFS, pion.IntegratedLUFS)
			}
			if d := ours.TruePeakDB - pion.TruePeakDB; math.Abs(d) > 0.001 {
				t.Errorf("true peak %.3f dB with opusdec, %.3f with pion", ours.TruePeakDB, pion.TruePeakDB)
			}
			t.Logf("opusdec I %.3f TP %.3f; pion I %.3f TP %.3f", ours.IntegratedLUFS, ours.TruePeakDB, pion.IntegratedLUFS, pion.TruePeakDB)
		})
	}
}
