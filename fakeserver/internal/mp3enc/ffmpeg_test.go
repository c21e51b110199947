package mp3enc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

var writeStreams = flag.String("write-streams", "", "write the reference cases' streams and inputs to this directory (testdata/gen.sh does)")

// referenceCases are the streams held to ffmpeg: every rate of MPEG-1, 2 and 2.5, both layouts,
// low to high bit rates.
var referenceCases = []Options{
	{44100, 2, 128}, {44100, 1, 64}, {48000, 2, 192}, {48000, 1, 96}, {32000, 2, 128}, {32000, 1, 48}, {44100, 2, 320},
	{24000, 2, 96}, {22050, 1, 64}, {16000, 1, 32}, {12000, 2, 48}, {11025, 1, 32}, {8000, 1, 24},
}

func caseName(o Options) string {
	return fmt.Sprintf("%dhz_%dch_%dk", o.SampleRate, o.Channels, o.BitRate)
}

// ffmpegFigures is what testdata/gen.sh stores of ffmpeg 5.1's decode of a reference stream.
type ffmpegFigures struct {
	SHA256   string  `json:"sha256"`   // of the stream ffmpeg read
	Warnings string  `json:"warnings"` // what ffmpeg -v warning printed while decoding it
	Samples  int64   `json:"samples"`  // per channel, as ffmpeg decoded them (delay and padding cut)
	I        float64 `json:"i"`        // ebur128 integrated loudness of the stream
	TP       float64 `json:"tp"`       // ebur128 true peak of the stream
	InputI   float64 `json:"input_i"`  // the same of the input WAV
	InputTP  float64 `json:"input_tp"`
}

// TestMatchesFFmpeg holds the reference streams to ffmpeg's decode of the same bytes: no
// warning, exactly the samples encoded, loudness within 0.05 LU and true peak within 0.1 dB of
// the input's, and our engine within 0.1 LU and 0.2 dB of ffmpeg on the stream.
func TestMatchesFFmpeg(t *testing.T) {
	t.Parallel()
	if testing.Short() && *writeStreams == "" {
		t.Skip("the reference streams are long: -short skips them, the full suite (CI) runs them")
	}
	if *writeStreams != "" {
		for _, o := range referenceCases {
			pcm := speech(t, o.SampleRate, o.Channels, 12)
			base := filepath.Join(*writeStreams, caseName(o))
			if err := os.WriteFile(base+".mp3", encode(t, o, pcm), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(base+".wav", wavOf(t, o, pcm), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	raw, err := os.ReadFile("testdata/ffmpeg.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs map[string]ffmpegFigures
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) != len(referenceCases) {
		t.Fatalf("ffmpeg.json holds %d cases, the test %d: run testdata/gen.sh", len(refs), len(referenceCases))
	}
	for _, o := range referenceCases {
		t.Run(caseName(o), func(t *testing.T) {
			t.Parallel()
			ref, ok := refs[caseName(o)]
			if !ok {
				t.Fatal("no ffmpeg figures: run testdata/gen.sh")
			}
			pcm := speech(t, o.SampleRate, o.Channels, 12)
			stream := encode(t, o, pcm)
			sum := sha256.Sum256(stream)
			if hex.EncodeToString(sum[:]) != ref.SHA256 {
				t.Fatal("the encoder's output changed since ffmpeg decoded it: run testdata/gen.sh")
			}
			if ref.Warnings != "" {
				t.Errorf("ffmpeg warned: %s", ref.Warnings)
			}
			if ref.Samples != int64(len(pcm)/o.Channels) {
				t.Errorf("ffmpeg decoded %d samples, want %d", ref.Samples, len(pcm)/o.Channels)
			}
			if math.Abs(ref.I-ref.InputI) > 0.05 || math.Abs(ref.TP-ref.InputTP) > 0.1 {
				t.Errorf("ffmpeg measures the stream at %.2f LUFS %.2f dBTP, the input at %.2f %.2f", ref.I, ref.TP, ref.InputI, ref.InputTP)
			}
			got, err := audio.MeasureFile(bytes.NewReader(stream), "x.mp3")
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.IntegratedLUFS-ref.I) > 0.1 || math.Abs(got.TruePeakDB-ref.TP) > 0.2 {
				t.Errorf("our engine: %.3f LUFS %.3f dBTP, ffmpeg %.2f %.2f", got.IntegratedLUFS, got.TruePeakDB, ref.I, ref.TP)
			}
		})
	}
}
