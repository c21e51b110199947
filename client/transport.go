package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// callKind decides what a call may retry.
type callKind int

const (
	// kindRead (GET) retries connection errors, timeouts, 5xx (except 501) and 429.
	kindRead callKind = iota
	// kindWrite (POST, DELETE) retries only what cannot have been carried out: a 429, a
	// non-JSON 503 from the service's front, and a failure to connect.
	kindWrite
	// kindIdempotentWrite (the upload form of POST /reports) retries like a read; a 409 after
	// an attempt that may have been carried out means that attempt succeeded.
	kindIdempotentWrite
	// kindSignedPut is the PUT of audio to a signed upload URL: it retries like a read (the same
	// bytes to the same object) and carries no service credentials.
	kindSignedPut
)

// call is the state of one operation across its attempts.
type call struct {
	c    *Client
	kind callKind
	op   string // "GET /api/rest/v1/me"

	attempts int
	// wait is the pause before the next attempt, decided by checkRetry and slept by
	// prepareRetry (so that the client's clock, not go-retryablehttp's timer, does the waiting).
	wait time.Duration
	// maybeApplied is set once an attempt ended in a way that leaves open whether the service
	// carried it out (a 5xx from the API, a timeout, a lost connection).
	maybeApplied bool
	started      time.Time
}

// send runs req with the client's credentials and retry rules. On success the caller owns the
// response body.
func (c *Client) send(ctx context.Context, kind callKind, req *http.Request) (*http.Response, *call, error) {
	st := &call{c: c, kind: kind, op: req.Method + " " + req.URL.Path}
	req = req.WithContext(ctx)
	if kind != kindSignedPut {
		req.Header.Set("Authorization", c.cred.authorization)
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", c.userAgent)
	req, hc := c.withMiddleware(req, st)
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, st, fmt.Errorf("podqa: %s: %w", st.op, err)
	}
	rc := &retryablehttp.Client{
		HTTPClient: hc,
		// checkRetry enforces MaxAttempts itself; this only keeps go-retryablehttp from
		// stopping first.
		RetryMax:     c.policy.MaxAttempts,
		CheckRetry:   st.checkRetry,
		Backoff:      noBackoff,
		PrepareRetry: st.prepareRetry,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	if c.log != nil {
		rc.RequestLogHook = st.requestStarted
	}
	resp, err := rc.Do(rreq)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		var ue *url.Error
		if kind == kindSignedPut && errors.As(err, &ue) {
			ue.URL = redactQuery(ue.URL) // the signature is a short-lived secret
		}
		return nil, st, fmt.Errorf("podqa: %s: %w", st.op, err)
	}
	return resp, st, nil
}

// do runs req and decodes a 2xx JSON answer into out (nil: no body expected).
func (c *Client) do(ctx context.Context, kind callKind, req *http.Request, out any) (*call, error) {
	resp, st, err := c.send(ctx, kind, req)
	if err != nil {
		return st, err
	}
	return st, st.decode(resp, out)
}

// decode reads resp into out, or turns it into an *APIError. It closes the body.
func (st *call) decode(resp *http.Response, out any) error {
	defer closeBody(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorRead))
		e := parseError(resp.StatusCode, resp.Header, body, st.c.clock.Now())
		e.op = st.op
		if m := redirectMessage(resp); m != "" {
			e.Message = m
		}
		return e
	}
	if out == nil {
		return nil
	}
	if ct := resp.Header.Get("Content-Type"); !isJSON(ct) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxRawBody))
		if ct == "" {
			ct = "none"
		}
		return &APIError{StatusCode: resp.StatusCode, Message: "unexpected content type " + ct, Body: body, op: st.op}
	}
	var err error
	if b, ok := resp.Body.(*bufferedBody); ok {
		err = json.Unmarshal(b.data, out)
	} else {
		err = json.NewDecoder(capBody(resp.Body)).Decode(out)
	}
	if err != nil {
		return fmt.Errorf("podqa: %s: decoding the response: %w", st.op, err)
	}
	if n, ok := out.(normalizer); ok {
		n.normalize()
	}
	return nil
}

// closeBody reads a little of what is left, so that the connection can be reused, and closes.
func closeBody(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

func noBackoff(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 }

// checkRetry is go-retryablehttp's CheckRetry: it classifies the attempt, enforces the policy
// and decides the wait before the next attempt.
func (st *call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st.attempts++
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err == nil && st.kind != kindSignedPut && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		// A success whose body breaks off is a failed attempt, retried like a lost connection,
		// never half a value.
		if rerr := bufferBody(resp); rerr != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			err = fmt.Errorf("reading the response: %w", rerr)
			retry, _ := st.checkAttempt(ctx, nil, err)
			if !retry {
				return false, err
			}
			return true, nil
		}
	}
	return st.checkAttempt(ctx, resp, err)
}

