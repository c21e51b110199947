package httpmw

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// Timeouts are the fake's connection timeouts. http.Server's ReadTimeout and WriteTimeout
// would apply one figure to every route, so the server sets only the header and idle timeouts
// and each request gets deadlines suited to its route (see Deadlines).
type Timeouts struct {
	// Header bounds reading a request's headers.
	Header time.Duration
	// Idle closes a keep-alive connection that sends no new request for this long.
	Idle time.Duration
	// Body bounds reading the whole body of an API request (at most 1 MiB).
	Body time.Duration
	// Stall bounds each pause of a body or an answer that may be long (an upload PUT, hosted
	// audio): they may take any time but must keep moving.
	Stall time.Duration
	// Write bounds writing any other answer.
	Write time.Duration
}

// DefaultTimeouts are generous for any test on loopback and still close what a stalled or
// abandoned client leaves open.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Header: 10 * time.Second,
		Idle:   60 * time.Second,
		Body:   30 * time.Second,
		Stall:  30 * time.Second,
		Write:  2 * time.Minute,
	}
}

// streams reports whether r is a request whose body or answer may be long: an audio upload or
// hosted audio.
func streams(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/_uploads/") || (strings.HasPrefix(r.URL.Path, "/_feeds/") && strings.Contains(r.URL.Path, "/audio/"))
}

// Deadlines sets the read and write deadlines of each request's connection by route: an API
// body must arrive within t.Body, an upload's body may take as long as it keeps moving (no pause
// longer than t.Stall), an answer must be written within t.Write, hosted audio as long as it
// keeps moving; the control API has no write deadline (an Advance answers once the analyses it
// runs are done). The read deadline is cleared once the body is read, so a long handler is never
// cut by it.
func (t Timeouts) Deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		long := streams(r)
		if !long && (r.Body == nil || r.Body == http.NoBody) {
			// Most requests: a write deadline and nothing to wrap, so no controller escapes.
			if strings.HasPrefix(r.URL.Path, "/_fake/") {
				setWriteDeadline(w, time.Time{})
			} else {
				setWriteDeadline(w, now.Add(t.Write))
			}
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			// A shallow copy: the server keeps its own view of the body, so that it does not
			// try to drain a large unread one through the wrapper before answering.
			r = r.WithContext(r.Context())
			if long {
				_ = rc.SetReadDeadline(now.Add(t.Stall))
				r.Body = &movingBody{ReadCloser: r.Body, rc: rc, stall: t.Stall}
			} else {
				_ = rc.SetReadDeadline(now.Add(t.Body))
				r.Body = &movingBody{ReadCloser: r.Body, rc: rc}
			}
		}
		switch {
		case long:
			_ = rc.SetWriteDeadline(now.Add(t.Stall))
			w = &movingWriter{ResponseWriter: w, rc: rc, stall: t.Stall}
		case strings.HasPrefix(r.URL.Path, "/_fake/"):
			// The control API answers when its work is done: an Advance on a manual clock runs
			// the analyses due, each up to its own 10-minute limit.
			_ = rc.SetWriteDeadline(time.Time{})
		default:
			_ = rc.SetWriteDeadline(now.Add(t.Write))
		}
		next.ServeHTTP(w, r)
	})
}

// setWriteDeadline sets w's write deadline as http.ResponseController does, without allocating
// one when w is the server's own writer.
func setWriteDeadline(w http.ResponseWriter, deadline time.Time) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(deadline)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(deadline)
}

// movingBody extends the read deadline before each read when stall is set, and clears it at the
// end of the body.
type movingBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	stall time.Duration
}

func (b *movingBody) Read(p []byte) (int, error) {
	if b.stall > 0 {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.stall))
	}
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// movingWriter extends the write deadline before each write.
type movingWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

func (w *movingWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.stall))
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *movingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
