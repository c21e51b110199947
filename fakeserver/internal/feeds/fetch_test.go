package feeds

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFetch(t *testing.T) {
	t.Parallel()
	f := Feed{
		Title: "Served", Link: "https://fake.example/", Explicit: true,
		Items: []Item{
			{Title: "B", GUID: "b", PublishedOn: date(2024, 2, 2), AudioURL: "https://fake.example/b.wav", Duration: time.Minute},
			{Title: "A", GUID: "a", PublishedOn: date(2024, 2, 1), AudioURL: "https://fake.example/a.wav", Duration: time.Minute},
		},
	}
	body := Render(f)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/feed.xml", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /feed.xml", func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Accept"); !strings.Contains(got, "application/rss+xml") || !strings.Contains(got, "application/atom+xml") {
			http.Error(w, "bad Accept "+got, http.StatusNotAcceptable)
			return
		}
		if r.Header.Get("User-Agent") != UserAgent {
			http.Error(w, "bad User-Agent", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	for _, path := range []string{"/feed.xml", "/old"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			got, err := Fetch(t.Context(), srv.Client(), srv.URL+path)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if diff := cmp.Diff(expectParsed(f), got); diff != "" {
				t.Errorf("Fetch mismatch (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("nil client", func(t *testing.T) {
		t.Parallel()
		got, err := Fetch(t.Context(), nil, srv.URL+"/feed.xml")
		if err != nil || len(got.Episodes) != 2 {
			t.Fatalf("Fetch with nil client = %v, %v", got, err)
		}
	})
}

// fetchCase describes one failing Fetch. setup returns the URL to fetch and
// optionally a client and a context to use.
type fetchCase struct {
	name       string
	setup      func(t *testing.T) (url string, c *http.Client, ctx context.Context)
	wantKind   Kind
	wantMsg    string
	wantStatus int
}

// serve starts a loopback server for h and returns its URL, client and the
// test's context.
func serve(h http.HandlerFunc) func(t *testing.T) (string, *http.Client, context.Context) {
	return func(t *testing.T) (string, *http.Client, context.Context) {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL + "/feed", srv.Client(), t.Context()
	}
}

func fixedURL(u string) func(t *testing.T) (string, *http.Client, context.Context) {
	return func(t *testing.T) (string, *http.Client, context.Context) { return u, nil, t.Context() }
}

func TestFetchErrors(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), MaxFeedBytes+1)
	copy(big, `<rss version="2.0"><channel><title>`)
	tests := []fetchCase{
		{
			name:     "404",
			setup:    serve(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }),
			wantKind: KindFetch, wantMsg: "the feed URL answered HTTP 404", wantStatus: 404,
		},
		{
			name: "500",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "boom", http.StatusInternalServerError)
			}),
			wantKind: KindFetch, wantMsg: "the feed URL answered HTTP 500", wantStatus: 500,
		},
		{
			name: "HTML page",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte(sampleHTML))
			}),
			wantKind: KindParse, wantMsg: "the document is an HTML page, not an RSS or Atom feed",
		},
		{
			name:     "plain text",
			setup:    serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }),
			wantKind: KindParse, wantMsg: "the document is not an RSS or Atom feed",
		},
		{
			name:     "empty body",
			setup:    serve(func(w http.ResponseWriter, r *http.Request) {}),
			wantKind: KindParse, wantMsg: "the document is empty, not an RSS or Atom feed",
		},
		{
			name: "oversized body with Content-Length",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", strconv.Itoa(len(big)))
				w.Write(big)
			}),
			wantKind: KindParse, wantMsg: "the feed is larger than the 10 MiB limit",
		},
		{
			name: "oversized chunked body",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				for chunk := range slices.Chunk(big, 64<<10) {
					w.Write(chunk)
					w.(http.Flusher).Flush()
				}
			}),
			wantKind: KindParse, wantMsg: "the feed is larger than the 10 MiB limit",
		},
		{
			name: "body cut short",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					panic(err)
				}
				buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: 1000\r\n\r\n<rss version=\"2.0\">")
				buf.Flush()
				conn.Close()
			}),
			wantKind: KindFetch, wantMsg: "the feed's server closed the connection without a complete answer",
		},
		{
			name: "connection refused",
			setup: func(t *testing.T) (string, *http.Client, context.Context) {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr := ln.Addr().String()
				ln.Close()
				return "http://" + addr + "/feed", nil, t.Context()
			},
			wantKind: KindFetch, wantMsg: "the feed's server refused the connection",
		},
		{
			name: "host not found",
			setup: func(t *testing.T) (string, *http.Client, context.Context) {
				// Stand in for the resolver so that no DNS query leaves the machine.
				c := &http.Client{Transport: &http.Transport{
					DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
						return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "feeds.invalid", IsNotFound: true}}
					},
				}}
				return "http://feeds.invalid/feed", c, t.Context()
			},
			wantKind: KindFetch, wantMsg: "the feed's host could not be found",
		},
		{
			name: "cancelled context",
			setup: func(t *testing.T) (string, *http.Client, context.Context) {
				u, c, _ := serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(sampleNoAudio)) })(t)
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				return u, c, ctx
			},
			wantKind: KindFetch, wantMsg: "fetching the feed was cancelled",
		},
		{
			name: "timeout",
			setup: func(t *testing.T) (string, *http.Client, context.Context) {
				u, c, _ := serve(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })(t)
				// The timeout under test: the server never answers, so it always fires.
				ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
				t.Cleanup(cancel)
				return u, c, ctx
			},
			wantKind: KindFetch, wantMsg: "the feed's server did not answer in time",
		},
		{
			name: "client timeout",
			setup: func(t *testing.T) (string, *http.Client, context.Context) {
				u, c, ctx := serve(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })(t)
				c.Timeout = 50 * time.Millisecond // under test: the server never answers
				return u, c, ctx
			},
			wantKind: KindFetch, wantMsg: "the feed's server did not answer in time",
		},
		{
			name: "redirect loop",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, r.URL.Path, http.StatusFound)
			}),
			wantKind: KindFetch, wantMsg: "the feed URL redirected too many times",
		},
		{
			name: "redirect to another scheme",
			setup: serve(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "ftp://files.example/feed.xml", http.StatusFound)
			}),
			wantKind: KindFetch, wantMsg: "the feed URL redirected to a URL that is not http or https",
		},
		{
			name: "untrusted TLS certificate",
			setup: func(t *testing.T) (string, *http.Client, context.Context) {
				srv := httptest.NewTLSServer(http.NotFoundHandler())
				srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshake is expected
				t.Cleanup(srv.Close)
				return srv.URL, &http.Client{}, t.Context()
			},
			wantKind: KindFetch, wantMsg: "the feed's server presented a TLS certificate that could not be verified",
		},
		{name: "bad scheme", setup: fixedURL("ftp://files.example/feed.xml"), wantKind: KindFetch, wantMsg: `the feed URL must use http or https, not "ftp"`},
		{name: "file scheme", setup: fixedURL("file:///etc/passwd"), wantKind: KindFetch, wantMsg: `the feed URL must use http or https, not "file"`},
		{name: "relative URL", setup: fixedURL("feeds.example/feed.xml"), wantKind: KindFetch, wantMsg: "the feed URL is not an absolute http or https URL"},
		{name: "malformed URL", setup: fixedURL("http://[::1/feed"), wantKind: KindFetch, wantMsg: "the feed URL is not a valid URL"},
		{name: "control character", setup: fixedURL("http://x.example/\x7f"), wantKind: KindFetch, wantMsg: "the feed URL is not a valid URL"},
		{name: "no host", setup: fixedURL("http:///feed.xml"), wantKind: KindFetch, wantMsg: "the feed URL has no host"},
		{name: "empty", setup: fixedURL("  "), wantKind: KindFetch, wantMsg: "the feed URL is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, c, ctx := tt.setup(t)
			p, err := Fetch(ctx, c, u)
			if p != nil {
				t.Errorf("Fetch returned %+v with an error", p)
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("Fetch error = %v (%T), want *Error", err, err)
			}
			if fe.Kind != tt.wantKind || fe.Message != tt.wantMsg || fe.StatusCode != tt.wantStatus {
				t.Errorf("Fetch error = {%v %q %d}, want {%v %q %d} (cause: %v)",
					fe.Kind, fe.Message, fe.StatusCode, tt.wantKind, tt.wantMsg, tt.wantStatus, fe.Err)
			}
			if strings.Contains(fe.Message, u) && strings.TrimSpace(u) != "" {
				t.Errorf("message %q repeats the URL", fe.Message)
			}
		})
	}
}
