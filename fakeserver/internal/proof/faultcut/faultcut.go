// Package faultcut ends the HTTP attempts that a latency fault of the fake holds, as a short
// per-attempt timeout would, but at a moment that does not depend on the machine's speed: once
// the fake has counted the attempt against the fault. A test of a client's timeouts then gets
// a timeout on exactly the attempts the fault held, however slowly the machine runs, where a
// wall-clock timeout could cut an attempt before it reached the fake, or a fast one that
// should have succeeded.
package faultcut

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"

	"github.com/podqa/podqa-go/fakeserver"
)

// ErrTimeout is the error of an attempt that Transport cut: a net.Error whose Timeout is true,
// as an http.Client's timeout is.
var ErrTimeout error = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string {
	return "faultcut: attempt timed out (cut once the fake's fault held it)"
}
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// Transport is an http.RoundTripper for a client of srv that ends each attempt the fault
// FaultID acts on with ErrTimeout, once the fake has counted it (the fault's Fired count
// grew, or a fault with a count was spent). Attempts the fault lets through are untouched.
type Transport struct {
	// Next sends the requests: srv.Client().Transport, or nil for http.DefaultTransport.
	Next    http.RoundTripper
	Server  *fakeserver.Server
	FaultID string
}

// fired is the fault's Fired count; ok is false once the fault is no longer armed.
func (t *Transport) fired() (n int, ok bool) {
	for _, a := range t.Server.Faults() {
		if a.ID == t.FaultID {
			return a.Fired, true
		}
	}
	return 0, false
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	before, armed := t.fired()
	if !armed {
		return next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	answered := make(chan struct{})
	go func() {
		// The fake counts the attempt as soon as its handler takes it; waiting for that is a
		// few round trips of the scheduler, never a guess at the time it takes.
		for {
			select {
			case <-answered:
				return
			default:
			}
			if n, ok := t.fired(); !ok || n > before {
				cancel(ErrTimeout)
				return
			}
			runtime.Gosched()
		}
	}()
	resp, err := next.RoundTrip(req.WithContext(ctx))
	close(answered)
	if err != nil {
		cancel(nil)
		if errors.Is(context.Cause(ctx), ErrTimeout) {
			return nil, ErrTimeout
		}
		return nil, err
	}
	// The body is read under ctx: it ends when the body is closed.
	resp.Body = &closer{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	return resp, nil
}

type closer struct {
	io.ReadCloser
	cancel func()
}

func (c *closer) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
