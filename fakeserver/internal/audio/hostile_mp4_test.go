package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
)

// boxAt returns the offset of the first box of type typ (its size field) at or after from.
func boxAt(t *testing.T, b []byte, typ string) int {
	t.Helper()
	i := bytes.Index(b, []byte(typ))
	if i < 4 {
		t.Fatalf("no %s box", typ)
	}
	return i - 4
}

// TestAACWorkBoundedPerInputByte is D11 of issue 32: every AAC frame decodes to 1,024 samples
// however small it is, so a 48 KB M4A whose sample table lists millions of 1-byte samples at
// the same few offsets (the 10 KB file cost 115 s of CPU) and an ADTS stream of headers
// without payload (14.7 MB cost 122 s) are refused after a number of frames bounded by their
// bytes, counted here, not timed.
func TestAACWorkBoundedPerInputByte(t *testing.T) {
	t.Parallel()
	t.Run("M4A of 1-byte samples at repeated offsets", func(t *testing.T) {
		t.Parallel()
		b := bytes.Clone(readFixture(t, "speech_s44.m4a")) // media data before moov: spilled
		// No edit list, whose duration would end the decode: the file had none.
		edts := boxAt(t, b, "edts")
		copy(b[edts+4:], "free")
		stsz := boxAt(t, b, "stsz")
		binary.BigEndian.PutUint32(b[stsz+12:], 1)          // every sample 1 byte
		binary.BigEndian.PutUint32(b[stsz+16:], 0x7fffffff) // of two billion
		stsc := boxAt(t, b, "stsc")
		binary.BigEndian.PutUint32(b[stsc+12:], 1)     // one run
		binary.BigEndian.PutUint32(b[stsc+16:], 1)     // from the first chunk
		binary.BigEndian.PutUint32(b[stsc+20:], 1<<24) // of 16 million samples a chunk
		stco := boxAt(t, b, "stco")
		first := binary.BigEndian.Uint32(b[stco+16:])
		for i := range int(binary.BigEndian.Uint32(b[stco+12:])) {
			binary.BigEndian.PutUint32(b[stco+16+4*i:], first) // every chunk at one offset
		}
		counted := &countingReader{r: bytes.NewReader(b)}
		_, err := MeasureContext(t.Context(), counted, WithNameHint("x.m4a"), WithLimits(fakeLimits))
		frames := refusedFrames(t, err)
		if want := int64(len(b))/aacMinBlockBytes + aacFreeBlocks + 1; frames > want {
			t.Errorf("%d frames parsed before the refusal, want at most %d", frames, want)
		}
	})
	t.Run("ADTS headers without payload", func(t *testing.T) {
		t.Parallel()
		hdr := bytes.Clone(readFixture(t, "tone_m44.aac")[:7])
		// frame_length (13 bits from the last 2 of byte 3) of 7: the header alone.
		length := len(hdr)
		hdr[3] = hdr[3]&^3 | byte(length>>11)
		hdr[4] = byte(length >> 3)
		hdr[5] = hdr[5]&0x1f | byte(length&7)<<5
		stream := bytes.Repeat(hdr, 2_000_000) // 14 MB, as in the issue
		counted := &countingReader{r: bytes.NewReader(stream)}
		_, err := MeasureContext(t.Context(), counted, WithNameHint("x.aac"), WithLimits(fakeLimits))
		if frames := refusedFrames(t, err); frames != aacFreeBlocks+1 {
			t.Errorf("%d frames parsed before the refusal, want %d", frames, aacFreeBlocks+1)
		}
		// Read ahead by a few buffers at most, not the 14 MB.
		if counted.n > 1<<20 {
			t.Errorf("%d bytes read before the refusal", counted.n)
		}
	})
	t.Run("AAC above 96 kHz", func(t *testing.T) {
		t.Parallel()
		_, err := newAACPCM(aacdec.Config{ObjectType: 2, SampleRate: 384000, Channels: 1}, aacTrim{keep: -1}, func() ([]byte, error) { return nil, io.EOF })
		if !errors.Is(err, ErrUnsupportedCodec) || !strings.Contains(err.Error(), "384000 Hz") {
			t.Fatalf("%v, want unsupported naming 384000 Hz", err)
		}
	})
}

