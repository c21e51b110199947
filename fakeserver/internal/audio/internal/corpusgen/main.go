// Command corpusgen writes the loudness accuracy corpus (package corpus) as WAV files, one per
// case, named after the case, for internal/audio/testdata/refs/gen.sh to measure with ffmpeg.
//
// Usage:
//
//	go run ./internal/audio/internal/corpusgen -out DIR
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/podqa/podqa-go/fakeserver/internal/audio/internal/corpus"
)

func main() {
	out := flag.String("out", "", "directory to write the WAV files to (created if missing)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: corpusgen -out DIR")
		os.Exit(2)
	}
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
}

// write writes every case to dir.
func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range corpus.Cases() {
		f, err := os.Create(filepath.Join(dir, c.Name+".wav"))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		err = c.WriteWAV(w)
		err = errors.Join(err, w.Flush(), f.Close())
		if err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
	}
	return nil
}
