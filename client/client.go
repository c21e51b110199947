package client

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/podqa/podqa-go/internal/errval"
)

// DefaultBaseURL is the service's base URL. The REST API lives under DefaultBaseURL +
// "/api/rest/v1" and the webhook subscription calls under DefaultBaseURL + "/webhook/subscribe".
const DefaultBaseURL = "https://podqa.io"

// Version is the version of this package, sent in the User-Agent header.
const Version = "0.2.0"

// DefaultAttemptTimeout bounds each HTTP attempt of the default HTTP client (connection,
// request, response headers and body). A client given WithHTTPClient uses its own settings.
const DefaultAttemptTimeout = 60 * time.Second

// ErrInvalidArgument is wrapped by the errors the package returns without calling the service
// because an argument cannot be sent: an id that is not a UUID, a number out of range, an
// empty required field.
var ErrInvalidArgument = errval.New("client.ErrInvalidArgument", "podqa: invalid argument")

// Client calls the podqa REST API and the webhook subscription calls. It is safe for
// concurrent use. Create one with New and reuse it.
type Client struct {
	cred       *credential // a pointer, so that printing a Client never prints the key
	baseURL    string
	restServer string // baseURL + "/api/rest/v1/", for the generated request builders
	rootServer string // baseURL + "/", for the webhook subscription calls
	http       *http.Client
	policy     RetryPolicy
	userAgent  string
	log        *slog.Logger // nil: no logging
	mw         *middlewares // nil: no middleware (WithMiddleware)

	clock Clock // WithClock
}

// credential holds the Authorization header value. Its String and GoString hide it.
type credential struct {
	authorization string
}

func (*credential) String() string   { return "[redacted]" }
func (*credential) GoString() string { return "[redacted]" }

// Option configures New.
type Option func(*Client) error

// RetryPolicy says how the client retries. The rules of what is retried are fixed (see the
// package documentation); the policy sets how often and how long. A zero field takes its
// default from DefaultRetryPolicy.
type RetryPolicy struct {
	// MaxAttempts is the most attempts a call makes, the first included; 1 disables retries.
	MaxAttempts int
	// MinBackoff and MaxBackoff bound the exponential backoff between attempts (with jitter)
	// when the server gave no Retry-After.
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits. A longer one ends the call at
	// once with the *APIError, its RetryAfter set, so that the caller can schedule the retry.
	// A negative value never waits for a Retry-After.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy used unless WithRetryPolicy says otherwise: 4 attempts,
// backoff from 500 ms to 30 s, and Retry-After waits of up to 60 s (which covers the per-minute
// limit but not the hourly write limit).
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, MinBackoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, MaxRetryAfter: time.Minute}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = d.MinBackoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = max(d.MaxBackoff, p.MinBackoff)
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = p.MinBackoff
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	return p
}

// New returns a client that authenticates with apiKey. The key is sent only in the
// Authorization header; it never appears in logs or errors. An empty key is an error.
func New(apiKey string, opts ...Option) (*Client, error) {
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" {
		return nil, fmt.Errorf("%w: an API key is required", ErrInvalidArgument)
	}
	for i := 0; i < len(apiKey); i++ {
		if b := apiKey[i]; b < 0x21 || b == 0x7f {
			return nil, fmt.Errorf("%w: the API key contains a space or control character", ErrInvalidArgument)
		}
	}
	c := &Client{
		cred:      &credential{authorization: "Bearer " + apiKey},
		http:      &http.Client{Timeout: DefaultAttemptTimeout},
		policy:    DefaultRetryPolicy(),
		userAgent: "podqa-go/" + Version,
		clock:     SystemClock{},
	}
	if err := WithBaseURL(DefaultBaseURL)(c); err != nil {
		return nil, err
	}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	c.http = guardRedirects(c.http)
	return c, nil
}

// WithBaseURL sets the service's base URL (scheme and host, optionally a path prefix), such as
// a fake's URL. Default DefaultBaseURL.
func WithBaseURL(base string) Option {
	return func(c *Client) error {
		u, err := url.Parse(strings.TrimRight(base, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("%w: base URL must be http(s)://host[/path] without query or credentials", ErrInvalidArgument)
		}
		c.baseURL = u.String()
		c.restServer = c.baseURL + "/api/rest/v1/"
		c.rootServer = c.baseURL + "/"
		return nil
	}
}

// WithHTTPClient makes the client send its requests through hc (its transport, timeouts,
// proxies, redirect policy). The client adds its own retries on top, and sends through a copy of
// hc whose CheckRedirect first refuses to follow a credentialed or non-idempotent request to
// another origin (scheme, host or port), then asks hc.CheckRedirect; hc is not modified.
// Default: an http.Client with DefaultAttemptTimeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return fmt.Errorf("%w: nil *http.Client", ErrInvalidArgument)
		}
		c.http = hc
		return nil
	}
}

// WithRetryPolicy sets how often and how long the client retries; zero fields keep their
// defaults. RetryPolicy{MaxAttempts: 1} disables retries.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		c.policy = p.withDefaults()
		return nil
	}
}

// WithUserAgent appends suffix, such as "my-integration/1.2", to the User-Agent header.
func WithUserAgent(suffix string) Option {
	return func(c *Client) error {
		suffix = strings.TrimSpace(suffix)
		if strings.ContainsAny(suffix, "\r\n") {
			return fmt.Errorf("%w: user agent contains a line break", ErrInvalidArgument)
		}
		c.userAgent = "podqa-go/" + Version
		if suffix != "" {
			c.userAgent += " " + suffix
		}
		return nil
	}
}

// WithLogger makes the client log each attempt (at Debug) and each retry (at Info) to l: method,
// path, status, attempt, wait. Request headers and bodies are never logged. Default: no logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		c.log = l
		return nil
	}
}

// BaseURL returns the base URL the client calls.
func (c *Client) BaseURL() string { return c.baseURL }
