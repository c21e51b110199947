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

// call is the state of one operation across its attempts, shared by the go-retryablehttp
// hooks that carry its rules: checkRetry (what is retried), backoff and prepareRetry (how long
// the pause is, slept on the client's clock), errorHandler (the final error) and
// requestStarted (the timing the logs show).
type call struct {
	c    *Client
	ctx  context.Context // the call's, for the log records of the hooks that are not given it
	kind callKind
	op   string // "GET /api/rest/v1/me"

	attempts int
	// seed draws the jitter of each backoff, so that the wait before a retry is one value
	// whether checkRetry (the deadline rule) or backoff (the wait itself) computes it.
	seed uint64
	// wait is the pause before the next attempt, computed by backoff and slept by prepareRetry
	// (so that the client's clock, not go-retryablehttp's timer, does the waiting).
	wait time.Duration
	// exhausted is set when checkRetry found the last attempt retryable, for errorHandler's log:
	// go-retryablehttp's RetryMax then ends the call. reason is why that attempt failed.
	exhausted bool
	reason    string
	// readErr is the error of a success whose body broke off, which go-retryablehttp does not
	// know of: it saw a response.
	readErr error
	// shaped is set once errorHandler has made the call's final error.
	shaped bool
	// maybeApplied is set once an attempt ended in a way that leaves open whether the service
	// carried it out (a 5xx from the API, a timeout, a lost connection).
	maybeApplied bool
	started      time.Time
}

// send runs req with the client's credentials and retry rules. On success the caller owns the
// response body.
func (c *Client) send(ctx context.Context, kind callKind, req *http.Request) (*http.Response, *call, error) {
	st := &call{c: c, ctx: ctx, kind: kind, op: req.Method + " " + req.URL.Path, seed: rand.Uint64()}
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
		HTTPClient:   hc,
		RetryMax:     c.policy.MaxAttempts - 1,
		RetryWaitMin: c.policy.MinBackoff,
		RetryWaitMax: c.policy.MaxBackoff,
		CheckRetry:   st.checkRetry,
		Backoff:      st.backoff,
		PrepareRetry: st.prepareRetry,
		ErrorHandler: st.errorHandler,
	}
	if c.log != nil {
		rc.RequestLogHook = st.requestStarted
	}
	resp, err := rc.Do(rreq)
	if err != nil {
		if !st.shaped {
			// go-retryablehttp returns a context that ends during its own (zero) backoff
			// timer without calling the ErrorHandler.
			_, err = st.errorHandler(resp, err, st.attempts)
		}
		return nil, st, err
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
		return st.answerError(resp)
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

// answerError is the *APIError of resp, an answer that is not a success. It reads the body and
// leaves closing it to the caller.
func (st *call) answerError(resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorRead))
	e := parseError(resp.StatusCode, resp.Header, body, st.c.clock.Now())
	e.op = st.op
	if m := redirectMessage(resp); m != "" {
		e.Message = m
	}
	return e
}

// closeBody reads a little of what is left, so that the connection can be reused, and closes.
func closeBody(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

// checkRetry is go-retryablehttp's CheckRetry: it classifies the attempt under our rules and
// says whether another one follows. On the last attempt it says whether the attempt was worth
// retrying, and go-retryablehttp's RetryMax (MaxAttempts-1) ends the call through errorHandler.
func (st *call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st.attempts++
	st.readErr = nil
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
			st.readErr = err
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
		st.exhausted, st.reason = true, reason
		return true, nil
	}
	if ra := st.retryAfter(resp); ra > 0 && ra > p.MaxRetryAfter {
		st.logGiveUp(ctx, reason, "Retry-After exceeds MaxRetryAfter")
		return false, nil
	}
	wait := st.waitFor(p.MinBackoff, p.MaxBackoff, st.attempts-1, resp)
	if deadline, has := ctx.Deadline(); has && time.Until(deadline) < wait {
		st.logGiveUp(ctx, reason, "the context ends before the wait")
		return false, nil
	}
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

// retryAfter is resp's usable Retry-After, 0 when there is none. One that is unreadable,
// negative, zero, in the past or overflowing reads as 0, and the wait falls back to the
// backoff: a server must not turn retries into a burst.
func (st *call) retryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	return parseRetryAfter(resp.Header.Get("Retry-After"), st.c.clock.Now())
}

// waitFor is the pause before retry number n (0 for the first): exactly the Retry-After when
// resp has a usable one, else exponential backoff from minWait up to maxWait with equal
// jitter, half fixed and half random, so that clients do not retry in lockstep. The random
// half is drawn from the call's seed and n, so that one retry has one wait.
func (st *call) waitFor(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
	if ra := st.retryAfter(resp); ra > 0 {
		return ra
	}
	d := minWait
	for i := 0; i < n && d < maxWait; i++ {
		d *= 2
	}
	d = min(d, maxWait)
	half := d / 2
	return half + time.Duration(mix(st.seed+uint64(n))%uint64(d-half+1))
}

// mix is SplitMix64's finaliser: it spreads consecutive inputs over unrelated outputs.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// backoff is go-retryablehttp's Backoff, called once checkRetry has decided on a retry: it
// computes the wait (waitFor, between the policy's MinBackoff and MaxBackoff, which
// go-retryablehttp passes on from RetryWaitMin and RetryWaitMax) for prepareRetry to sleep.
// It returns 0 to go-retryablehttp, whose own pause is a wall-clock timer that cannot be
// injected: the wait is slept on the client's clock instead.
func (st *call) backoff(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
	st.wait = st.waitFor(minWait, maxWait, n, resp)
	return 0
}

// prepareRetry is go-retryablehttp's PrepareRetry, called before each retry: it sleeps the wait
// backoff computed, on the client's clock, and stops if the context ends.
func (st *call) prepareRetry(req *http.Request) error {
	return st.c.clock.Sleep(req.Context(), st.wait)
}

// errorHandler is go-retryablehttp's ErrorHandler, which makes the final error of a call that
// did not end in an answer of its own: the *APIError of the last answer when the attempts ran
// out on it, else the transport's, the body's or the context's error, wrapped with the
// operation. It closes resp's body.
func (st *call) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	st.shaped = true
	if st.exhausted {
		st.logGiveUp(st.ctx, st.reason, "attempts exhausted")
	}
	if err == nil {
		// Without an error of its own, the last attempt was an answer checkRetry found worth
		// retrying: an error answer, or a success whose body broke off.
		err = st.readErr
	}
	if err == nil && resp != nil {
		defer closeBody(resp.Body)
		return nil, st.answerError(resp)
	}
	if resp != nil {
		resp.Body.Close()
	}
	var ue *url.Error
	if st.kind == kindSignedPut && errors.As(err, &ue) {
		ue.URL = redactQuery(ue.URL) // the signature is a short-lived secret
	}
	return nil, fmt.Errorf("podqa: %s: %w", st.op, err)
}

// requestStarted is go-retryablehttp's RequestLogHook: it stamps the start of each attempt,
// for the duration logAttempt logs.
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
