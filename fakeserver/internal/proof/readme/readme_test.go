package readmetest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The README's tour is the section from this heading to the next "## ".
const tourHeading = "## A five-minute tour"

// Markers, as an HTML comment on the line before a fenced block (invisible on GitHub):
//
//	<!-- readme-test: background -->  every command of the sh block runs in the background, as in
//	                                   a terminal of its own; its shown output is awaited before
//	                                   the tour goes on, and it is stopped with SIGINT (Ctrl-C) at
//	                                   the end, where it must exit 0
//	<!-- readme-test: later -->        the text block's lines appear, in order, in the output of
//	                                   the newest background command (awaited)
//
// and, in controlDoc, for the control API's calls that run after the tour:
//
//	<!-- readme-test: control-program -->  the fake the calls need, started as a background block
//	<!-- readme-test: control -->          the calls: every such block, in order, as one bash
//	                                       script that stops at the first failing command or
//	                                       HTTP error answer; it runs twice in a row
const markerPrefix = "<!-- readme-test: "

// controlDoc is the page, beside the README, that holds the control API's calls.
const controlDoc = "docs/fakeserver.md"

// block is one fenced code block of the tour.
type block struct {
	lang, marker string
	file         string // relative to the repository's root
	line         int    // of the opening fence, 1-based
	body         []string
}

// command is one shell command of an sh block and the output the README shows after it.
type command struct {
	text string
	file string
	line int
	want []string
}

func tourBlocks(t *testing.T) []block {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	var blocks []block
	in, inTour := false, false
	marker := ""
	var cur block
	for i, l := range lines {
		switch {
		case in && l == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur.body = append(cur.body, l)
		case l == tourHeading:
			inTour = true
		case inTour && strings.HasPrefix(l, "## "):
			return blocks
		case inTour && strings.HasPrefix(l, markerPrefix):
			marker = strings.TrimSuffix(strings.TrimPrefix(l, markerPrefix), " -->")
		case inTour && strings.HasPrefix(l, "```"):
			in = true
			cur = block{lang: strings.TrimPrefix(l, "```"), marker: marker, file: "README.md", line: i + 1}
			marker = ""
		}
	}
	if !inTour {
		t.Fatalf("README.md has no %q section", tourHeading)
	}
	return blocks
}

// markedBlocks returns the fenced blocks of file (relative to the repository's root) marked
// with marker, in order; the marker "" returns the unmarked ones.
func markedBlocks(t *testing.T, file, marker string) []block {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	in, marked := false, ""
	var cur block
	for i, l := range strings.Split(string(raw), "\n") {
		switch {
		case in && l == "```":
			in = false
			if cur.marker == marker {
				blocks = append(blocks, cur)
			}
		case in:
			cur.body = append(cur.body, l)
		case strings.HasPrefix(l, markerPrefix):
			marked = strings.TrimSuffix(strings.TrimPrefix(l, markerPrefix), " -->")
		case strings.HasPrefix(l, "```"):
			in = true
			cur = block{lang: strings.TrimPrefix(l, "```"), marker: marked, file: file, line: i + 1}
			marked = ""
		}
	}
	return blocks
}

