package core

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// shareFixture is a core on a manual clock with charging off, whose workspaces reserve uploads.
type shareFixture struct {
	t *testing.T
	c *Core
}

func newShareFixture(t *testing.T, share, budget int64) shareFixture {
	t.Helper()
	c := New(newWorldClock(), newWorld().deps(0))
	t.Cleanup(c.Close)
	c.SetUploadShare(share)
	c.SetUploadBudget(budget)
	return shareFixture{t: t, c: c}
}

// workspace makes a workspace and returns a principal of it.
func (f shareFixture) workspace(name string) Principal {
	f.t.Helper()
	off := false
	ws, err := f.c.CreateWorkspace(NewWorkspace{Type: Personal, Name: name, ChargingEnabled: &off})
	if err != nil {
		f.t.Fatal(err)
	}
	_, key := mustKey(f.t, f.c, ws.ID, false)
	p, err := f.c.Authenticate(key)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f shareFixture) reserve(p Principal) uuid.UUID {
	f.t.Helper()
	res, err := f.c.Reserve(p, "episode.wav", "audio/wav", 60_000)
	if err != nil {
		f.t.Fatal(err)
	}
	return res.ID
}

// audioOf is the audio a reservation holds.
func (f shareFixture) audioOf(id uuid.UUID) []byte {
	f.t.Helper()
	res, ok := f.c.Reservation(id)
	if !ok {
		f.t.Fatalf("reservation %s is gone", id)
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, res.audio.reader()); err != nil {
		f.t.Fatal(err)
	}
	return b.Bytes()
}

func refusalCode(err error) (string, string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, e.Message
	}
	return "", ""
}

// TestUploadSharePerWorkspace: one workspace holds at most its share of the upload budget,
// whatever the budget leaves; past it a PUT is 507 insufficient_storage naming the share and
// what frees it, and nothing changes (the audio held stays as it was, the counts too); another
// workspace still uploads up to its own share, until the budget across workspaces is full.
func TestUploadSharePerWorkspace(t *testing.T) {
	t.Parallel()
	const share, budget = 100 << 10, 250 << 10
	f := newShareFixture(t, share, budget)
	a, b, c := f.workspace("A"), f.workspace("B"), f.workspace("C")
	put := func(id uuid.UUID, n int) error {
		return f.c.ReceiveUpload(id, bytes.NewReader(bytes.Repeat([]byte{'x'}, n)), int64(n))
	}

	first := f.reserve(a)
	if err := put(first, 60<<10); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		who       Principal
		size      int
		code      string
		mentions  []string
		heldAfter int64 // the fake's held bytes after the PUT
	}{
		{"a second upload past A's share", a, 50 << 10, CodeInsufficientStorage, []string{"its share", "102400", "freed", "1h0m0s after the reservation"}, 60 << 10},
		{"A within its share", a, 40 << 10, "", nil, 100 << 10},
		{"one byte more for A", a, 1, CodeInsufficientStorage, []string{"holds 102400 bytes", "may hold 102400"}, 100 << 10},
		{"B is not shut out", b, 100 << 10, "", nil, 200 << 10},
		{"C past the budget across workspaces", c, 60 << 10, CodeInsufficientStorage, []string{"budget across workspaces is 256000", "each may hold 102400"}, 200 << 10},
		{"C within what the budget leaves", c, 50 << 10, "", nil, 250 << 10},
	}
	for _, tt := range tests {
		id := f.reserve(tt.who)
		err := put(id, tt.size)
		gotCode, msg := refusalCode(err)
		if gotCode != tt.code || (tt.code == "" && err != nil) {
			t.Fatalf("%s: %v, want code %q", tt.name, err, tt.code)
		}
		for _, m := range tt.mentions {
			if !strings.Contains(msg, m) {
				t.Errorf("%s: the refusal %q does not say %q", tt.name, msg, m)
			}
		}
		if got := f.c.HeldUploadBytes(); got != tt.heldAfter {
			t.Errorf("%s: the fake holds %d bytes, want %d", tt.name, got, tt.heldAfter)
		}
		if tt.code != "" && len(f.audioOf(id)) != 0 {
			t.Errorf("%s: a refused upload left audio on its reservation", tt.name)
		}
	}
	if got := f.c.WorkspaceUploadBytes(a.Workspace.ID); got != share {
		t.Fatalf("A holds %d bytes, want its share %d", got, share)
	}
	if got := len(f.audioOf(first)); got != 60<<10 {
		t.Fatalf("A's first upload holds %d bytes after the refusals, want %d", got, 60<<10)
	}
}

