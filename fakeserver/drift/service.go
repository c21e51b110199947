package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podqa/podqa-go/client"
)

// errOtherOrigin refuses a redirect away from the base URL's origin.
var errOtherOrigin = errors.New("a redirect to another origin is not followed")

// maxDocument bounds a contract document or an answer read.
const maxDocument = 32 << 20

// service is the one base URL a check or an import reaches, and how it reaches it.
type service struct {
	base   string
	origin *url.URL
	hc     *http.Client
	clock  client.Clock
	retry  client.RetryPolicy
	pace   *pacer
	sdk    *client.Client // nil without a key
}

func newService(base string, s *settings) (*service, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(base), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w: the base URL must be http(s)://host[/path] without query or credentials", ErrInvalidArgument)
	}
	sv := &service{base: u.String(), origin: u, clock: s.clock, retry: s.retry, pace: &pacer{limit: s.perMinute, clock: s.clock}}
	// Only the origin given: a redirect elsewhere is an answer, never followed.
	hc := *s.hc
	hc.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if req.URL.Scheme != u.Scheme || req.URL.Host != u.Host {
			return fmt.Errorf("%w (%s)", errOtherOrigin, req.URL.Host)
		}
		return http.ErrUseLastResponse
	}
	sv.hc = &hc
	if s.apiKey != "" {
		pace := func(req *http.Request, next client.MiddlewareNext) (*http.Response, error) {
			if err := sv.pace.wait(req.Context()); err != nil {
				return nil, err
			}
			return next(req)
		}
		sv.sdk, err = client.New(s.apiKey, client.WithBaseURL(sv.base), client.WithHTTPClient(sv.hc), client.WithClock(s.clock),
			client.WithRetryPolicy(s.retry), client.WithMiddleware(pace), client.WithUserAgent("podqa-fakeserver-drift"))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
	}
	return sv, nil
}

// document fetches a public, keyless document at path, retrying as the SDK's client does: a
// 429 after its Retry-After, a 5xx or a lost connection after a backoff. It returns the body
// and its media type.
func (sv *service) document(ctx context.Context, path string) ([]byte, string, error) {
	p := sv.retry
	attempts := max(p.MaxAttempts, 1)
	var last error
	for n := range attempts {
		body, mediaType, wait, err := sv.documentOnce(ctx, path)
		if err == nil {
			return body, mediaType, nil
		}
		if wait < 0 || ctx.Err() != nil {
			return nil, "", err
		}
		last = err
		if n == attempts-1 {
			break
		}
		if wait == 0 {
			wait = backoff(p.MinBackoff, p.MaxBackoff, n)
		}
		if p.MaxRetryAfter > 0 && wait > p.MaxRetryAfter {
			return nil, "", fmt.Errorf("%w (its Retry-After, %s, is longer than %s)", err, wait, p.MaxRetryAfter)
		}
		if err := sv.clock.Sleep(ctx, wait); err != nil {
			return nil, "", err
		}
	}
	return nil, "", last
}

