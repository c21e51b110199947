package faults

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// armedFault is a fault in the list, with what decides and ends it.
type armedFault struct {
	Armed
	// seq is the fault's place among those armed since the last clear; with the seed it
	// decides the fault's pattern.
	seq uint64
	// ended is closed when the fault is removed or cleared (or the fake reset): what it
	// still slows down (a throttled body, a latency) goes on at full speed.
	ended chan struct{}
}

// Faults holds the armed faults. n mirrors len(armed) so that a fake with none armed pays one
// atomic load per request.
type Faults struct {
	n     atomic.Int32
	mu    sync.Mutex
	armed []*armedFault
	// newID mints fault ids from the fake's generator (see WithSeed).
	newID func() uuid.UUID
	seed  uint64
	seq   uint64
	// stop ends every fault's waiting when the fake closes.
	stop     chan struct{}
	stopOnce sync.Once
}

// New is an empty list of faults whose ids newID mints and whose patterns follow from seed when
// seeded (else from a random seed).
func New(seed uint64, seeded bool, newID func() uuid.UUID) *Faults {
	f := &Faults{newID: newID, seed: seed, stop: make(chan struct{})}
	if !seeded {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
		f.seed = binary.LittleEndian.Uint64(b[:])
	}
	return f
}

// add arms fault, which Arm has validated, and returns its id.
func (f *Faults) add(fault Fault) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	a := &armedFault{Armed: Armed{ID: f.newID().String(), Fault: fault}, seq: f.seq, ended: make(chan struct{})}
	f.armed = append(f.armed, a)
	f.n.Store(int32(len(f.armed)))
	return a.ID
}

// List is the armed faults in the order they were armed, with their counts.
func (f *Faults) List() []Armed {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Armed, len(f.armed))
	for i, a := range f.armed {
		out[i] = a.Armed
	}
	return out
}

// Remove disarms the fault with id; an unknown one is not_found.
func (f *Faults) Remove(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, a := range f.armed {
		if a.ID == id {
			f.removeLocked(i)
			close(a.ended)
			return nil
		}
	}
	return core.ErrNotFound("Fault")
}

func (f *Faults) removeLocked(i int) {
	f.armed = append(f.armed[:i], f.armed[i+1:]...)
	f.n.Store(int32(len(f.armed)))
}

// Clear disarms every fault; the seeded patterns of faults armed after it start afresh.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.armed {
		close(a.ended)
	}
	f.armed = nil
	f.seq = 0
	f.n.Store(0)
}

// Close ends every fault's waiting; the fake is closing.
func (f *Faults) Close() { f.stopOnce.Do(func() { close(f.stop) }) }

// Firing is what a fault does to one request.
type Firing struct {
	Fault
	// ID is the fault's.
	ID string
	// Delay is the latency this request gets, jitter drawn.
	Delay time.Duration
	ended <-chan struct{} // closed when the fault is removed
}

// take finds the first fault that fires on r, deciding from the seed, each fault's place and the
// match's number; nil lets r through untouched.
func (f *Faults) take(r *http.Request) *Firing {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, a := range f.armed {
		if (a.Method != "" && a.Method != r.Method) || !strings.HasPrefix(r.URL.Path, a.PathPrefix) {
			continue
		}
		a.Matches++
		if a.Matches <= a.After {
			continue
		}
		// One generator per match, so that each fault's pattern depends on nothing but the
		// seed, the fault's place and the match's number, whatever else runs concurrently.
		rng := mrand.New(mrand.NewPCG(f.seed^mix(a.seq), uint64(a.Matches)))
		if a.Probability != nil && rng.Float64() >= *a.Probability {
			continue
		}
		a.Fired++
		if a.Count > 0 && a.Fired >= a.Count {
			f.removeLocked(i)
		}
		delay := a.Latency
		if jitter := int(a.Jitter / time.Millisecond); jitter > 0 {
			delay += time.Duration(rng.IntN(2*jitter+1)-jitter) * time.Millisecond
		}
		return &Firing{Fault: a.Fault, ID: a.ID, Delay: delay, ended: a.ended}
	}
	return nil
}