// checkAttempt is checkRetry's decision once the attempt's outcome is known.
func (st *call) checkAttempt(ctx context.Context, resp *http.Response, err error) (bool, error) {
	retry, ambiguous, reason := st.classify(resp, err)
	if ambiguous {
		st.maybeApplied = true
	}
	st.logAttempt(ctx, resp, err)
	if !retry {
		return false, nil
	}
	p := st.c.policy
	if st.attempts >= p.MaxAttempts {
		st.logGiveUp(ctx, reason, "attempts exhausted")
		return false, nil
	}
	wait, ok := st.waitFor(resp)
	if !ok {
		st.logGiveUp(ctx, reason, "Retry-After exceeds MaxRetryAfter")
		return false, nil
	}
	if deadline, has := ctx.Deadline(); has && time.Until(deadline) < wait {
		st.logGiveUp(ctx, reason, "the context ends before the wait")
		return false, nil
	}
	st.wait = wait
	if st.c.log != nil {
		st.c.log.LogAttrs(ctx, slog.LevelInfo, "podqa: retrying", slog.String("op", st.op),
			slog.Int("attempt", st.attempts), slog.String("reason", reason), slog.Duration("wait", wait))
	}
	return true, nil
}

// classify says whether an attempt may be retried and whether it may have been carried out.
func (st *call) classify(resp *http.Response, err error) (retry, ambiguous bool, reason string) {
	if err != nil {
		if ok, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); !ok {
			return false, false, "permanent transport error"
		}
		if isDialError(err) {
			return true, false, "connection failed"
		}
		return st.kind != kindWrite, true, "transport error"
	}
	code := resp.StatusCode
	switch {
	case code == http.StatusTooManyRequests:
		return true, false, "rate limited"
	case code == http.StatusServiceUnavailable && !isJSON(resp.Header.Get("Content-Type")):
		// The service's front refused the request before it reached the API.
		return true, false, "service unavailable"
	case code >= 500 && code != http.StatusNotImplemented:
		return st.kind != kindWrite, true, "server error " + http.StatusText(code)
	}
	return false, false, ""
}

// isDialError reports whether err happened while connecting, before anything was sent.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// waitFor is the pause before the next attempt: exactly Retry-After when the response has a
// usable one (ok is false when it exceeds MaxRetryAfter), else exponential backoff with jitter.
func (st *call) waitFor(resp *http.Response) (time.Duration, bool) {
	p := st.c.policy
	if resp != nil {
		// A Retry-After that is unreadable, negative, zero, in the past or overflowing reads as
		// 0 and falls back to the backoff below: a server must not turn retries into a burst.
		if ra := parseRetryAfter(resp.Header.Get("Retry-After"), st.c.clock.Now()); ra > 0 {
			return ra, ra <= p.MaxRetryAfter
		}
	}
	d := p.MinBackoff
	for i := 1; i < st.attempts && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	// Equal jitter: half fixed, half random, so that clients do not retry in lockstep.
	half := d / 2
	return half + rand.N(d-half+1), true
}

// prepareRetry is go-retryablehttp's PrepareRetry, called before each retry: it sleeps the wait
// checkRetry decided, on the client's clock, and stops if the context ends.
func (st *call) prepareRetry(req *http.Request) error {
	return st.c.clock.Sleep(req.Context(), st.wait)
}

func (st *call) requestStarted(_ retryablehttp.Logger, _ *http.Request, _ int) {
	st.started = time.Now()
}

func (st *call) logAttempt(ctx context.Context, resp *http.Response, err error) {
	l := st.c.log
	if l == nil || !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{slog.String("op", st.op), slog.Int("attempt", st.attempts)}
	if !st.started.IsZero() {
		attrs = append(attrs, slog.Duration("duration", time.Since(st.started)))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	l.LogAttrs(ctx, slog.LevelDebug, "podqa: attempt", attrs...)
}

func (st *call) logGiveUp(ctx context.Context, reason, why string) {
	if st.c.log != nil {
		st.c.log.LogAttrs(ctx, slog.LevelWarn, "podqa: not retrying", slog.String("op", st.op),
			slog.Int("attempt", st.attempts), slog.String("reason", reason), slog.String("why", why))
	}
}
