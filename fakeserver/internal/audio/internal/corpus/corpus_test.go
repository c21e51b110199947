package corpus

import (
	"bytes"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

// TestCases checks that names are unique and that tones are written as described: 24-bit PCM of
// the right length, faded in from silence.
func TestCases(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
	}
	c := Case{Name: "short", SampleRate: 8000, Channels: 2, Freq: 1000, Segments: []Segment{{0.25, -6}, {0.125, -20}}}
	var b bytes.Buffer
	if err := c.WriteWAV(&b); err != nil {
		t.Fatal(err)
	}
	r, err := audio.NewWAVReader(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Format(); f.SampleRate != 8000 || f.Channels != 2 || f.BitsPerSample != 24 {
		t.Errorf("format %+v", f)
	}
	samples := make([]float64, 8000)
	n, _ := r.Read(samples)
	if n != 2*3000 {
		t.Fatalf("%d samples, want %d", n, 2*3000)
	}
	// The first frame is almost silent, the fade ends after 50 ms (400 frames).
	if a := max(samples[0], -samples[0]); a > 1e-4 {
		t.Errorf("first sample %v: not faded in", samples[0])
	}
	var peak float64
	for _, v := range samples[2*400 : 2*2000] {
		peak = max(peak, v, -v)
	}
	if peak < 0.45 || peak > 0.51 {
		t.Errorf("peak after the fade %v, want about 0.5 (−6 dBFS)", peak)
	}
	if err := (Case{Name: "bad", SampleRate: 8000, Channels: 3, Segments: c.Segments}).WriteWAV(&b); err == nil {
		t.Error("three channels accepted")
	}
}
