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

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/audio/calibrate"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

var writeServed = flag.String("write-served", "", "write the served-audio cases to this directory (testdata/gen.sh does)")

// servedCases are hosted episodes whose served audio is held to the loudness and true peak they
// ask for, as our engine and ffmpeg measure it over the whole file: the cases (which
// missed their peak or were refused when calibration looked at the first 15 s), mono and
// stereo, WAV, the MP3 rates and bit rates, 1 s and a long one.
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
	// Issue 29's cases, 128 kbit/s stereo at 44.1 kHz.
	"i29_90s_23_3":   {Title: "I29a", DurationS: 90, LoudnessLUFS: ptr(-23.0), TruePeakDB: ptr(-3.0)},
	"i29_90s_16_1":   {Title: "I29b", DurationS: 90, LoudnessLUFS: ptr(-16.0), TruePeakDB: ptr(-1.0)},
	"i29_10s_30_10":  {Title: "I29c", DurationS: 10, LoudnessLUFS: ptr(-30.0), TruePeakDB: ptr(-10.0)},
	"i29_300s_20_2":  {Title: "I29d", DurationS: 300, LoudnessLUFS: ptr(-20.0), TruePeakDB: ptr(-2.0)},
	"i29_90s_23_3_5": {Title: "I29e", DurationS: 90, LoudnessLUFS: ptr(-23.0), TruePeakDB: ptr(-3.5)},
	// Mono, other rates and bit rates, 1 s, WAV at length.
	"mono_90s_11k_32k":   {Title: "Mono11", DurationS: 90, SampleRate: 11025, Channels: 1, BitRate: 32, LoudnessLUFS: ptr(-19.0), TruePeakDB: ptr(-4.0)},
	"stereo_60s_32k_320": {Title: "Hi32", DurationS: 60, SampleRate: 32000, BitRate: 320, LoudnessLUFS: ptr(-16.0), TruePeakDB: ptr(-1.0)},
	"stereo_60s_16k_64":  {Title: "Lsf16", DurationS: 60, SampleRate: 16000, BitRate: 64, LoudnessLUFS: ptr(-20.0), TruePeakDB: ptr(-4.0)},
	"one_second_mp3":     {Title: "One", DurationS: 1, LoudnessLUFS: ptr(-16.0), TruePeakDB: ptr(-1.0)},
	"one_second_mono":    {Title: "OneMono", DurationS: 1, Channels: 1, SampleRate: 48000, BitRate: 96, LoudnessLUFS: ptr(-20.0), TruePeakDB: ptr(-5.0)},
	"wav_mono_300s":      {Title: "WaveLong", DurationS: 300, Format: "wav", Channels: 1, LoudnessLUFS: ptr(-23.0), TruePeakDB: ptr(-3.0)},
	// Long: 20 minutes, checked whole.
	"long_20min_mp3": {Title: "Long", DurationS: 1200, LoudnessLUFS: ptr(-18.0), TruePeakDB: ptr(-2.0)},
}

// shortCases are the cases -short keeps, one of each kind: mono MP3 with the widest gap
// between loudness and peak, stereo MP3 with a click-made peak near the ceiling (the peak
// coding moves most), and stereo WAV. The full run (CI) checks every case; under -race the
// whole table is minutes of CPU, most of the quick subset's budget.
var shortCases = map[string]bool{"peaky_mp3_mono": true, "clicky_mp3": true, "wav": true}

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

// TestServedAudioMeasuresAsAsked: the whole served file, MP3 or WAV, measures within 0.1 LU of
// the loudness asked and at or under the true peak asked, by at most calibrate.PeakWindow (at most -1
// dBTP by default), by our engine and by ffmpeg, whose figures testdata/gen.sh stores for these
// very bytes.
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
	for name := range shortCases {
		if _, ok := servedCases[name]; !ok {
			t.Fatalf("shortCases names %q, which is no case", name)
		}
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
			if testing.Short() && !shortCases[name] {
				t.Skip("-short checks only the representative cases (shortCases): run without -short for all")
			}
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
				if math.Abs(got[0]-wantI) > 0.1 {
					t.Errorf("%s: %.3f LUFS, asked %.1f", who, got[0], wantI)
				}
				// ffmpeg prints three decimals: its figure may round up by 0.0005.
				switch {
				case e.TruePeakDB != nil && !(got[1] <= *e.TruePeakDB+0.0005 && got[1] >= *e.TruePeakDB-calibrate.PeakWindow):
					t.Errorf("%s: %.3f dBTP, asked %.1f (or up to %.1f under)", who, got[1], *e.TruePeakDB, calibrate.PeakWindow)
				case e.TruePeakDB == nil && got[1] > -1+0.0005:
					t.Errorf("%s: %.3f dBTP, want at most -1", who, got[1])
				}
			}
		})
	}
}

// TestUnreachableMP3PeaksAreRefused: a true peak the synthesiser reaches with a click that a
// low-bit-rate MP3 cannot keep (32 kbit/s stereo) is refused when the episode is hosted, naming
// the episode (index and title), the nearest peak a trial measured and wav as the way out, and
// nothing is hosted.
func TestUnreachableMP3PeaksAreRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		// The refusal tries calibration after calibration before it names the nearest peak:
		// 28 CPU seconds under -race, over a third of this package's -short run.
		t.Skip("-short: the full run checks that an unreachable MP3 peak is refused, naming the episode, the nearest peak and wav")
	}
	h := New("http://fake.test", 0, nil)
	id := uuid.New()
	e := Episode{Title: "Clicky", GUID: "c", DurationS: 20, Format: "mp3", SampleRate: 32000, BitRate: 32, LoudnessLUFS: ptr(-16.0), TruePeakDB: ptr(-1.5)}
	_, err := h.AddFeed(id, "Show", false, []Episode{e})
	var ce *core.Error
	var ee *EpisodeError
	if !errors.As(err, &ce) || ce.Code != core.CodeValidation || !strings.Contains(ce.Message, "format wav") ||
		!strings.HasPrefix(ce.Message, `Episode 0 ("Clicky"): `) || !strings.Contains(ce.Message, "the nearest it measured is -") ||
		!errors.As(err, &ee) || ee.Index != 0 || ee.Title != "Clicky" {
		t.Fatalf("AddFeed = %v, want a validation error naming the episode, the nearest peak and wav", err)
	}
	if len(h.AudioURLs(id)) != 0 {
		t.Error("a refused episode was hosted")
	}
	e.Format, e.BitRate = "wav", 0
	if _, err := h.AddFeed(id, "Show", false, []Episode{e}); err != nil {
		t.Errorf("as wav: %v", err)
	}
}