// documentOnce is one attempt of document; wait is the pause before a retry (0: the backoff's;
// negative: no retry).
func (sv *service) documentOnce(ctx context.Context, path string) (body []byte, mediaType string, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sv.base+path, nil)
	if err != nil {
		return nil, "", -1, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	req.Header.Set("User-Agent", "podqa-go/"+client.Version+" podqa-fakeserver-drift")
	resp, err := sv.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", -1, ctx.Err()
		}
		wait := time.Duration(0)
		if errors.Is(err, errOtherOrigin) {
			wait = -1 // retrying cannot help
		}
		return nil, "", wait, fmt.Errorf("%w: GET %s: %s", ErrUnreachable, path, transportReason(err))
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	switch {
	case err != nil:
		return nil, "", 0, fmt.Errorf("%w: GET %s: reading the answer: %s", ErrUnreachable, path, transportReason(err))
	case len(body) > maxDocument:
		return nil, "", -1, fmt.Errorf("%w: GET %s: the answer is larger than %d bytes", ErrNotJSON, path, maxDocument)
	case resp.StatusCode == http.StatusTooManyRequests:
		ra, _ := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
		return nil, "", time.Duration(max(ra, 0)) * time.Second, fmt.Errorf("%w: GET %s: 429, rate limited past the retries", ErrUnreachable, path)
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return nil, "", 0, fmt.Errorf("%w: GET %s: %d %s", ErrUnreachable, path, resp.StatusCode, http.StatusText(resp.StatusCode))
	case resp.StatusCode != http.StatusOK:
		return nil, "", -1, fmt.Errorf("%w: GET %s: %d %s", ErrUnreachable, path, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	mediaType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return body, mediaType, 0, nil
}

// backoff is the SDK's exponential backoff from minWait to maxWait, with jitter.
func backoff(minWait, maxWait time.Duration, n int) time.Duration {
	d := minWait
	for i := 0; i < n && d < maxWait; i++ {
		d *= 2
	}
	d = min(d, maxWait)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// transportReason is a transport error's text without the URL, which names only the base.
func transportReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// get makes a keyed REST GET under /api/rest/v1 and returns its JSON body.
func (sv *service) get(ctx context.Context, path string) ([]byte, error) {
	resp, err := sv.sdk.Do(ctx, client.RawRequest{Method: http.MethodGet, Path: "/api/rest/v1" + path})
	if err != nil {
		return nil, callError("GET "+path, err)
	}
	return resp.Body, nil
}

// graphQL sends a read-only GraphQL query and returns its data; an errors array is an error.
func (sv *service) graphQL(ctx context.Context, query string, vars map[string]any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	resp, err := sv.sdk.Do(ctx, client.RawRequest{Method: http.MethodPost, Path: "/api/graphql", Body: body, Idempotent: true})
	if err != nil {
		return nil, callError("POST /api/graphql", err)
	}
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(resp.Body, &answer); err != nil {
		return nil, fmt.Errorf("%w: POST /api/graphql: %s", ErrNotJSON, err)
	}
	if len(answer.Errors) > 0 {
		return nil, &graphQLError{msg: answer.Errors[0].Message}
	}
	return answer.Data, nil
}

// graphQLError is a GraphQL answer with errors.
type graphQLError struct{ msg string }

func (e *graphQLError) Error() string { return "POST /api/graphql: " + e.msg }

// callError classes an error of the SDK's client.
func callError(op string, err error) error {
	var ae *client.APIError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case !errors.As(err, &ae):
		return fmt.Errorf("%w: %s: %s", ErrUnreachable, op, transportReason(err))
	case ae.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%w: %s: 401 %s", ErrKeyRefused, op, ae.Code)
	case ae.StatusCode >= 200 && ae.StatusCode < 300:
		return fmt.Errorf("%w: %s: %s", ErrNotJSON, op, ae.Message)
	case ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= 500:
		return fmt.Errorf("%w: %s: %d past the retries", ErrUnreachable, op, ae.StatusCode)
	}
	return &answerError{op: op, status: ae.StatusCode, code: string(ae.Code)}
}

// answerError is a 4xx answer to a read the contract says succeeds.
type answerError struct {
	op     string
	status int
	code   string
}

func (e *answerError) Error() string {
	if e.code == "" {
		return fmt.Sprintf("%s: %d", e.op, e.status)
	}
	return fmt.Sprintf("%s: %d %s", e.op, e.status, e.code)
}

// pacer keeps to at most limit requests in each fixed minute of the clock, as the service
// counts them; limit 0 does not pace.
type pacer struct {
	mu     sync.Mutex
	limit  int
	clock  client.Clock
	window time.Time
	count  int
}

func (p *pacer) wait(ctx context.Context) error {
	if p.limit == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	if w := now.Truncate(time.Minute); !w.Equal(p.window) {
		p.window, p.count = w, 0
	}
	if p.count >= p.limit {
		next := p.window.Add(time.Minute)
		if err := p.clock.Sleep(ctx, next.Sub(now)); err != nil {
			return err
		}
		p.window, p.count = p.clock.Now().Truncate(time.Minute), 0
	}
	p.count++
	return nil
}

// compactJSON is b without insignificant space, for byte-stable output.
func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
