package feeds

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
)

// MaxFeedBytes is the largest feed body [Fetch] accepts (10 MiB).
const MaxFeedBytes = 10 << 20

// Accept is the Accept header [Fetch] sends.
const Accept = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"

// UserAgent is the User-Agent header [Fetch] sends.
const UserAgent = "podqa-fakeserver-feeds/1.0"

// Fetch downloads the feed at rawURL with c (http.DefaultClient when nil)
// and parses it with [Parse]. Redirects follow c's policy; loopback and
// private addresses are allowed. Failures are [*Error] values: [KindFetch]
// for a malformed URL, a scheme other than http or https, DNS, connection,
// TLS, timeout and cancellation failures and any non-2xx status;
// [KindParse] for a body over [MaxFeedBytes] or one that is not an RSS or
// Atom feed.
func Fetch(ctx context.Context, c *http.Client, rawURL string) (*Parsed, error) {
	if c == nil {
		c = http.DefaultClient
	}
	u, ferr := checkURL(rawURL)
	if ferr != nil {
		return nil, ferr
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fetchError("the feed URL is not a valid URL", err)
	}
	req.Header.Set("Accept", Accept)
	req.Header.Set("User-Agent", UserAgent)

	resp, err := c.Do(req)
	if err != nil {
		return nil, classifyNetError(ctx, err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &Error{
			Kind:       KindFetch,
			Message:    fmt.Sprintf("the feed URL answered HTTP %d", resp.StatusCode),
			StatusCode: resp.StatusCode,
		}
	}
	if resp.ContentLength > MaxFeedBytes {
		return nil, tooLarge()
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFeedBytes+1))
	if err != nil {
		e := classifyNetError(ctx, err)
		if e.Message == msgUnreachable {
			e.Message = "the connection broke while the feed was being downloaded"
		}
		return nil, e
	}
	if len(body) > MaxFeedBytes {
		return nil, tooLarge()
	}
	return Parse(bytes.NewReader(body))
}

func tooLarge() *Error {
	return parseError(fmt.Sprintf("the feed is larger than the %d MiB limit", MaxFeedBytes>>20), nil)
}

// checkURL validates rawURL as an absolute http or https URL with a host.
func checkURL(rawURL string) (*url.URL, *Error) {
	s := strings.TrimSpace(rawURL)
	if s == "" {
		return nil, fetchError("the feed URL is empty", nil)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fetchError("the feed URL is not a valid URL", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fetchError("the feed URL is not an absolute http or https URL", nil)
	default:
		return nil, fetchError(fmt.Sprintf("the feed URL must use http or https, not %q", strings.ToLower(u.Scheme)), nil)
	}
	if u.Hostname() == "" {
		return nil, fetchError("the feed URL has no host", nil)
	}
	return u, nil
}

const msgUnreachable = "the feed's server could not be reached"

// classifyNetError turns an error from the HTTP client, or from reading a
// response body, into a KindFetch *Error with a message in words.
func classifyNetError(ctx context.Context, err error) *Error {
	var (
		dnsErr   *net.DNSError
		netErr   net.Error
		certErr  *tls.CertificateVerificationError
		unkAuth  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		recHdErr tls.RecordHeaderError
		refused  interface {
			error
			Refused() bool
		}
	)
	msg := msgUnreachable
	switch {
	case errors.As(err, &refused) && refused.Refused():
		// The dialer's URL policy: the service reaches only public addresses.
		msg = "the feed URL leads to an address the service cannot reach (" + refused.Error() + ")"
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		msg = "fetching the feed was cancelled"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		msg = "the feed's server did not answer in time"
	case errors.As(err, &dnsErr):
		msg = "the feed's host could not be found"
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = "the feed's server refused the connection"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		msg = "the feed's server closed the connection without a complete answer"
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		msg = "the feed's host could not be reached"
	case errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
		msg = "the feed's server presented a TLS certificate that could not be verified"
	case errors.As(err, &recHdErr):
		msg = "the feed's server did not answer over TLS"
	case strings.Contains(err.Error(), "stopped after") && strings.Contains(err.Error(), "redirects"):
		// net/http's default redirect policy gives up with an untyped error.
		msg = "the feed URL redirected too many times"
	case strings.Contains(err.Error(), "unsupported protocol scheme"):
		// Only reachable through a redirect: the URL itself was checked.
		msg = "the feed URL redirected to a URL that is not http or https"
	}
	return fetchError(msg, err)
}
