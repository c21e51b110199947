package audio

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
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

// TestOpusDecoderRouting shows the rule of newOpusDecoder: internal/opusdec decodes a stream
// whose every packet is CELT-only when the input is seekable; pion decodes the rest, so no
// stream mixes decoders. The first pass leaves the input where it was.
func TestOpusDecoderRouting(t *testing.T) {
	t.Parallel()
	celt := readFixture(t, "speech_s44_96.opus")
	tests := []struct {
		name string
		file []byte
		wrap func([]byte) io.Reader
		want bool
	}{
		{"CELT, in memory", celt, func(b []byte) io.Reader { return bytes.NewReader(b) }, true},
		{"CELT, not seekable", celt, func(b []byte) io.Reader { return onlyReader{bytes.NewReader(b)} }, false},
		{"CELT past 64 KiB", longOpus(t, celt, false), func(b []byte) io.Reader { return bytes.NewReader(b) }, true},
		{"CELT then one SILK packet late", longOpus(t, celt, true), func(b []byte) io.Reader { return bytes.NewReader(b) }, false},
		{"hybrid and CELT", readFixture(t, "speech_m48.opus"), func(b []byte) io.Reader { return bytes.NewReader(b) }, false},
		{"SILK", readFixture(t, "speech_m48_12.opus"), func(b []byte) io.Reader { return bytes.NewReader(b) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := testSource(t, tt.wrap(tt.file))
			got, err := opusStreamIsCELT(in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("opusStreamIsCELT = %v, want %v", got, tt.want)
			}
			rest, err := io.ReadAll(in)
			if err != nil || !bytes.Equal(rest, tt.file) {
				t.Errorf("after the first pass the input reads %d bytes (%v), want the file's %d", len(rest), err, len(tt.file))
			}
		})
	}
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
