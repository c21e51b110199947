// Command blockstats summarises decoded audio for the decoder tests (see ../gen.sh): it reads
// interleaved float64 samples on standard input and prints one JSON line with the RMS and peak
// of every block of 576 samples of each channel, and the given number of samples per channel of
// ffmpeg's ordinary (trimmed) decode. With -merge it reads such lines and prints
// them as one JSON object keyed by file name.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/podqa/podqa-go/fakeserver/internal/blockref"
)

// fileStats is what the tests compare: per block, per channel, [RMS, peak].
type fileStats struct {
	Name string `json:"name"`
	blockref.Stats
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-merge" {
		all := map[string]fileStats{}
		dec := json.NewDecoder(os.Stdin)
		for {
			var s fileStats
			if err := dec.Decode(&s); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				fail(err)
			}
			all[s.Name] = s
		}
		// One file per line, in name order, so that a change shows as a changed line.
		names := slices.Sorted(maps.Keys(all))
		fmt.Println("{")
		for i, name := range names {
			key, _ := json.Marshal(name)
			val, err := json.Marshal(all[name])
			if err != nil {
				fail(err)
			}
			sep := ","
			if i == len(names)-1 {
				sep = ""
			}
			fmt.Printf("%s: %s%s\n", key, val, sep)
		}
		fmt.Println("}")
		return
	}
	if len(os.Args) != 4 {
		fail(errors.New("usage: blockstats name channels trimmed-samples < f64le, or blockstats -merge"))
	}
	trimmed, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail(fmt.Errorf("trimmed samples %q", os.Args[3]))
	}
	ch, err := strconv.Atoi(os.Args[2])
	if err != nil || ch < 1 {
		fail(fmt.Errorf("channels %q", os.Args[2]))
	}
	raw, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fail(err)
	}
	pcm := make([]float64, len(raw)/8)
	for i := range pcm {
		pcm[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	s := fileStats{Name: os.Args[1], Stats: blockref.Stats{Channels: ch, Samples: len(pcm) / ch, Trimmed: trimmed}}
	s.Blocks = blockref.Summarise(pcm, ch)
	for _, block := range s.Blocks {
		for c := range block {
			block[c] = [2]float64{round(block[c][0]), round(block[c][1])}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(s); err != nil {
		fail(err)
	}
}

func round(v float64) float64 { return math.Round(v*1e7) / 1e7 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "blockstats:", err)
	os.Exit(1)
}
