package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"
)

// aacFixture reads an AAC fixture of internal/audio (made by ffmpeg; see its gen.sh).
func aacFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fakeserver", "internal", "audio", "testdata", "formats", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProbeAAC probes ffmpeg's M4A files (moov last and first) and ADTS streams: codec, format,
// rate and channels as ffprobe says, the M4A duration ffprobe's (the edit list's) and the ADTS
// duration exact from the frames ffmpeg decodes.
func TestProbeAAC(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "fakeserver", "internal", "audio", "testdata", "formats", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs struct {
		Files []struct {
			File          string  `json:"file"`
			Format        string  `json:"format_name"`
			Rate          int     `json:"sample_rate"`
			Channels      int     `json:"channels"`
			DecodedFrames uint64  `json:"decoded_frames"`
			Duration      float64 `json:"duration"`
		} `json:"files"`
	}
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ref := range refs.Files {
		ext := filepath.Ext(ref.File)
		if ext != ".m4a" && ext != ".aac" {
			continue
		}
		n++
		want := Info{Format: ref.Format, Codec: "aac", SampleRate: ref.Rate, Channels: ref.Channels,
			Duration: time.Duration(ref.Duration * float64(time.Second))}
		if ext == ".aac" {
			want.Duration, _ = samplesDuration(ref.DecodedFrames, uint64(ref.Rate))
		}
		data := aacFixture(t, ref.File)
		for _, in := range [][]byte{data, cat(id3v2(300, false), data)} {
			if ext == ".m4a" && len(in) != len(data) {
				continue
			}
			got, err := Probe(iotest.OneByteReader(bytes.NewReader(in)))
			if err != nil || got != want {
				t.Errorf("%s: %+v, %v; want %+v", ref.File, got, err, want)
			}
		}
	}
	if n < 5 {
		t.Fatalf("%d AAC fixtures", n)
	}
}

// TestProbeADTSResync loses sync midway and ends on a truncated frame: the garbage and the
// truncated frame are not counted.
func TestProbeADTSResync(t *testing.T) {
	t.Parallel()
	data := aacFixture(t, "tone_m44.aac")
	var frames [][]byte
	for b := data; len(b) > 0; {
		n := int(b[3]&3)<<11 | int(b[4])<<3 | int(b[5])>>5
		frames, b = append(frames, b[:n]), b[n:]
	}
	in := cat(cat(frames[:10]...), []byte{0xff, 0xf1, 0x50, 0x80, 0xff, 0x12}, cat(frames[10:20]...), frames[20][:40])
	got, err := Probe(bytes.NewReader(in))
	want, _ := samplesDuration(20*1024, 44100)
	if err != nil || got.Duration != want || got.Format != "aac" {
		t.Fatalf("%+v, %v; want 20 frames (%v)", got, err, want)
	}
}

func TestProbeAACErrors(t *testing.T) {
	t.Parallel()
	m4a := aacFixture(t, "speech_m48_fs.m4a") // moov first
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"ftyp only", m4a[:32]},
		{"moov cut short", m4a[:200]},
		{"box larger than its parent", func() []byte {
			b := bytes.Clone(m4a[:4000])
			i := bytes.Index(b, []byte("trak"))
			b[i-4], b[i-3] = 0x7f, 0xff
			return b
		}()},
		{"one ADTS header", aacFixture(t, "tone_m44.aac")[:7]},
	} {
		if got, err := Probe(bytes.NewReader(tc.in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %+v, %v; want ErrMalformed", tc.name, got, err)
		}
	}
}

// TestProbeMP4ObjectType: an mp4a track is named by its esds object type, as ffprobe and the
// audio engine name it (internal/mp4desc): ffmpeg's M4A with the type patched to MP3 (0x6B)
// probes as "mp3".
func TestProbeMP4ObjectType(t *testing.T) {
	t.Parallel()
	data := aacFixture(t, "speech_s44.m4a")
	at := bytes.Index(data, []byte("esds"))
	if at < 0 {
		t.Fatal("no esds box in the fixture")
	}
	dcd := bytes.Index(data[at:], []byte{0x04, 0x80, 0x80, 0x80}) // ffmpeg writes 4-byte lengths
	if dcd < 0 || data[at+dcd+5] != 0x40 {
		t.Fatal("no AAC DecoderConfigDescriptor found in the fixture's esds")
	}
	for _, tt := range []struct {
		objectType byte
		want       string
	}{{0x40, "aac"}, {0x6B, "mp3"}, {0x69, "mp3"}} {
		patched := bytes.Clone(data)
		patched[at+dcd+5] = tt.objectType
		got, err := Probe(bytes.NewReader(patched))
		if err != nil || got.Codec != tt.want {
			t.Errorf("object type 0x%02x: %+v, %v; want codec %q", tt.objectType, got, err, tt.want)
		}
	}
	// A decoder config whose length says less than its fixed 13 bytes (found by FuzzESDS)
	// probes without a panic; the track is then named from its sample entry alone.
	short := bytes.Clone(data)
	copy(short[at+dcd+1:], []byte{0x80, 0x80, 0x80, 0x00})
	if got, err := Probe(bytes.NewReader(short)); err != nil || got.Codec != "aac" {
		t.Errorf("decoder config of length 0: %+v, %v; want codec aac", got, err)
	}
}
