package audio

import (
	"os"
	"testing"
)

func TestZZProf(t *testing.T) {
	f, err := os.Open("/tmp/podqa-mp3bench/10min.mp3")
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	m, err := Measure(f, WithWorkers(1))
	t.Log(m.IntegratedLUFS, m.TruePeakDB, err)
}