// TestRePutRefusedKeepsTheAudio: a second PUT to a reservation that the share cannot hold
// beside the first is refused and the first audio stays whole; one that fits replaces it, and
// the count is the new audio's alone.
func TestRePutRefusedKeepsTheAudio(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t, 100<<10, 1<<30)
	a := f.workspace("A")
	id := f.reserve(a)
	one := bytes.Repeat([]byte{'1'}, 60<<10)
	if err := f.c.ReceiveUpload(id, bytes.NewReader(one), int64(len(one))); err != nil {
		t.Fatal(err)
	}
	two := bytes.Repeat([]byte{'2'}, 50<<10)
	if code, _ := refusalCode(f.c.ReceiveUpload(id, bytes.NewReader(two), int64(len(two)))); code != CodeInsufficientStorage {
		t.Fatalf("a re-PUT the share cannot hold beside the first: %q, want %s", code, CodeInsufficientStorage)
	}
	if !bytes.Equal(f.audioOf(id), one) {
		t.Fatal("the refused re-PUT changed the audio held")
	}
	three := bytes.Repeat([]byte{'3'}, 30<<10)
	if err := f.c.ReceiveUpload(id, bytes.NewReader(three), int64(len(three))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.audioOf(id), three) || f.c.WorkspaceUploadBytes(a.Workspace.ID) != int64(len(three)) {
		t.Fatalf("after a re-PUT: %d bytes of audio, %d held, want %d", len(f.audioOf(id)), f.c.WorkspaceUploadBytes(a.Workspace.ID), len(three))
	}
}

// stepReader hands out its bytes only when told to: each Read announces itself on reads and
// then returns what the test sends on feed (an error ends the body).
type stepReader struct {
	reads chan struct{}
	feed  chan []byte
	fail  chan error
}

func newStepReader() *stepReader {
	return &stepReader{reads: make(chan struct{}), feed: make(chan []byte), fail: make(chan error)}
}

func (r *stepReader) Read(p []byte) (int, error) {
	r.reads <- struct{}{}
	select {
	case b := <-r.feed:
		return copy(p, b), nil
	case err := <-r.fail:
		return 0, err
	}
}

