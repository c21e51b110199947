package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// trace records what middleware saw, in order.
type trace struct {
	mu    sync.Mutex
	lines []string
}

func (tr *trace) add(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lines = append(tr.lines, fmt.Sprintf(format, args...))
}

// recorder is a Middleware that records each attempt's method, path, attempt number and outcome.
func (tr *trace) recorder(name string) Middleware {
	return func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		tr.add("%s> %s %s #%d", name, req.Method, req.URL.Path, Attempt(req.Context()))
		resp, err := next(req)
		if err != nil {
			tr.add("%s< error", name)
		} else {
			tr.add("%s< %d", name, resp.StatusCode)
		}
		return resp, err
	}
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		replies  []reply
		mw       func(tr *trace) []Option
		wantErr  error // nil: success
		want     []string
		requests int // requests the server saw
	}{
		{
			name:    "every attempt of a retried read, numbered",
			replies: []reply{plain503(), plain503(), jsonReply(200, meJSON)},
			mw:      func(tr *trace) []Option { return []Option{WithMiddleware(tr.recorder("a"))} },
			want: []string{
				"a> GET /api/rest/v1/me #1", "a< 503",
				"a> GET /api/rest/v1/me #2", "a< 503",
				"a> GET /api/rest/v1/me #3", "a< 200",
			},
			requests: 3,
		},
		{
			name:    "the first given is the outermost, across options",
			replies: []reply{jsonReply(200, meJSON)},
			mw: func(tr *trace) []Option {
				return []Option{WithMiddleware(tr.recorder("outer"), tr.recorder("middle")), WithMiddleware(tr.recorder("inner"))}
			},
			want: []string{
				"outer> GET /api/rest/v1/me #1", "middle> GET /api/rest/v1/me #1", "inner> GET /api/rest/v1/me #1",
				"inner< 200", "middle< 200", "outer< 200",
			},
			requests: 1,
		},
		{
			name:    "a middleware may answer without calling next",
			replies: []reply{jsonReply(500, `{}`)},
			mw: func(tr *trace) []Option {
				return []Option{WithMiddleware(func(req *http.Request, _ MiddlewareNext) (*http.Response, error) {
					tr.add("cached %s", req.URL.Path)
					return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
						Body: io.NopCloser(strings.NewReader(meJSON)), Request: req}, nil
				})}
			},
			want:     []string{"cached /api/rest/v1/me"},
			requests: 0,
		},
		{
			name:    "a middleware's error is a transport failure, retried for a read",
			replies: []reply{jsonReply(200, meJSON)},
			mw: func(tr *trace) []Option {
				return []Option{WithMiddleware(tr.recorder("log"), func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
					if Attempt(req.Context()) == 1 {
						return nil, errors.New("refused by policy")
					}
					return next(req)
				})}
			},
			want:     []string{"log> GET /api/rest/v1/me #1", "log< error", "log> GET /api/rest/v1/me #2", "log< 200"},
			requests: 1,
		},
		{
			name:    "a header added by a middleware reaches the service",
			replies: []reply{jsonReply(200, meJSON)},
			mw: func(tr *trace) []Option {
				return []Option{WithMiddleware(func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
					req = req.Clone(req.Context())
					req.Header.Set("Authorization", "Bearer "+testKey+"-via-middleware")
					return next(req)
				})}
			},
			wantErr:  nil,
			requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, tt.replies...)
			tr := &trace{}
			c, _ := newTestClient(t, srv.URL, tt.mw(tr)...)
			_, err := c.Me(context.Background())
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Me: %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(tr.lines, tt.want) {
				t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(tr.lines, "\n"), strings.Join(tt.want, "\n"))
			}
			reqs := s.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("the server saw %d requests, want %d", len(reqs), tt.requests)
			}
			if strings.Contains(tt.name, "header") && reqs[0].auth != "Bearer "+testKey+"-via-middleware" {
				t.Errorf("Authorization %q", reqs[0].auth)
			}
		})
	}
}

// The chain runs before the transport of the *http.Client given with WithHTTPClient, whichever
// option comes first, and a client without middleware sends through that client unchanged.
func TestMiddlewareUsesTheGivenHTTPClient(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonReply(200, meJSON))
	for _, order := range []string{"middleware first", "http client first", "no middleware"} {
		var carried atomic.Int32
		hc := &http.Client{Transport: countingTransport{next: http.DefaultTransport, n: &carried}}
		var seen int
		mw := WithMiddleware(func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
			seen++
			return next(req)
		})
		opts := []Option{mw, WithHTTPClient(hc)}
		switch order {
		case "http client first":
			opts = []Option{WithHTTPClient(hc), mw}
		case "no middleware":
			opts = []Option{WithHTTPClient(hc)}
		}
		c, _ := newTestClient(t, srv.URL, opts...)
		if _, err := c.Me(context.Background()); err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		wantSeen := 1
		if order == "no middleware" {
			wantSeen = 0
			if c.mw != nil {
				t.Fatalf("%s: a chain was built", order)
			}
		}
		if carried.Load() != 1 || seen != wantSeen {
			t.Errorf("%s: transport carried %d, middleware saw %d", order, carried.Load(), seen)
		}
	}
}

func TestWithMiddlewareRefusesNil(t *testing.T) {
	t.Parallel()
	if _, err := New(testKey, WithMiddleware(nil)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("New: %v", err)
	}
	if n := Attempt(context.Background()); n != 0 {
		t.Fatalf("Attempt of a foreign context = %d", n)
	}
}