// mix is SplitMix64's finaliser: it spreads a small number over all 64 bits.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// wait sleeps d of wall time, or until ended is closed (the fault was removed: the request goes
// on); false when the request ended or the fake is closing first.
func (f *Faults) wait(r *http.Request, d time.Duration, ended <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ended:
		return true
	case <-r.Context().Done():
		return false
	case <-f.stop:
		return false
	}
}

// Inject applies the armed faults to the requests next serves, telling fired of each fault
// that fires before it acts.
func (f *Faults) Inject(next http.Handler, fired func(*http.Request, *Firing)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.n.Load() == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if fire := f.take(r); fire != nil {
			httpmw.CallOf(r.Context()).MarkFault(fire.ID) // for the journal's entry
			fired(r, fire)
			f.apply(w, r, fire, next)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// apply does what fire says to one request.
func (f *Faults) apply(w http.ResponseWriter, r *http.Request, fire *Firing, next http.Handler) {
	if !f.wait(r, fire.Delay, fire.ended) {
		dropConnection(w, true)
		return
	}
	out := w
	if rate := fire.ThrottleBytesPerS; rate > 0 {
		t := throttle{rate: rate, f: f, r: r, ended: fire.ended}
		r.Body = &throttledBody{body: r.Body, t: t}
		out = &throttledWriter{w: w, t: t}
	}
	switch {
	case fire.Reset == ResetBeforeBody:
		dropConnection(w, true)
	case fire.Reset == ResetAfterBody:
		buf := make([]byte, 32<<10)
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
		dropConnection(w, true)
	case fire.Status != 0:
		writeFaultStatus(out, r, fire.Fault)
	case fire.TruncateAfterBytes != nil:
		tw := &truncatingWriter{w: out, limit: *fire.TruncateAfterBytes}
		next.ServeHTTP(tw, r)
		if tw.finish() {
			dropConnection(w, false)
		}
	default:
		next.ServeHTTP(out, r)
	}
}

// rateLimitedMessage is the message of the service's per-key minute limit, the one a client
// meets first.
const rateLimitedMessage = "Rate limit exceeded: 100 requests per minute per API key."

// writeFaultStatus answers a status fault as the service would: the API's errors in the shape of
// the call (the webhook subscription calls' flat one, elsewhere the REST envelope), the
// gateway's in plain text.
func writeFaultStatus(w http.ResponseWriter, r *http.Request, f Fault) {
	render := httpmw.WriteError
	if strings.HasPrefix(r.URL.Path, "/webhook/") {
		render = httpmw.WriteFlatError
	}
	switch f.Status {
	case http.StatusTooManyRequests:
		render(w, &httpmw.Error{Status: f.Status, Code: core.CodeRateLimited, Message: rateLimitedMessage, RetryAfter: f.RetryAfter})
	case http.StatusInternalServerError:
		render(w, &httpmw.Error{Status: f.Status, Code: core.CodeInternal, Message: "Internal error."})
	default:
		text := http.StatusText(f.Status)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(text)))
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(text))
	}
}