// TestUploadBudgetTakenAsBytesArrive: two PUTs that declare 512 MiB each (the whole budget
// between them) and send a kilobyte hold what they have been sent plus one chunk, not what
// they declared: another workspace's upload goes through meanwhile; when they break off,
// everything they held is given back. A third PUT of 512 MiB from a workspace already holding
// bytes is refused before its body is read, since its share could not hold it whole.
func TestUploadBudgetTakenAsBytesArrive(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t, DefaultUploadShare, DefaultUploadBudget)
	mallory, accomplice, other := f.workspace("Mallory"), f.workspace("Accomplice"), f.workspace("Other")
	type upload struct {
		body *stepReader
		done chan error
	}
	// wait is the next read of u's body; the upload must not end before it.
	wait := func(u upload) {
		t.Helper()
		select {
		case <-u.body.reads:
		case err := <-u.done:
			t.Fatalf("the upload ended before reading on: %v", err)
		}
	}
	var ups []upload
	for _, p := range []Principal{mallory, accomplice} {
		u := upload{body: newStepReader(), done: make(chan error, 1)}
		id := f.reserve(p)
		go func() { u.done <- f.c.ReceiveUpload(id, u.body, MaxUploadBytes) }()
		wait(u)
		u.body.feed <- make([]byte, 1<<10)
		wait(u) // it waits for more: everything it takes is taken by now
		ups = append(ups, u)
	}
	if got, most := f.c.HeldUploadBytes(), int64(2*uploadChunkMin); got > most {
		t.Fatalf("two uploads that sent 1 KiB each hold %d bytes, more than %d", got, most)
	}
	id := f.reserve(other)
	small := bytes.Repeat([]byte{'a'}, 1<<10)
	if err := f.c.ReceiveUpload(id, bytes.NewReader(small), int64(len(small))); err != nil {
		t.Fatalf("another workspace's 1 KiB upload beside two trickling 512 MiB PUTs: %v", err)
	}
	read := false
	again := f.c.ReceiveUpload(f.reserve(mallory), readFunc(func([]byte) (int, error) { read = true; return 0, io.EOF }), MaxUploadBytes)
	if code, msg := refusalCode(again); code != CodeInsufficientStorage || read || !strings.Contains(msg, "its share") {
		t.Fatalf("a second 512 MiB PUT of one workspace: %s %q (body read: %v), want it refused before its body is read", code, msg, read)
	}
	for _, u := range ups {
		u.body.fail <- io.ErrUnexpectedEOF
		if code, msg := refusalCode(<-u.done); code != CodeValidation || !strings.Contains(msg, "ended after 1024 of its 536870912 bytes") {
			t.Fatalf("a body broken off: %s %q", code, msg)
		}
	}
	for _, p := range []Principal{mallory, accomplice} {
		if got := f.c.WorkspaceUploadBytes(p.Workspace.ID); got != 0 {
			t.Fatalf("the broken-off uploads still hold %d bytes", got)
		}
	}
	if got := f.c.HeldUploadBytes(); got != int64(len(small)) {
		t.Fatalf("the fake holds %d bytes, want the other workspace's %d", got, len(small))
	}
}

// TestUploadChunksFollowTheBytes: while a large upload arrives, what it holds never runs more
// than one chunk ahead of what was sent, and the chunks end up holding the bytes exactly.
func TestUploadChunksFollowTheBytes(t *testing.T) {
	t.Parallel()
	f := newShareFixture(t, DefaultUploadShare, DefaultUploadBudget)
	a := f.workspace("A")
	id := f.reserve(a)
	const size = 3<<20 + 5
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i * 7)
	}
	var sent int64
	body := readFunc(func(p []byte) (int, error) {
		ahead := f.c.HeldUploadBytes() - sent
		if ahead > min(uploadChunkMax, sent+uploadChunkMin) {
			return 0, errors.New("the upload holds too far ahead of its bytes")
		}
		n := copy(p, want[sent:min(sent+10_000, size)])
		sent += int64(n)
		return n, nil
	})
	if err := f.c.ReceiveUpload(id, body, size); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.audioOf(id), want) {
		t.Fatal("the audio held is not the bytes sent")
	}
	if got := f.c.HeldUploadBytes(); got != size {
		t.Fatalf("held %d, want %d", got, size)
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// TestSlowUploadsAreCut: an upload that averages under MinUploadRate once past UploadGrace,
// counted in the time spent waiting for its bytes (an injected clock, never the wall's), is
// cut with a validation error saying why, and holds nothing after.
func TestSlowUploadsAreCut(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		reading time.Duration
		read    int64
		cut     bool
	}{
		{"within the grace", UploadGrace, 0, false},
		{"at the rate", UploadGrace + 10*time.Second, 10 * MinUploadRate, false},
		{"under the rate", UploadGrace + 10*time.Second, 10*MinUploadRate - 1, true},
		{"a byte every 20 s for an hour", time.Hour, 180, true},
	}
	for _, tt := range tests {
		p := &pacedReader{r: strings.NewReader("x"), now: func() time.Time { return t0 }, reading: tt.reading, read: tt.read}
		_, err := p.Read(make([]byte, 1))
		if cut := errors.Is(err, errUploadTooSlow); cut != tt.cut {
			t.Errorf("%s: cut %v, want %v", tt.name, cut, tt.cut)
		}
	}

	f := newShareFixture(t, DefaultUploadShare, DefaultUploadBudget)
	slowFake := false
	now, between := t0, false
	f.c.uploadNow = func() time.Time {
		// Read asks the time before and after each read of the body; with slowFake set, an
		// hour passes before each read: the fake's own time between reads, not the client's.
		if between = !between; between && slowFake {
			now = now.Add(time.Hour)
		}
		return now
	}
	a := f.workspace("A")
	slowFake = true
	const size = 64 << 10
	var sent int
	err := f.c.ReceiveUpload(f.reserve(a), readFunc(func(p []byte) (int, error) {
		n := copy(p, make([]byte, min(len(p), size-sent, 4096)))
		sent += n
		return n, nil
	}), size)
	if err != nil {
		t.Fatalf("an upload cut for the fake's own time: %v", err)
	}
	// A client that sends a byte every 20 s is cut once past the grace.
	slowFake = false
	trickle := f.reserve(a)
	err = f.c.ReceiveUpload(trickle, readFunc(func(p []byte) (int, error) {
		now = now.Add(20 * time.Second)
		p[0] = 'x'
		return 1, nil
	}), 1<<20)
	code, msg := refusalCode(err)
	if code != CodeValidation || !strings.Contains(msg, "slower than 8192 bytes a second") || !strings.Contains(msg, "cut after 4 of its") {
		t.Fatalf("a trickle: %s %q", code, msg)
	}
	if got := f.c.WorkspaceUploadBytes(a.Workspace.ID); got != size {
		t.Fatalf("after the trickle was cut the workspace holds %d bytes, want the first upload's %d", got, size)
	}
}

