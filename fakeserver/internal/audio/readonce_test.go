package audio

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestReadOnceInputMeasuresAsSeekable: a read-once input measures exactly as the same bytes
// held in memory, on one worker and on two with short segments, for every format but Opus; and
// Vorbis, which decodes in parallel segments on any input, matches its serial decode bit for
// bit on a reader that cannot seek. Opus is left out: on read-once input it decodes with pion instead of opusdec,
// whose output differs in the last bits (TestOpusDecoderRouting covers that choice).
func TestReadOnceInputMeasuresAsSeekable(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob(filepath.Join("testdata", "formats", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	var fixtures []string
	for _, n := range names {
		switch ext := filepath.Ext(n); {
		case ext == ".ogg", filepath.Base(n) == "speech_m48.mp3":
			fixtures = append(fixtures, filepath.Base(n))
		case testing.Short(): // the quick subset keeps Vorbis and one MP3 file
		case ext == ".mp3", ext == ".flac", ext == ".wav", ext == ".aac", ext == ".m4a":
			fixtures = append(fixtures, filepath.Base(n))
		}
	}
	if want := map[bool]int{true: 4, false: 19}[testing.Short()]; len(fixtures) < want {
		t.Fatalf("found %d fixtures, want at least %d", len(fixtures), want)
	}
	short := func(o *options) { o.segFrames = 5 }
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, name)
			for _, workers := range []int{1, 2} {
				want, err := Measure(bytes.NewReader(data), WithWorkers(workers), short)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Measure(onlyReader{bytes.NewReader(data)}, WithWorkers(workers), short)
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
				if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
					t.Errorf("%d workers (-seekable +read once):\n%s", workers, d)
				}
				if workers == 2 && strings.HasSuffix(name, ".ogg") {
					// Vorbis segments are bit for bit the serial decode, whatever the input.
					serial, err := Measure(bytes.NewReader(data), WithWorkers(1))
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(serial, got, cmpopts.EquateNaNs()); d != "" {
						t.Errorf("Vorbis on 2 workers, read once (-serial +segments):\n%s", d)
					}
				}
			}
		})
	}
}