// dropConnection closes the request's connection without a further byte: abruptly (a TCP
// reset) when reset is set, else after sending what was written. Where the connection cannot be
// taken over (HTTP/2, a recorder), the handler aborts as net/http provides.
func dropConnection(w http.ResponseWriter, reset bool) {
	rc := http.NewResponseController(w)
	if !reset {
		_ = rc.Flush()
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok && reset {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// throttle paces bytes at rate a second until its fault ends.
type throttle struct {
	rate  int64
	f     *Faults
	r     *http.Request
	ended <-chan struct{}
}

// errThrottleStopped ends a throttled transfer whose request ended or whose fake closed.
var errThrottleStopped = errors.New("fakeserver: throttled transfer stopped")

// chunk is how many bytes go between two pauses: a twentieth of a second's worth.
func (t throttle) chunk() int {
	select {
	case <-t.ended:
		return 64 << 10
	default:
		return int(max(1, min(t.rate/20, 64<<10)))
	}
}

func (t throttle) pause(n int) error {
	if !t.f.wait(t.r, time.Duration(float64(n)/float64(t.rate)*float64(time.Second)), t.ended) {
		return errThrottleStopped
	}
	return nil
}

type throttledBody struct {
	body interface {
		Read([]byte) (int, error)
		Close() error
	}
	t throttle
}

func (b *throttledBody) Read(p []byte) (int, error) {
	if len(p) > b.t.chunk() {
		p = p[:b.t.chunk()]
	}
	n, err := b.body.Read(p)
	if n > 0 {
		if perr := b.t.pause(n); perr != nil {
			return n, perr
		}
	}
	return n, err
}

func (b *throttledBody) Close() error { return b.body.Close() }

// throttledWriter sends the body a chunk at a time, flushed, with pauses between.
type throttledWriter struct {
	w http.ResponseWriter
	t throttle
}

func (tw *throttledWriter) Header() http.Header { return tw.w.Header() }

func (tw *throttledWriter) WriteHeader(code int) { tw.w.WriteHeader(code) }

func (tw *throttledWriter) Unwrap() http.ResponseWriter { return tw.w }

func (tw *throttledWriter) Write(p []byte) (int, error) {
	rc := http.NewResponseController(tw.w)
	done := 0
	for done < len(p) {
		n, err := tw.w.Write(p[done:min(len(p), done+tw.t.chunk())])
		done += n
		if err != nil {
			return done, err
		}
		_ = rc.Flush()
		if err := tw.t.pause(n); err != nil {
			return done, err
		}
	}
	return done, nil
}

// MaxTruncateBuffer bounds the body a truncating fault holds to learn its length when the
// handler declares none; a longer body is cut in chunked encoding instead.
const MaxTruncateBuffer = 8 << 20

// errTruncated stops a handler whose answer has been cut.
var errTruncated = errors.New("fakeserver: the answer was cut by a fault")

// truncatingWriter passes the first limit bytes of a success answer's body and keeps the rest
// back. A body without a declared Content-Length is held (up to MaxTruncateBuffer) so that its
// full length can be declared.
type truncatingWriter struct {
	w      http.ResponseWriter
	limit  int64
	status int
	// pass sends everything on: the answer is not a success.
	pass bool
	// holding is set while a body without a Content-Length is being held in held.
	holding bool
	held    []byte
	// sent counts body bytes sent on; cut is set once bytes were kept back.
	sent int64
	cut  bool
}

func (t *truncatingWriter) Header() http.Header { return t.w.Header() }

func (t *truncatingWriter) Unwrap() http.ResponseWriter { return t.w }

// FlushError flushes what was sent on; while the body is held there is nothing to flush (a
// flush would commit the header without the Content-Length).
func (t *truncatingWriter) FlushError() error {
	if t.status == 0 || t.holding {
		return nil
	}
	return http.NewResponseController(t.w).Flush()
}

func (t *truncatingWriter) WriteHeader(code int) {
	if t.status != 0 {
		return
	}
	t.status = code
	if code < 200 || code > 299 {
		t.pass = true
		t.w.WriteHeader(code)
		return
	}
	if t.w.Header().Get("Content-Length") == "" {
		t.holding = true
		return
	}
	t.w.WriteHeader(code)
}

func (t *truncatingWriter) Write(p []byte) (int, error) {
	if t.status == 0 {
		t.WriteHeader(http.StatusOK)
	}
	switch {
	case t.pass:
		return t.w.Write(p)
	case t.holding:
		t.held = append(t.held, p...)
		if len(t.held) > MaxTruncateBuffer {
			// Too long to hold: cut it in chunked encoding.
			t.holding = false
			t.w.WriteHeader(t.status)
			held := t.held
			t.held = nil
			if _, err := t.forward(held); err != nil {
				return len(p), err
			}
		}
		return len(p), nil
	default:
		return t.forward(p)
	}
}

// forward sends on what fits under the limit and reports a cut for the rest.
func (t *truncatingWriter) forward(p []byte) (int, error) {
	room := t.limit - t.sent
	if int64(len(p)) <= room {
		n, err := t.w.Write(p)
		t.sent += int64(n)
		return n, err
	}
	n, err := t.w.Write(p[:room])
	t.sent += int64(n)
	t.cut = true
	if err != nil {
		return n, err
	}
	return n, errTruncated
}

// finish sends what the handler left held and reports whether the connection must now be cut.
func (t *truncatingWriter) finish() bool {
	if t.holding {
		t.w.Header().Set("Content-Length", strconv.Itoa(len(t.held)))
		t.w.WriteHeader(t.status)
		_, _ = t.forward(t.held)
	}
	return t.cut
}