// TestUnusedUploadAudioIsFreed: the audio of a reservation no report is made from counts
// against its own workspace only and is freed UploadAudioLifetime after the reservation; the
// reservation lives on, and a report made from it later fails saying the audio was freed (and
// is not charged). Audio made into a report in time is measured as usual.
func TestUnusedUploadAudioIsFreed(t *testing.T) {
	t.Parallel()
	w := newWorld()
	w.measures["RIFF-audio"] = Measurement{Duration: time.Minute, Channels: 2, SampleRate: 48000, IntegratedLUFS: -16, TruePeakDB: -2, Size: 10}
	c := New(newWorldClock(), w.deps(0))
	t.Cleanup(c.Close)
	f := shareFixture{t: t, c: c}
	a, b := f.workspace("A"), f.workspace("B")
	unused, used := f.reserve(a), f.reserve(a)
	for _, id := range []uuid.UUID{unused, used} {
		if err := c.ReceiveUpload(id, strings.NewReader("RIFF-audio"), 10); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.WorkspaceUploadBytes(b.Workspace.ID); got != 0 {
		t.Fatalf("B holds %d bytes of A's uploads", got)
	}
	if _, err := c.Clock().Advance(UploadAudioLifetime - time.Second); err != nil {
		t.Fatal(err)
	}
	if got := c.WorkspaceUploadBytes(a.Workspace.ID); got != 20 {
		t.Fatalf("A holds %d bytes before the audio's lifetime ends, want 20", got)
	}
	inTime, _, err := c.CreateReportFromUpload(a, used, "episode.wav", 60_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Clock().Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	if got := c.HeldUploadBytes(); got != 0 {
		t.Fatalf("the fake holds %d bytes once the unused audio's lifetime ended and the other was measured", got)
	}
	if _, ok := c.Reservation(unused); !ok {
		t.Fatal("the reservation went with its audio")
	}
	late, _, err := c.CreateReportFromUpload(a, unused, "episode.wav", 60_000)
	if err != nil {
		t.Fatalf("a report from the reservation after its audio was freed: %v", err)
	}
	if _, err := c.Clock().Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetReport(a, late.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusFailed || !strings.Contains(got.FailureReason, "freed 1h0m0s after the upload was reserved") {
		t.Fatalf("the late report: %s %q, want FAILED saying the audio was freed", got.Status, got.FailureReason)
	}
	if ok, err := c.GetReport(a, inTime.ID); err != nil || ok.Status != StatusComplete {
		t.Fatalf("the report made in time: %v %v", ok.Status, err)
	}
}