// commands splits an sh block into commands (joining backslash continuations); the whole-line
// comments after a command are the output the README shows for it ("# " removed).
func (b block) commands() []command {
	var cmds []command
	for i := 0; i < len(b.body); i++ {
		l := b.body[i]
		switch {
		case strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "#"):
			if len(cmds) > 0 {
				cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
			}
		default:
			c := command{text: l, file: b.file, line: b.line + 1 + i}
			for strings.HasSuffix(c.text, `\`) && i+1 < len(b.body) {
				i++
				c.text += "\n" + b.body[i]
			}
			cmds = append(cmds, c)
		}
	}
	return cmds
}

var port = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)

// lineMatches reports whether got matches want, where "…" in want stands for any text and any
// loopback port is the same port (the test's servers listen on free ports).
func lineMatches(want, got string) bool {
	want = port.ReplaceAllString(want, "127.0.0.1:PORT")
	got = port.ReplaceAllString(strings.TrimRight(got, " "), "127.0.0.1:PORT")
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(got)
}

// linesMatch reports whether got is exactly want, line by line; a want line "…" stands for any
// number of lines.
func linesMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(got); i++ {
			if linesMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(want[0], got[0]) && linesMatch(want[1:], got[1:])
}

// containsInOrder reports whether the want lines appear in got in order (other lines between).
func containsInOrder(want, got []string) bool {
	for _, g := range got {
		if len(want) > 0 && lineMatches(want[0], g) {
			want = want[1:]
		}
	}
	return len(want) == 0
}

// tour is a run of the tour: built binaries, a scratch working directory and the shell state
// carried from one command to the next.
type tour struct {
	t            *testing.T
	dir, prelude string
	env          []string
	bg           []*background
}

// prelude loads the state of the previous commands and maps `go run ./examples/X` and
// `go run ./fakeserver/cmd/fakeserver` to the binaries built once, run from a scratch directory.
// Servers get -addr 127.0.0.1:0, as CI shares the machine; outputs are compared port-blind. A
// background command's program replaces its shell ($EXEC), so that the kill-on-parent-death
// signal reaches the program itself if the test binary dies without cleaning up.
const preludeScript = `set -a
mode=$EXEC
[ -f "$STATE" ] && . "$STATE"
EXEC=$mode
go() {
  if [ "$1" != run ]; then command go "$@"; return; fi
  shift
  case "$1" in
  ./fakeserver/cmd/fakeserver) shift; $EXEC "$BIN/fakeserver" -addr 127.0.0.1:0 "$@" ;;
  ./examples/webhook-receiver) shift; $EXEC "$BIN/webhook-receiver" -addr 127.0.0.1:0 "$@" ;;
  ./examples/*) p=${1#./examples/}; shift; $EXEC "$BIN/$p" "$@" ;;
  *) echo "readmetest: no binary for go run $1" >&2; return 127 ;;
  esac
}
`

func newTour(t *testing.T) *tour {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("the tour's sh blocks run in bash: %v", err)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("the tour uses curl: %v", err)
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./examples/...", "./fakeserver/cmd/fakeserver")
	build.Dir = filepath.Join("..", "..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tr := &tour{t: t, dir: filepath.Join(root, "work"), prelude: filepath.Join(root, "prelude.sh")}
	if err := os.Mkdir(tr.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr.prelude, []byte(preludeScript), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PODQA_") {
			tr.env = append(tr.env, kv)
		}
	}
	// mktemp in the tour makes its directories here, removed with the test's.
	tr.env = append(tr.env, "BIN="+bin, "STATE="+filepath.Join(root, "state.sh"), "BASH="+bash, "TMPDIR="+root)
	t.Cleanup(tr.stopAll)
	return tr
}

func (tr *tour) shell(ctx context.Context, script string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-c", ". \"$PRELUDE\"\n"+script)
	cmd.Dir = tr.dir
	cmd.Env = slices.Concat(tr.env, []string{"PRELUDE=" + tr.prelude, "EXEC="}, env)
	// Its own process group, so that Ctrl-C and kills reach everything it started; killed if
	// the test binary dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// run runs a foreground command and compares its output with the README's.
func (tr *tour) run(c command) {
	t := tr.t
	// A watchdog that turns a hang into a failure: a cold `go run` on a busy machine takes
	// minutes, so it never decides a run that works.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	// The state (every variable, exported by set -a) is saved for the next command.
	cmd := tr.shell(ctx, c.text+"\nrc=$?\nexport -p > \"$STATE\"\nexit $rc")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s:%d: %s\n%v\nstdout:\n%s\nstderr:\n%s", c.file, c.line, c.text, err, stdout.String(), stderr.String())
	}
	got := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	if stdout.Len() == 0 {
		got = nil
	}
	if len(c.want) > 0 && !linesMatch(c.want, got) {
		t.Fatalf("%s:%d: %s\nshows:\n%s\nprinted:\n%s\nstderr:\n%s", c.file, c.line, c.text, strings.Join(c.want, "\n"), stdout.String(), stderr.String())
	}
}

// controlScript is the prelude of the control API's calls: the first failing command ends the
// script, and curl fails on an HTTP error answer (a 409 of a call made twice, a 404 of an empty
// id), which a reader's terminal would only print.
const controlScript = `set -e -o pipefail
curl() { command curl --fail-with-body "$@"; }
`

// runScript runs blocks as one bash script, which fails the test if it fails.
func (tr *tour) runScript(blocks []block, run int) {
	t := tr.t
	var script strings.Builder
	script.WriteString(controlScript)
	for _, b := range blocks {
		script.WriteString(strings.Join(b.body, "\n") + "\n")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a watchdog: the calls take well under a second
	defer cancel()
	cmd := tr.shell(ctx, script.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s:%d: the control API's calls, run %d: %v\nstdout:\n%s\nstderr:\n%s", blocks[0].file, blocks[0].line, run, err, stdout.String(), stderr.String())
	}
}

// background is a command of a background block.
type background struct {
	c     command
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	more  chan struct{} // signalled at each new line and at EOF
	eof   bool
	done  chan error
}

func (b *background) snapshot() ([]string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.lines...), b.eof
}

// await waits until ok holds for the command's output so far. Its deadline is a watchdog
// minutes long (a cold `go run` of the fake compiles for a minute or more on a busy machine).
func (tr *tour) await(b *background, what string, ok func([]string) bool) {
	deadline := time.NewTimer(5 * time.Minute)
	defer deadline.Stop()
	for {
		lines, eof := b.snapshot()
		if ok(lines) {
			return
		}
		if eof {
			tr.t.Fatalf("%s:%d: %s ended before printing %s; it printed:\n%s", b.c.file, b.c.line, b.c.text, what, strings.Join(lines, "\n"))
		}
		select {
		case <-b.more:
		case <-deadline.C:
			tr.t.Fatalf("%s:%d: %s did not print %s within 5 minutes; it printed:\n%s", b.c.file, b.c.line, b.c.text, what, strings.Join(lines, "\n"))
		}
	}
}

// start starts a background command and waits for the output the README shows for it.
func (tr *tour) start(c command) {
	cmd := tr.shell(context.Background(), c.text, "EXEC=exec")
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b := &background{c: c, cmd: cmd, more: make(chan struct{}, 1), done: make(chan error, 1)}
	if err := cmd.Start(); err != nil {
		tr.t.Fatal(err)
	}
	tr.bg = append(tr.bg, b)
	go func() {
		err := cmd.Wait()
		pw.Close()
		b.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			b.mu.Lock()
			b.lines = append(b.lines, sc.Text())
			b.mu.Unlock()
			select {
			case b.more <- struct{}{}:
			default:
			}
		}
		b.mu.Lock()
		b.eof = true
		b.mu.Unlock()
		select {
		case b.more <- struct{}{}:
		default:
		}
	}()
	tr.await(b, "what the README shows", func(got []string) bool {
		return len(got) >= len(c.want) && linesMatch(c.want, got[:len(c.want)])
	})
}

// stopAll stops the background commands, newest first, with SIGINT as Ctrl-C would, and kills
// what does not stop.
func (tr *tour) stopAll() {
	for i := len(tr.bg) - 1; i >= 0; i-- {
		b := tr.bg[i]
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGINT)
		select {
		case err := <-b.done:
			if err != nil && !tr.t.Failed() {
				lines, _ := b.snapshot()
				tr.t.Errorf("%s:%d: %s did not stop cleanly on Ctrl-C: %v\n%s", b.c.file, b.c.line, b.c.text, err, strings.Join(lines, "\n"))
			}
		case <-time.After(2 * time.Minute): // a watchdog: only a hang fails it
			_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
			<-b.done
			tr.t.Errorf("%s:%d: %s ignored Ctrl-C for 2 minutes", b.c.file, b.c.line, b.c.text)
		}
	}
	tr.bg = nil
}

// TestTour runs the README's tour as a reader would, in order, and fails when a command fails or
// prints other than what the README shows.
func TestTour(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the tour builds and runs the fake and every command: -short skips it, the full suite (CI) runs it")
	}
	blocks := tourBlocks(t)
	tr := newTour(t)
	ran := 0
	for _, b := range blocks {
		switch {
		case b.lang == "sh" && b.marker == "background":
			for _, c := range b.commands() {
				tr.start(c)
				ran++
			}
		case b.lang == "sh":
			for _, c := range b.commands() {
				tr.run(c)
				ran++
			}
		case b.marker == "later":
			if len(tr.bg) == 0 {
				t.Fatalf("README.md:%d: a later block with no background command before it", b.line)
			}
			want := b.body
			tr.await(tr.bg[len(tr.bg)-1], strings.Join(want, "\n"), func(got []string) bool { return containsInOrder(want, got) })
		}
	}
	tr.stopAll()
	if ran < 8 {
		t.Fatalf("ran only %d commands of the tour: is the README's tour still there?", ran)
	}
	tr.leftNothing("the tour")

	// The control API's calls, against the fake the README starts for them (the tour's is
	// stopped, as it writes the same env file), twice in a row: they must run again as they are.
	programs, calls := markedBlocks(t, controlDoc, "control-program"), markedBlocks(t, controlDoc, "control")
	if len(programs) != 1 || len(calls) < 2 {
		t.Fatalf("%s has %d control-program and %d control blocks; want 1 and at least 2", controlDoc, len(programs), len(calls))
	}
	for _, c := range programs[0].commands() {
		tr.start(c)
	}
	for run := 1; run <= 2; run++ {
		tr.runScript(calls, run)
	}
	tr.stopAll()
	tr.leftNothing("the control API's calls")
}

// leftNothing fails the test if what ran left a file in the directory it ran in, which stands
// for the reader's clone: the tour writes its files into a directory of its own (mktemp -d),
// and the fake removes its -env-file when it stops.
func (tr *tour) leftNothing(what string) {
	entries, err := os.ReadDir(tr.dir)
	if err != nil {
		tr.t.Fatal(err)
	}
	for _, e := range entries {
		tr.t.Errorf("%s left %s in the directory it ran in (a reader's clone)", what, e.Name())
	}
}

// TestMatching pins the placeholder rules the tour's outputs rely on.
func TestMatching(t *testing.T) {
	t.Parallel()
	tests := []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"workspace: Demo (personal, …)"}, []string{"workspace: Demo (personal, 1a2b)"}, true},
		{[]string{"workspace: Demo (personal, …)"}, []string{"workspace: Acme (personal, 1a2b)"}, false},
		{[]string{"a", "…", "z"}, []string{"a", "b", "c", "z"}, true},
		{[]string{"a", "…"}, []string{"a"}, true},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{`{"url":"http://127.0.0.1:8080/x"}`}, []string{`{"url":"http://127.0.0.1:40123/x"}`}, true},
		{[]string{"a.b"}, []string{"axb"}, false},
	}
	for _, tt := range tests {
		if got := linesMatch(tt.want, tt.got); got != tt.ok {
			t.Errorf("linesMatch(%q, %q) = %v", tt.want, tt.got, got)
		}
	}
}
