package client

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/podqa/podqa-go/internal/errval"
)

// MaxResponseBody is the largest success body the client reads, 64 MiB: far above any answer of
// the service (a REST page or a GraphQL answer), low enough that a broken proxy or a hostile
// server cannot exhaust the caller's memory. A longer body ends the call with an error that
// matches ErrResponseTooLarge; what was read is discarded. Error bodies are read up to 1 MiB.
const MaxResponseBody = 64 << 20

// ErrResponseTooLarge is matched (errors.Is) by the error of a call whose success body exceeds
// MaxResponseBody.
var ErrResponseTooLarge = errval.New("client.ErrResponseTooLarge", "podqa: the response body exceeds client.MaxResponseBody (67108864 bytes)")

// cappedReader reads at most MaxResponseBody bytes of r, then fails with ErrResponseTooLarge if
// r has more.
type cappedReader struct {
	r    io.Reader
	left int64
}

func capBody(r io.Reader) io.Reader { return &cappedReader{r: r, left: MaxResponseBody} }

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.r.Read(one[:]); n > 0 {
			return 0, ErrResponseTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// sameOrigin reports whether a and b have the same scheme, host and port (RFC 6454).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// otherOriginMessage is the message of the *APIError of a redirect the client did not follow.
const otherOriginMessage = "not following a redirect to another origin"

// redirectMessage is the message of an unfollowed 3xx answer: it names the origin it pointed to.
func redirectMessage(resp *http.Response) string {
	loc, err := resp.Location()
	if err != nil {
		return ""
	}
	return otherOriginMessage + " (" + loc.Scheme + "://" + loc.Host + ")"
}

// guardRedirects returns a copy of hc whose CheckRedirect refuses to leave the origin of the
// first request when that request carries credentials or is not idempotent (so the API key never
// reaches another scheme, host or port, and a POST is never replayed there), then defers to hc's
// own CheckRedirect (or the standard limit of 10 redirects). hc itself is not modified.
func guardRedirects(hc *http.Client) *http.Client {
	cp := *hc
	next := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		first := via[0]
		if !sameOrigin(first.URL, req.URL) {
			if first.Header.Get("Authorization") != "" || !idempotent(first.Method) || !idempotent(req.Method) {
				return http.ErrUseLastResponse
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}
