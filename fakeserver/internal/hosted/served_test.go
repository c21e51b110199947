package hosted

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/internal/audio"
)

var writeServed = flag.String("write-served", "", "write the served-audio cases to this directory (testdata/gen.sh does)")

func ptr[T any](v T) *T { return &v }

// servedCases are hosted episodes whose served audio is held to the loudness and true peak they
// ask for, as our engine and ffmpeg measure it.
var servedCases = map[string]Episode{
	"default_mp3":       {Title: "Default", DurationS: 20, Format: "mp3"},
	"quiet_mp3_mono":    {Title: "Quiet", DurationS: 20, Format: "mp3", Channels: 1, LoudnessLUFS: ptr(-23.0), TruePeakDB: ptr(-8.0)},
	"loud_mp3_48k_192k": {Title: "Loud", DurationS: 20, Format: "mp3", SampleRate: 48000, BitRate: 192, LoudnessLUFS: ptr(-14.0), TruePeakDB: ptr(-1.5)},
	"low_mp3_32k_64k":   {Title: "Low", DurationS: 20, Format: "mp3", SampleRate: 32000, BitRate: 64, Channels: 1, LoudnessLUFS: ptr(-19.0)},
	"peaky_mp3_mono":    {Title: "Peaky", DurationS: 20, Format: "mp3", Channels: 1, LoudnessLUFS: ptr(-30.0), TruePeakDB: ptr(-10.0)},
	"clicky_mp3":        {Title: "Clicky", DurationS: 20, Format: "mp3", LoudnessLUFS: ptr(-16.0), TruePeakDB: ptr(-1.5)},
	"wav":               {Title: "Wave", DurationS: 20, Format: "wav", LoudnessLUFS: ptr(-18.0), TruePeakDB: ptr(-2.0)},
	// MPEG-2 and 2.5, chosen by default at their rates.
	"lsf_22k_mono_64k": {Title: "Lsf", DurationS: 20, SampleRate: 22050, Channels: 1, BitRate: 64, LoudnessLUFS: ptr(-18.0)},
	"lsf_24k_default":  {Title: "Lsf24", DurationS: 20, SampleRate: 24000, Channels: 2, TruePeakDB: ptr(-3.0)},
	"mpeg25_8k_24k":    {Title: "Phone", DurationS: 20, SampleRate: 8000, Channels: 1, BitRate: 24, LoudnessLUFS: ptr(-20.0)},
}

// servedFigures is what testdata/gen.sh stores of ffmpeg 5.1's measurement of a served file.
type servedFigures struct {
	SHA256   string  `json:"sha256"`
	Warnings string  `json:"warnings"`
	I        float64 `json:"i"`
	TP       float64 `json:"tp"`
}

// served renders a case as the host serves it, with its defaults applied.
func served(t *testing.T, e Episode) (Episode, []byte) {
	t.Helper()
	e.GUID = "g"
	if err := check(&e, "Show"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := synthesize(&b, e); err != nil {
		t.Fatal(err)
	}
	if n, err := audioLength(e); err != nil || n != int64(b.Len()) {
		t.Fatalf("audioLength = %d, %v; the file has %d bytes", n, err, b.Len())
	}
	return e, b.Bytes()
}

// TestServedAudioMeasuresAsAsked: the served file, MP3 or WAV, measures at the loudness asked
// (within 0.05 LU) and at the true peak asked (within 0.1 dB; at most -1 dBTP by default), by
// our engine and by ffmpeg, whose figures testdata/gen.sh stores for these very bytes.
func TestServedAudioMeasuresAsAsked(t *testing.T) {
	t.Parallel()
	if *writeServed != "" {
		for name, e := range servedCases {
			e, b := served(t, e)
			if err := os.WriteFile(filepath.Join(*writeServed, name+"."+e.Format), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	raw, err := os.ReadFile("testdata/ffmpeg.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs map[string]servedFigures
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	for name, e := range servedCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, b := served(t, e)
			wantI := -16.0
			if e.LoudnessLUFS != nil {
				wantI = *e.LoudnessLUFS
			}
			m, err := audio.MeasureFile(bytes.NewReader(b), "x."+e.Format)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"mp3": "mp3", "wav": "pcm_s16le"}[e.Format]; m.CodecName != want {
				t.Errorf("codec %s, want %s", m.CodecName, want)
			}
			ref, ok := refs[name]
			if !ok {
				t.Fatal("no ffmpeg figures: run testdata/gen.sh")
			}
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) != ref.SHA256 {
				t.Fatal("the served bytes changed since ffmpeg measured them: run testdata/gen.sh")
			}
			if e.Format == "mp3" && ref.Warnings != "" {
				t.Errorf("ffmpeg warned: %s", ref.Warnings)
			}
			for who, got := range map[string][2]float64{"engine": {m.IntegratedLUFS, m.TruePeakDB}, "ffmpeg": {ref.I, ref.TP}} {
				if math.Abs(got[0]-wantI) > 0.05 {
					t.Errorf("%s: %.3f LUFS, asked %.1f", who, got[0], wantI)
				}
				switch {
				case e.TruePeakDB != nil && math.Abs(got[1]-*e.TruePeakDB) > 0.1:
					t.Errorf("%s: %.3f dBTP, asked %.1f", who, got[1], *e.TruePeakDB)
				case e.TruePeakDB == nil && got[1] > -1+0.1:
					t.Errorf("%s: %.3f dBTP, want at most -1", who, got[1])
				}
			}
		})
	}
}

// TestUnreachableMP3PeaksAreRefused: a true peak the synthesiser reaches with a click that a
// low-bit-rate MP3 cannot keep (32 kbit/s stereo) is refused when the episode is hosted, naming
// wav as the way out, and nothing is hosted.
func TestUnreachableMP3PeaksAreRefused(t *testing.T) {
	t.Parallel()
	h := New("http://fake.test", 0, nil)
	id := uuid.New()
	e := Episode{Title: "Clicky", GUID: "c", DurationS: 20, Format: "mp3", SampleRate: 32000, BitRate: 32, LoudnessLUFS: ptr(-16.0), TruePeakDB: ptr(-1.5)}
	_, err := h.AddFeed(id, "Show", false, []Episode{e})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeValidation || !strings.Contains(ce.Message, "format wav") {
		t.Fatalf("AddFeed = %v, want a validation error naming wav", err)
	}
	if len(h.AudioURLs(id)) != 0 {
		t.Error("a refused episode was hosted")
	}
	e.Format, e.BitRate = "wav", 0
	if _, err := h.AddFeed(id, "Show", false, []Episode{e}); err != nil {
		t.Errorf("as wav: %v", err)
	}
}
