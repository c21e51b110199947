// Command measure prints what the fake's audio engine measures in a file: format, duration,
// loudness, true peak and tags, as JSON. It exists to time the engine against ffmpeg (see
// internal/audio/testdata/bench/bench.sh) and to inspect files by hand.
//
// Usage:
//
//	measure [-workers n] [-cpuprofile file] file
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

func main() {
	os.Exit(measureMain())
}

// measureMain is main returning its exit status, so that deferred calls run before the exit.
func measureMain() int {
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "goroutines decoding in parallel")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measurement to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: measure [-workers n] [-cpuprofile file] file")
		return 2
	}
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			return 1
		}
		defer stop()
	}
	if err := run(flag.Arg(0), *workers); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		return 1
	}
	return 0
}

// startProfile starts a CPU profile written to name and returns the function that ends it.
func startProfile(name string) (func(), error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
		}
	}, nil
}

func run(name string, workers int) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := audio.MeasureFile(f, name, audio.WithWorkers(workers))
	if err != nil {
		return err
	}
	num := func(v float64) any {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
		return math.Round(v*1000) / 1000
	}
	out := map[string]any{
		"format": m.FormatName, "codec": m.CodecName, "channels": m.Channels,
		"sample_rate": m.SampleRate, "duration_s": m.Duration.Seconds(), "frames": m.Frames,
		"bit_rate": m.BitRate, "size": m.Size, "integrated_lufs": num(m.IntegratedLUFS),
		"true_peak_db": num(m.TruePeakDB), "sample_peak_db": num(m.SamplePeakDB),
		"loudness_range": num(m.LoudnessRange), "tags": m.Tags,
	}
	if m.Cover != nil {
		out["cover"] = map[string]any{"mime": m.Cover.MIMEType, "width": m.Cover.Width, "height": m.Cover.Height, "bytes": len(m.Cover.Data)}
	}
	if err != nil {
		out["error"] = err.Error()
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
