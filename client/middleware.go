package client

import (
	"context"
	"fmt"
	"net/http"
	"sync"
)

// MiddlewareNext sends a request on: to the next middleware, and after the last one, to the
// network through the client's *http.Client transport.
type MiddlewareNext = func(req *http.Request) (*http.Response, error)

// Middleware sees each HTTP request the client sends, retries included, and its response or
// error. It usually calls next(req) once and returns what it returned; it may change the request
// (clone it first, as an http.RoundTripper would), answer without calling next, or change the
// response. An error it returns is handled as a transport failure (retried where the call's
// rules allow). Attempt(req.Context()) is the attempt number of the request.
//
// The request of the upload PUT to a signed URL carries a short-lived signature in its query:
// do not log req.URL.RawQuery.
type Middleware = func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// WithMiddleware adds middleware around every HTTP request the client sends, in order: the
// first given is the outermost, and each later WithMiddleware nests inside the earlier ones.
// They run for every attempt of every call (each retry, and each redirect hop, which keeps
// the attempt's number), for the clients built on this one (graphqlclient) too. With none, the
// client takes no extra step at all.
func WithMiddleware(mw ...Middleware) Option {
	return func(c *Client) error {
		for i, m := range mw {
			if m == nil {
				return fmt.Errorf("%w: WithMiddleware: middleware %d is nil", ErrInvalidArgument, i)
			}
		}
		if c.mw == nil {
			c.mw = &middlewares{}
		}
		c.mw.list = append(c.mw.list, mw...)
		return nil
	}
}

// Attempt returns the attempt number (1 for the first) of the request whose context ctx is, as
// a Middleware sees it; 0 for a context the client did not make.
func Attempt(ctx context.Context) int {
	st, _ := ctx.Value(attemptKey{}).(*call)
	if st == nil {
		return 0
	}
	// checkRetry counts an attempt once it has ended, so the one under way is the next.
	return st.attempts + 1
}

type attemptKey struct{}

// middlewares is the client's middleware chain, and the *http.Client that runs it, built from
// the client's own *http.Client on first use (after every option has been applied).
type middlewares struct {
	list []Middleware
	once sync.Once
	http *http.Client
}

// httpClient returns the *http.Client that runs the chain before hc's transport.
func (m *middlewares) httpClient(hc *http.Client) *http.Client {
	m.once.Do(func() {
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		next := base.RoundTrip
		for i := len(m.list) - 1; i >= 0; i-- {
			mw, inner := m.list[i], next
			next = func(req *http.Request) (*http.Response, error) { return mw(req, inner) }
		}
		wrapped := *hc
		wrapped.Transport = roundTripFunc(next)
		m.http = &wrapped
	})
	return m.http
}

// roundTripFunc adapts the chain to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// withMiddleware prepares a call's request and HTTP client for the chain: the request's
// context carries the call, for Attempt. Without middleware it returns its arguments.
func (c *Client) withMiddleware(req *http.Request, st *call) (*http.Request, *http.Client) {
	if c.mw == nil {
		return req, c.http
	}
	return req.WithContext(context.WithValue(req.Context(), attemptKey{}, st)), c.mw.httpClient(c.http)
}
