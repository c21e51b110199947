package runreport

import (
	"sync"
	"time"
)

// Reporter is one fake's run report: the dir it is written into, the run's id, and one write at
// a time, so that a write asked over the control API and the one of the fake's stop never
// interleave their gathering and their files.
type Reporter struct {
	dir   string
	runID string
	mu    sync.Mutex
}

// Written says where a run report was written and the fake-clock instant it was written at.
type Written struct {
	RunID     string
	Files     Files
	WrittenAt time.Time
}

// NewReporter prepares dir (PrepareDir) for the run started at started; name, when not empty
// (a test's), begins the run id (NewLabelledRunID).
func NewReporter(dir, name string, started time.Time) (*Reporter, error) {
	if err := PrepareDir(dir); err != nil {
		return nil, err
	}
	return &Reporter{dir: dir, runID: NewLabelledRunID(name, started)}, nil
}

// RunID names the run; every write of one run uses the same two files.
func (p *Reporter) RunID() string { return p.runID }

// Dir is where the run's report is written.
func (p *Reporter) Dir() string { return p.dir }

// Files are the paths every write of the run replaces.
func (p *Reporter) Files() Files { return FilesFor(p.dir, p.runID) }

// Write writes the run gather returns now, for reason, into the reporter's dir, after any
// write under way; it returns the run written and its files.
func (p *Reporter) Write(reason string, gather func() *Run) (*Run, Files, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return WriteAs(p.dir, p.runID, reason, gather)
}

// WriteAs writes the run gather returns now into dir as run id runID, for reason: the one
// write of the run report, for a Reporter and for a report written elsewhere (a failed test's).
func WriteAs(dir, runID, reason string, gather func() *Run) (*Run, Files, error) {
	run := gather()
	run.RunID, run.Reason = runID, reason
	files, err := Write(dir, run)
	return run, files, err
}
