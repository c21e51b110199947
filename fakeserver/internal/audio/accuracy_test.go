package audio_test

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/audio/internal/corpus"
)

// Tolerances against ffmpeg's ebur128 filter. The loudness range is compared only for cases of
// 10 s or more: ffmpeg also counts short-term blocks of the first 3 s, over windows that are
// partly before the start (it reports 20 LU for a steady 3 s tone, where EBU Tech 3342 has no
// range yet), which moves its percentiles by up to 0.4 LU on 6 s files and by a few hundredths
// of an LU from about 10 s on.
const (
	tolIntegrated   = 0.1 // LU
	tolTruePeak     = 0.2 // dB
	tolLoudRange    = 0.1 // LU
	minRangeSeconds = 10.0
)

// reference is ffmpeg's measurement of a corpus case.
type reference struct {
	integrated, truePeak, loudnessRange float64
}

// readRefs reads testdata/refs/refs.csv, written by testdata/refs/gen.sh.
func readRefs(t *testing.T) map[string]reference {
	t.Helper()
	f, err := os.Open("testdata/refs/refs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "name,integrated_lufs,true_peak_dbtp,loudness_range_lu" {
		t.Fatalf("refs.csv: unexpected header %v", rows[:min(1, len(rows))])
	}
	refs := make(map[string]reference)
	for _, row := range rows[1:] {
		var v [3]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(row[i+1], 64); err != nil {
				t.Fatalf("refs.csv: %v: %v", row, err)
			}
		}
		refs[row[0]] = reference{v[0], v[1], v[2]}
	}
	return refs
}

// measureCase streams a case's WAV file into audio.Measure.
func measureCase(c corpus.Case) (audio.Measurement, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(c.WriteWAV(pw)) }()
	m, err := audio.Measure(pr)
	pr.CloseWithError(errors.New("measured")) // unblocks the writer if Measure stopped early
	return m, err
}

// TestAccuracyCorpus measures every corpus case and compares it with ffmpeg's ebur128 figures.
func TestAccuracyCorpus(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the accuracy corpus is long: -short skips it, the full suite (CI) runs it")
	}
	refs := readRefs(t)
	cases := corpus.Cases()
	if len(refs) != len(cases) {
		t.Errorf("refs.csv has %d cases, the corpus %d: run testdata/refs/gen.sh", len(refs), len(cases))
	}
	var mu sync.Mutex
	var worstI, worstTP, worstLRA float64
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				t.Parallel()
				ref, ok := refs[c.Name]
				if !ok {
					t.Fatalf("no reference for %s: run testdata/refs/gen.sh", c.Name)
				}
				m, err := measureCase(c)
				if err != nil {
					t.Fatal(err)
				}
				if m.SampleRate != c.SampleRate || m.Channels != c.Channels {
					t.Errorf("measured %d Hz, %d channels", m.SampleRate, m.Channels)
				}
				dI := m.IntegratedLUFS - ref.integrated
				dTP := m.TruePeakDB - ref.truePeak
				dLRA := m.LoudnessRange - ref.loudnessRange
				if !(math.Abs(dI) <= tolIntegrated) {
					t.Errorf("integrated %.3f LUFS, ffmpeg %.3f (Δ %+.3f, tolerance %.1f)", m.IntegratedLUFS, ref.integrated, dI, tolIntegrated)
				}
				if !(math.Abs(dTP) <= tolTruePeak) {
					t.Errorf("true peak %.3f dBTP, ffmpeg %.3f (Δ %+.3f, tolerance %.1f)", m.TruePeakDB, ref.truePeak, dTP, tolTruePeak)
				}
				rangeCompared := m.Duration.Seconds() >= minRangeSeconds
				if rangeCompared && !(math.Abs(dLRA) <= tolLoudRange) {
					t.Errorf("loudness range %.3f LU, ffmpeg %.3f (Δ %+.3f, tolerance %.1f)", m.LoudnessRange, ref.loudnessRange, dLRA, tolLoudRange)
				}
				t.Logf("ΔI %+.3f LU, ΔTP %+.3f dB, ΔLRA %+.3f LU", dI, dTP, dLRA)
				mu.Lock()
				defer mu.Unlock()
				worstI = max(worstI, math.Abs(dI))
				worstTP = max(worstTP, math.Abs(dTP))
				if rangeCompared {
					worstLRA = max(worstLRA, math.Abs(dLRA))
				}
			})
		}
	})
	t.Logf("%d cases; largest differences from ffmpeg: integrated %.3f LU, true peak %.3f dB, loudness range %.3f LU",
		len(cases), worstI, worstTP, worstLRA)
}
