package audio

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// formatRef is one entry of testdata/formats/reference.json, written by gen.sh from ffmpeg.
type formatRef struct {
	File           string  `json:"file"`
	IntegratedLUFS float64 `json:"integrated_lufs"`
	TruePeakDB     float64 `json:"true_peak_db"`
	CodecName      string  `json:"codec_name"`
	FormatName     string  `json:"format_name"`
	SampleRate     int     `json:"sample_rate"`
	Channels       int     `json:"channels"`
	DecodedFrames  int64   `json:"decoded_frames"`
	Duration       float64 `json:"duration"`
	BitRate        int64   `json:"bit_rate"`
}

func loadFormatRefs(t *testing.T) []formatRef {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "formats", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Files []formatRef `json:"files"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Files) < 10 {
		t.Fatalf("%d references", len(doc.Files))
	}
	return doc.Files
}

// TestFormatsMatchFFmpeg measures every fixture and compares it with ffmpeg's ebur128 filter
// and ffprobe: |ΔI| ≤ 0.1 LU, |ΔTP| ≤ 0.2 dB, and equal codec, format, rate, channels and
// decoded length.
func TestFormatsMatchFFmpeg(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the corpus of formats is long: -short skips it, the full suite (CI) runs it")
	}
	for _, ref := range loadFormatRefs(t) {
		t.Run(ref.File, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", "formats", ref.File))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			m, err := MeasureFile(f, ref.File)
			if err != nil {
				t.Fatal(err)
			}
			if m.CodecName != ref.CodecName || m.FormatName != ref.FormatName || m.SampleRate != ref.SampleRate || m.Channels != ref.Channels {
				t.Errorf("got %s/%s %d Hz %d ch, ffprobe %s/%s %d Hz %d ch", m.CodecName, m.FormatName, m.SampleRate, m.Channels,
					ref.CodecName, ref.FormatName, ref.SampleRate, ref.Channels)
			}
			if m.Size != st.Size() {
				t.Errorf("size %d, file %d", m.Size, st.Size())
			}
			wantFrames := ref.DecodedFrames
			if ref.CodecName == "aac" && ref.FormatName == mp4FormatName {
				// Trimmed to the edit list's duration, which ffprobe reports; ffmpeg 5.1's decode
				// keeps the encoder's padding at the end.
				wantFrames = int64(ref.Duration*float64(ref.SampleRate) + 0.5)
			}
			if m.Frames != wantFrames {
				t.Errorf("%d frames, want %d", m.Frames, wantFrames)
			}
			if want := framesDuration(wantFrames, ref.SampleRate); m.Duration != want {
				t.Errorf("duration %v, want %v", m.Duration, want)
			}
			if m.ConcealedFrames != 0 {
				t.Errorf("%d frames concealed", m.ConcealedFrames)
			}
			if d := m.IntegratedLUFS - ref.IntegratedLUFS; math.Abs(d) > 0.1 {
				t.Errorf("integrated %.3f LUFS, ffmpeg %.3f (Δ %.3f)", m.IntegratedLUFS, ref.IntegratedLUFS, d)
			}
			// Opus references come from libopus, the reference decoder (see gen.sh).
			if d := m.TruePeakDB - ref.TruePeakDB; math.Abs(d) > 0.2 {
				t.Errorf("true peak %.3f dB, ffmpeg %.3f (Δ %.3f)", m.TruePeakDB, ref.TruePeakDB, d)
			}
			if ref.FormatName == "aac" {
				// ffprobe estimates an ADTS stream's bit rate from its first frames (18 % low on
				// step_s48.aac, which starts quiet); ours is the frames' bytes over the duration.
				if want := float64(st.Size()) * 8 / m.Duration.Seconds(); math.Abs(float64(m.BitRate)-want) > 0.001*want {
					t.Errorf("bit rate %d, the file's bytes over its duration %.0f", m.BitRate, want)
				}
			} else if ref.BitRate > 0 && m.BitRate != ref.BitRate {
				t.Errorf("bit rate %d, ffprobe %d", m.BitRate, ref.BitRate)
			}
			t.Logf("I %.3f (ffmpeg %.3f) TP %.3f (ffmpeg %.3f) bitrate %d", m.IntegratedLUFS, ref.IntegratedLUFS, m.TruePeakDB, ref.TruePeakDB, m.BitRate)
		})
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// TestTags reads the tags, chapters and cover that gen.sh wrote into each container.
func TestTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		chapters   bool
		cover      bool
		copyrightT bool
	}{
		{"tagged.mp3", true, true, true},
		{"tagged.flac", true, true, true},
		{"tagged.ogg", true, false, true},
		{"tagged.m4a", true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("testdata", "formats", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := MeasureFile(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Tags
			if g.Title != "Episode Title" || g.Artist != "The Artist" || g.Album != "The Show" || g.Track != 7 || g.Year != "2026" {
				t.Errorf("tags %+v", g)
			}
			if m.Title != "Episode Title" {
				t.Errorf("Title %q", m.Title)
			}
			if tt.copyrightT && g.Copyright != "(c) 2026 Podqa" {
				t.Errorf("copyright %q", g.Copyright)
			}
			if len(g.Comments) == 0 || g.Comments[0] != "A comment" {
				t.Errorf("comments %q", g.Comments)
			}
			if tt.chapters {
				want := []Chapter{{0, time.Second, "Intro"}, {time.Second, 2 * time.Second, "Main"}}
				if len(g.Chapters) != 2 {
					t.Fatalf("chapters %+v", g.Chapters)
				}
				for i, c := range g.Chapters {
					if c.Title != want[i].Title || absDur(c.Start-want[i].Start) > time.Millisecond || absDur(c.End-want[i].End) > 40*time.Millisecond {
						t.Errorf("chapter %d: %+v, want %+v", i, c, want[i])
					}
				}
			}
			if tt.cover {
				if m.Cover == nil {
					t.Fatal("no cover")
				}
				if m.Cover.MIMEType != "image/png" || m.Cover.Width != 64 || m.Cover.Height != 48 || len(m.Cover.Data) == 0 {
					t.Errorf("cover %s %dx%d, %d bytes", m.Cover.MIMEType, m.Cover.Width, m.Cover.Height, len(m.Cover.Data))
				}
			}
		})
	}
}
