package blockref

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	pcm := make([]float64, 2*(BlockSize+10)) // stereo, one whole block and a partial one
	for i := range pcm {
		pcm[i] = float64(i%7) / 10
	}
	ref := Stats{Channels: 2, Samples: BlockSize + 10, Blocks: Summarise(pcm, 2)}
	if err := Compare(pcm, 2, ref, 1e-9); err != nil {
		t.Fatal(err)
	}
	if err := Compare(pcm[:2*BlockSize+6], 2, ref, 1e-9); err != nil {
		t.Fatalf("a shorter decode's whole blocks: %v", err)
	}
	bad := append([]float64(nil), pcm...)
	bad[2*BlockSize+1] = 2 // channel 1 of the partial block
	for _, tc := range []struct {
		pcm      []float64
		channels int
		says     string
	}{
		{bad, 2, "block 1 channel 1"},
		{pcm, 1, "1 channels"},
		{append(pcm, 0, 0), 2, "samples per channel"},
	} {
		if err := Compare(tc.pcm, tc.channels, ref, 1e-9); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v, want an error saying %q", err, tc.says)
		}
	}
}
