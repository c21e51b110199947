package runreport

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// FilePrefix begins the name of every file a run report writes.
const FilePrefix = "podqa-fake-report-"

// NewRunID names a run: the wall-clock instant the fake started, in UTC to the second, and four
// random bytes, so that runs started in the same second (parallel CI jobs, tests) do not write
// over each other's files. It draws from crypto/rand, never from the fake's seeded source, whose
// sequence a seeded suite depends on.
func NewRunID(started time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return started.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Files are the paths a run report was written to.
type Files struct {
	JSON string `json:"json"`
	HTML string `json:"html"`
}

// FilesFor names the two files of run id in dir: podqa-fake-report-<id>.json and .html. Every
// write of one run replaces that run's two files.
func FilesFor(dir, runID string) Files {
	base := filepath.Join(dir, FilePrefix+runID)
	return Files{JSON: base + ".json", HTML: base + ".html"}
}

// PrepareDir makes dir (and its parents) if it is missing and proves that files can be made and
// removed in it, so that a fake told to write there fails at its start rather than at its stop.
func PrepareDir(dir string) error {
	if dir == "" {
		return errors.New("the report dir is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("the report dir %s cannot be made: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".podqa-fake-report-probe-*")
	if err != nil {
		return fmt.Errorf("the report dir %s cannot be written: %w", dir, err)
	}
	name := f.Name()
	err = errors.Join(f.Close(), os.Remove(name))
	if err != nil {
		return fmt.Errorf("the report dir %s cannot be written: %w", dir, err)
	}
	return nil
}

// Write writes r into dir as its two files, JSON first, each atomically: into a temporary file
// in dir, then renamed over the old one, so that a reader never sees half a report. The files
// are not synced: a report outlives the fake, not a crash of the machine, and syncing 30 MiB
// costs more than writing it on a busy CI disk.
// r.Summary must be filled (Summarize).
func Write(dir string, r *Run) (Files, error) {
	files := FilesFor(dir, r.RunID)
	if err := writeAtomic(files.JSON, func(w io.Writer) error { return WriteJSON(w, r) }); err != nil {
		return Files{}, err
	}
	if err := writeAtomic(files.HTML, func(w io.Writer) error { return WriteHTML(w, r) }); err != nil {
		return Files{}, err
	}
	return files, nil
}

// writeAtomic writes name through fill by way of a temporary file beside it.
func writeAtomic(name string, fill func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), ".podqa-fake-report-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", name, err)
		}
	}()
	buf := bufio.NewWriterSize(f, 256<<10)
	if err := fill(buf); err != nil {
		return err
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
