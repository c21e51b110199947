package drift

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/client"
)

// Errors of a check or an import that could not be made. Each is wrapped with the reason.
var (
	// ErrUnreachable is a service that could not be reached: no connection, or 5xx answers
	// past the retries.
	ErrUnreachable = errors.New("drift: the service could not be reached")
	// ErrNotJSON is an answer that should be JSON (or, for schema.graphql, GraphQL SDL) and is
	// not.
	ErrNotJSON = errors.New("drift: the service's answer is not what was asked for")
	// ErrKeyRefused is an API key the service refused (401).
	ErrKeyRefused = errors.New("drift: the service refused the API key")
	// ErrInvalidArgument is an option or argument that cannot be used.
	ErrInvalidArgument = errors.New("drift: invalid argument")
)

// DefaultRequestsPerMinute is the service's per-key limit, which Import and Check keep to.
const DefaultRequestsPerMinute = 100

// DefaultLimit is how many reports Import records unless WithLimit says otherwise.
const DefaultLimit = 200

// MaxLimit bounds WithLimit.
const MaxLimit = 100_000

// Option configures Check and Import.
type Option func(*settings) error

type settings struct {
	apiKey     string
	hc         *http.Client
	clock      client.Clock
	perMinute  int
	limit      int
	fixtureKey string
	progress   io.Writer
	retry      client.RetryPolicy
}

func newSettings(opts []Option) (*settings, error) {
	s := &settings{clock: client.SystemClock{}, perMinute: DefaultRequestsPerMinute, limit: DefaultLimit,
		hc: &http.Client{Timeout: client.DefaultAttemptTimeout}, retry: client.DefaultRetryPolicy()}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// WithAPIKey makes Check also hold the answers of read-only calls made with key to the
// contract. The key is sent only in the Authorization header to the base URL.
func WithAPIKey(key string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(key) == "" {
			return fmt.Errorf("%w: an empty API key", ErrInvalidArgument)
		}
		s.apiKey = strings.TrimSpace(key)
		return nil
	}
}

// WithHTTPClient sends every request through hc (its transport and timeouts). Redirects to
// another origin are never followed, whatever hc's policy.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) error {
		if hc == nil {
			return fmt.Errorf("%w: nil *http.Client", ErrInvalidArgument)
		}
		s.hc = hc
		return nil
	}
}

// WithClock makes the waits (Retry-After, retries, pacing) and the progress figures run on
// clk, such as a fake's Clock on a manual clock. Default client.SystemClock.
func WithClock(clk client.Clock) Option {
	return func(s *settings) error {
		if clk == nil {
			return fmt.Errorf("%w: nil Clock", ErrInvalidArgument)
		}
		s.clock = clk
		return nil
	}
}

// WithRetryPolicy sets the retries, as the SDK's client.WithRetryPolicy does; default
// client.DefaultRetryPolicy.
func WithRetryPolicy(p client.RetryPolicy) Option {
	return func(s *settings) error {
		s.retry = p
		return nil
	}
}

// WithRequestsPerMinute paces the calls to at most n a minute, in the service's fixed
// one-minute windows (default DefaultRequestsPerMinute); 0 does not pace, for a service
// without limits such as a fake started WithoutRateLimits. A 429 is waited out either way.
func WithRequestsPerMinute(n int) Option {
	return func(s *settings) error {
		if n < 0 {
			return fmt.Errorf("%w: requests per minute must not be negative, not %d", ErrInvalidArgument, n)
		}
		s.perMinute = n
		return nil
	}
}

// WithLimit makes Import record the newest n reports (default DefaultLimit, at most MaxLimit;
// 0 records none).
func WithLimit(n int) Option {
	return func(s *settings) error {
		if n < 0 || n > MaxLimit {
			return fmt.Errorf("%w: the limit must be from 0 to %d, not %d", ErrInvalidArgument, MaxLimit, n)
		}
		s.limit = n
		return nil
	}
}

// WithFixtureKey makes key (podqa_api_ and 24 to 128 letters, digits, - or _) the imported
// workspace's key in the fixtures; without it Import mints one and returns it.
func WithFixtureKey(key string) Option {
	return func(s *settings) error {
		if err := checkFixtureKey(key); err != nil {
			return err
		}
		s.fixtureKey = key
		return nil
	}
}

// WithProgress makes Import write a progress line to w now and then on long imports: reports
// recorded, the rate and the time left.
func WithProgress(w io.Writer) Option {
	return func(s *settings) error {
		s.progress = w
		return nil
	}
}

// keyPrefix begins every key of the service and of the fake.
const keyPrefix = "podqa_api_"

func checkFixtureKey(key string) error {
	rest, ok := strings.CutPrefix(key, keyPrefix)
	if !ok || len(rest) < 24 || len(rest) > 128 || strings.ContainsFunc(rest, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')
	}) {
		return fmt.Errorf("%w: a fixture key is %s followed by 24 to 128 letters, digits, - or _", ErrInvalidArgument, keyPrefix)
	}
	return nil
}
