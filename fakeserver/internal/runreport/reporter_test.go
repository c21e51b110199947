package runreport

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestReporterWritesOneRunAtATime: a reporter names its run after the test, writes every
// write of the run to the same two files with the reason asked, and runs one write at a time
// (gather included); WriteAs writes elsewhere under another run id; a dir that cannot be made
// is refused at the start.
func TestReporterWritesOneRunAtATime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := NewReporter(dir, "TestThing/sub", testStart)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.RunID(), "TestThing-sub-") || p.Dir() != dir {
		t.Fatalf("run id %q, dir %q", p.RunID(), p.Dir())
	}
	var mu sync.Mutex
	inside, most := 0, 0
	gather := func() *Run {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		r := sampleRun(1, 1, "text", 10, 2)
		Summarize(r)
		mu.Lock()
		inside--
		mu.Unlock()
		return r
	}
	var wg sync.WaitGroup
	for _, reason := range []string{ReasonRequest, ReasonRequest, ReasonStop} {
		wg.Go(func() {
			run, files, err := p.Write(reason, gather)
			if err != nil {
				t.Error(err)
				return
			}
			if run.RunID != p.RunID() || run.Reason != reason || files != p.Files() {
				t.Errorf("wrote run %q (%q) to %+v, want %q (%q) to %+v", run.RunID, run.Reason, files, p.RunID(), reason, p.Files())
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d gatherings at once, want 1", most)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, FilePrefix+"*")); len(names) != 2 {
		t.Errorf("files %v, want one JSON and one HTML", names)
	}
	other := t.TempDir()
	run, files, err := WriteAs(other, "elsewhere", ReasonStop, gather)
	if err != nil || run.RunID != "elsewhere" || files != FilesFor(other, "elsewhere") {
		t.Fatalf("WriteAs: %v, run %q, files %+v", err, run.RunID, files)
	}
	if _, err := os.Stat(files.HTML); err != nil {
		t.Error(err)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReporter(filepath.Join(blocker, "sub"), "", testStart); err == nil {
		t.Error("NewReporter under a file: no error")
	}
}
