package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
	"github.com/podqa/podqa-go/fakeserver/internal/blockref"
)

// TestMP4HostileTables measures M4A files whose tables lie: a clear error or a measurement of
// what is there, never a panic, a hang or memory that follows the lie.
func TestMP4HostileTables(t *testing.T) {
	t.Parallel()
	fs := readFixture(t, "speech_m48_fs.m4a") // moov first
	patch := func(box string, at int, v uint32) []byte {
		b := bytes.Clone(fs)
		i := bytes.Index(b, []byte(box))
		binary.BigEndian.PutUint32(b[i+4+at:], v)
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want error  // nil: measured
		says string // in the error
	}{
		{"stsz claims billions of samples", patch("stsz", 8, 0x7fffffff), ErrMalformed, "claims"},
		{"stsz of billions of fixed-size samples", func() []byte {
			b := patch("stsz", 4, 200)
			binary.BigEndian.PutUint32(b[bytes.Index(b, []byte("stsz"))+12:], 0xfffffff0)
			return b
		}(), ErrMalformed, "none of the"},
		{"stco claims billions of chunks", patch("stco", 4, 0x7fffffff), ErrMalformed, "chunk offset"},
		{"stsc claims billions of runs", patch("stsc", 4, 0x7fffffff), ErrMalformed, "sample-to-chunk"},
		{"esds says stereo for mono frames", bytes.Replace(fs, []byte{0x11, 0x88, 0x56, 0xe5}, []byte{0x11, 0x90, 0x56, 0xe5}, 1), ErrMalformed, "none of the"},
		{"esds says 5.1", bytes.Replace(fs, []byte{0x11, 0x88, 0x56, 0xe5}, []byte{0x11, 0xb0, 0x56, 0xe5}, 1), ErrUnsupportedCodec, "channel configuration 6"},
		{"cut in the media data", fs[:len(fs)*2/3], nil, ""},
		{"cut in moov", fs[:600], ErrMalformed, "moov"},
		{"fragmented", bytes.Replace(fs, []byte("udta"), []byte("mvex"), 1), ErrUnsupportedCodec, "fragmented"},
		{"no samples", patch("stsz", 8, 0), ErrMalformed, "without samples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := MeasureFile(bytes.NewReader(tc.in), "x.m4a")
			if tc.want == nil {
				if err != nil || m.Frames == 0 {
					t.Fatalf("%d frames, %v; want a measurement of what is there", m.Frames, err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v, want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
}

// TestADTSCorruptFramesConcealed garbles frames in the middle of an ADTS stream: they are
// concealed and counted, the rest measured, the length unchanged.
func TestADTSCorruptFramesConcealed(t *testing.T) {
	t.Parallel()
	data := readFixture(t, "tone_m44.aac")
	clean, err := MeasureFile(bytes.NewReader(data), "x.aac")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	for i, n := 0, 0; i < len(bad); n++ {
		size := int(bad[i+3]&3)<<11 | int(bad[i+4])<<3 | int(bad[i+5])>>5
		if n == 40 || n == 80 {
			bad[i+7] = 0xe0 // END first: no channel element
		}
		i += size
	}
	m, err := MeasureFile(bytes.NewReader(bad), "x.aac")
	if err != nil || m.ConcealedFrames != 2 || m.Frames != clean.Frames {
		t.Fatalf("%d frames, %d concealed, %v; want %d frames, 2 concealed", m.Frames, m.ConcealedFrames, err, clean.Frames)
	}
}

// TestM4ATrimMatchesFFmpeg decodes ffmpeg's M4A fixtures through the edit list's trim and holds
// every 576-sample block to ffmpeg's own decode within 2·10⁻⁵: the priming is cut exactly where
// ffmpeg cuts it. The decode then ends at the edit list's duration, where ffmpeg 5.1 keeps the
// encoder's padding.
func TestM4ATrimMatchesFFmpeg(t *testing.T) {
	t.Parallel()
	refs, err := blockref.Load("testdata/formats/m4a_blocks.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/formats/*.m4a")
	if len(files) != len(refs) || len(files) < 3 {
		t.Fatalf("%d M4A fixtures, %d references: run testdata/formats/gen.sh", len(files), len(refs))
	}
	for _, name := range files {
		ref := refs[filepath.Base(name)]
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var moovBody []byte
		for _, b := range mp4Children(data) {
			if b.typ == "moov" {
				moovBody = b.body
			}
		}
		// Decoded with the sample tables in memory, and moved to a temporary file.
		var pcm []float64
		var m Measurement
		var cfg aacdec.Config
		for _, inMemory := range []int64{maxTableInMemory, 16} {
			moov, tables := readTestMoov(t, name, moovBody, inMemory)
			got, tr, gotPCM := decodeM4A(t, data, moov, tables)
			if pcm != nil && (!slices.Equal(gotPCM, pcm) || got.BitRate != m.BitRate || got.BitRate == 0) {
				t.Fatalf("%s: with the sample tables in a file, %d samples at %d bit/s; in memory %d at %d", name, len(gotPCM), got.BitRate, len(pcm), m.BitRate)
			}
			m, pcm = got, gotPCM
			if cfg, err = tr.cfg, tr.cfgErr; err != nil {
				t.Fatal(err)
			}
		}
		ch := cfg.Channels
		if ch != ref.Channels || int64(len(pcm)/ch) != m.Frames || len(pcm)/ch > ref.Samples || ref.Samples-len(pcm)/ch >= 1024 {
			t.Fatalf("%s: %d channels × %d samples (edit list %d), ffmpeg %d × %d", name, ch, len(pcm)/ch, m.Frames, ref.Channels, ref.Samples)
		}
		if err := blockref.Compare(pcm, ch, ref, 2e-5); err != nil {
			t.Fatalf("%s against ffmpeg: %v", name, err)
		}
	}
}

// decodeM4A decodes a whole M4A file's sound track, trimmed by its edit list.
func decodeM4A(t *testing.T, data, moov []byte, tables *mp4Tables) (Measurement, mp4Track, []float64) {
	t.Helper()
	m, tr, err := parseMoov(moov, tables)
	if err != nil {
		t.Fatal(err)
	}
	cfg := tr.cfg
	if tr.cfgErr != nil {
		t.Fatal(tr.cfgErr)
	}
	it, err := newMP4Samples(tr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newAACPCM(cfg, tr.trim(cfg.SampleRate), func() ([]byte, error) {
		off, size, ok := it.next()
		if !ok {
			return nil, io.EOF
		}
		return data[off : off+uint64(size)], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pcm []float64
	buf := make([]float64, 4096)
	for {
		n, err := p.read(buf)
		pcm = append(pcm, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return m, tr, pcm
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestADTSAfterID3 measures an ADTS stream behind an ID3v2 tag: the same audio, and the tag's
// title.
func TestADTSAfterID3(t *testing.T) {
	t.Parallel()
	data := readFixture(t, "tone_m44.aac")
	bare, err := MeasureFile(bytes.NewReader(data), "")
	if err != nil {
		t.Fatal(err)
	}
	tag := ID3Tag(SynthSpec{Title: "An AAC episode"})
	m, err := MeasureFile(bytes.NewReader(append(tag, data...)), "")
	if err != nil || m.FormatName != "aac" || m.Frames != bare.Frames || m.IntegratedLUFS != bare.IntegratedLUFS || m.Title != "An AAC episode" || m.Size != int64(len(tag)+len(data)) {
		t.Fatalf("%+v %v; want %d frames at %.3f LUFS titled", m, err, bare.Frames, bare.IntegratedLUFS)
	}
}

// mp4TestBox makes a box of a type and body.
func mp4TestBox(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(append(b, typ...), body...)
}

// TestMP4SampleTable walks a hand-made sample table with 64-bit chunk offsets (co64, which
// ffmpeg writes only past 4 GiB) and two runs of samples per chunk, its tables kept in memory
// and moved to a file: the same samples at the same offsets either way.
func TestMP4SampleTable(t *testing.T) {
	t.Parallel()
	u32 := func(vs ...uint32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		return b
	}
	far := uint64(1)<<33 + 10
	co64 := u32(0, 4)
	for _, off := range []uint64{1000, 5000, far, far + 1000} {
		co64 = binary.BigEndian.AppendUint64(co64, off)
	}
	stbl := mp4TestBox("stbl",
		mp4TestBox("stsz", u32(0, 0, 6, 10, 20, 30, 40, 50, 60)),
		mp4TestBox("stsc", u32(0, 2, 1, 2, 1, 3, 1, 1)), // chunks 1–2: two samples; from 3: one
		mp4TestBox("co64", co64))
	moovBody := mp4TestBox("trak", mp4TestBox("mdia", mp4TestBox("minf", stbl)))
	want := [][2]uint64{{1000, 10}, {1010, 20}, {5000, 30}, {5030, 40}, {far, 50}, {far + 1000, 60}}
	for _, inMemory := range []int64{maxTableInMemory, 16} {
		moov, tables := readTestMoov(t, "TestMP4SampleTable", moovBody, inMemory)
		box, ok := mp4Child(moov, "trak", "mdia", "minf", "stbl")
		if !ok {
			t.Fatal("no stbl in the moov read")
		}
		it, err := newMP4Samples(mp4Track{stbl: box, trak: 0, tables: tables})
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]uint64
		for {
			off, size, ok := it.next()
			if !ok {
				break
			}
			got = append(got, [2]uint64{off, uint64(size)})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("in memory %d: samples %v, want %v", inMemory, got, want)
		}
	}
}

// readTestMoov reads moovBody with inMemory bytes of sample tables held in memory (16: spilled
// to a temporary file, closed when the test ends) and checks that the tables went where asked.
func readTestMoov(t *testing.T, name string, moovBody []byte, inMemory int64) ([]byte, *mp4Tables) {
	t.Helper()
	moov, tables, err := readMoov(bytes.NewReader(moovBody), int64(len(moovBody)), inMemory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tables.close() })
	if (tables != nil) != (inMemory == 16) {
		t.Fatalf("%s: tables spilled %v with %d bytes in memory", name, tables != nil, inMemory)
	}
	return moov, tables
}