// refusedFrames checks that err is the per-byte ceiling's and returns the frames it counted.
func refusedFrames(t *testing.T, err error) int64 {
	t.Helper()
	if !errors.Is(err, ErrOverCeiling) || !strings.Contains(err.Error(), "AAC frames in") {
		t.Fatalf("%v, want the ceiling of frames per byte", err)
	}
	var frames, bytes int64
	msg := err.Error()
	if _, e := fmt.Sscanf(msg[strings.LastIndex(msg, ": ")+2:], "%d AAC frames in %d bytes", &frames, &bytes); e != nil {
		t.Fatalf("%q: %v", msg, e)
	}
	return frames
}

// TestMP4BoxCountBounded is D9 of issue 32: a moov box of 8.3 million empty boxes used 1.94 GB.
// A moov of more than maxMoovBoxes boxes is refused, and a kept box (udta) of a million empty
// boxes costs memory bounded by the file, not by its count of boxes: allocations counted.
func TestMP4BoxCountBounded(t *testing.T) {
	ftyp := mp4TestBox("ftyp", []byte("M4A \x00\x00\x00\x00M4A mp42isom"))
	empty := func(n int, typ string) []byte { return bytes.Repeat(mp4TestBox(typ), n) }
	fs := readFixture(t, "speech_m48_fs.m4a")
	moov := boxAt(t, fs, "moov")
	moovBody := fs[moov+8 : moov+int(binary.BigEndian.Uint32(fs[moov:]))]
	for _, tc := range []struct {
		name string
		file []byte
		want error
	}{
		{"moov of empty boxes", append(bytes.Clone(ftyp), mp4TestBox("moov", empty(1_000_000, "free"))...), ErrMalformed},
		{"ilst of empty boxes", append(bytes.Clone(ftyp), append(mp4TestBox("moov", moovBody,
			mp4TestBox("udta", mp4TestBox("meta", make([]byte, 4), mp4TestBox("ilst", empty(1_000_000, "free"))))), fs[moov+len(moovBody)+8:]...)...), nil},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := MeasureFile(bytes.NewReader(tc.file), "x.m4a")
		runtime.ReadMemStats(&after)
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		// The file is read and kept once or twice; 48 bytes a box listed would be 48 MB.
		if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(4*len(tc.file))+16<<20; alloc > bound {
			t.Errorf("%s: %d bytes allocated for a file of %d, want at most %d", tc.name, alloc, len(tc.file), bound)
		}
	}
}

// endless is media data that never ends: zeros.
type endless struct{}

func (endless) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestMP4SpillCapped is D8 of issue 32: media data of size 0 (to the end) before any moov box,
// which streams forever, was copied to a temporary file without a cap (4.29 GB in 10 s). It is
// refused past Limits.MaxSpill, by name, having read no more than the cap and a buffer.
func TestMP4SpillCapped(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	head := append(mp4TestBox("ftyp", []byte("M4A \x00\x00\x00\x00M4A mp42isom")), 0, 0, 0, 0, 'm', 'd', 'a', 't')
	counted := &countingReader{r: io.MultiReader(bytes.NewReader(head), endless{})}
	_, err := MeasureContext(t.Context(), counted, WithNameHint("x.m4a"), WithLimits(Limits{MaxSpill: limit}))
	if !errors.Is(err, ErrOverCeiling) || !strings.Contains(err.Error(), "temporary file") {
		t.Fatalf("%v, want the spill's ceiling", err)
	}
	if counted.n > limit+2*sniffSize+int64(len(head)) {
		t.Errorf("%d bytes read for a cap of %d", counted.n, limit)
	}
	// Long sample tables share the cap: a moov whose stsz alone passes it.
	fs := readFixture(t, "speech_m48_fs.m4a")
	_, err = MeasureFile(bytes.NewReader(fs), "x.m4a", WithLimits(Limits{MaxSpill: 16}))
	if err != nil {
		t.Fatalf("short tables stay in memory: %v", err)
	}
	big := mp4TestBox("moov", mp4TestBox("trak", mp4TestBox("mdia", mp4TestBox("minf", mp4TestBox("stbl",
		mp4TestBox("stsz", make([]byte, 8), binary.BigEndian.AppendUint32(nil, 1<<18), make([]byte, 4<<18)))))))
	_, err = MeasureFile(bytes.NewReader(append(mp4TestBox("ftyp", []byte("M4A \x00\x00\x00\x00")), big...)), "x.m4a", WithLimits(Limits{MaxSpill: limit / 2}))
	if !errors.Is(err, ErrOverCeiling) {
		t.Fatalf("a table of 1 MiB under a cap of 512 KiB: %v", err)
	}
}
