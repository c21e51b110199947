package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// Attempt and Outcome are the wire package's, named here for the sender's own code: the core
// builds attempts and records outcomes without importing the sender.
type (
	Attempt = wire.Attempt
	Outcome = wire.Outcome
)

// Sender makes attempts over HTTP: POST, signed, within the receiver budget, never following a
// redirect, and connecting only to addresses its policy allows (checked again at connect time,
// so a name that has since started to resolve to an internal address is refused).
type Sender struct {
	policy Policy
	budget time.Duration
	// client and its transport are made by the first attempt (most fakes send none); mu
	// guards them.
	mu        sync.Mutex
	client    *http.Client
	transport *http.Transport
	// slots holds one token per attempt in flight, over every SendAll at once.
	slots chan struct{}
	// stamping is the clock of webhook-timestamp; wall is the wall clock (time.Now).
	stamping Stamping
	wall     func() time.Time
}

// maxParallel bounds how many receivers one SendAll serves at once.
const maxParallel = 64

// MaxInFlight bounds the attempts in flight over all of a sender's SendAll calls together: a
// burst of completions to hanging receivers waits for a slot (one goroutine per SendAll call,
// not one per attempt) instead of opening a connection per attempt.
const MaxInFlight = 128

// maxResponseRead is how much of a receiver's answer is read (then discarded), so that the
// connection can be reused without reading a huge body.
const maxResponseRead = 64 << 10

// NewSender returns a sender that connects according to policy and gives each receiver budget
// to answer: the service's (the core's ReceiverBudget) or a test's shorter one, handed by the
// caller; the sender does not know the delivery ladder. A budget of 0 or less makes every
// attempt fail at once, never wait without a bound.
func NewSender(policy Policy, budget time.Duration, opts ...SenderOption) *Sender {
	s := &Sender{
		policy: policy,
		budget: max(budget, time.Nanosecond), // 0 would mean no timeout at all
		slots:  make(chan struct{}, MaxInFlight),
		wall:   time.Now,
	}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// httpClient returns the client of attempts, made on the first call.
func (s *Sender) httpClient() *http.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		s.transport = &http.Transport{
			Proxy:                 nil, // deliveries go straight to the receiver, as the service's do
			DialContext:           s.policy.DialContext(s.budget, nil),
			MaxIdleConnsPerHost:   maxParallel,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   s.budget,
			ResponseHeaderTimeout: s.budget,
		}
		s.client = &http.Client{
			Transport: s.transport,
			Timeout:   s.budget,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return s.client
}

// Close drops the sender's idle connections.
func (s *Sender) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
}

// Send makes one attempt.
func (s *Sender) Send(ctx context.Context, a Attempt) Outcome {
	start := time.Now()
	out := s.send(ctx, a)
	out.Latency = time.Since(start)
	return out
}

// send makes one attempt; Send times it.
func (s *Sender) send(ctx context.Context, a Attempt) (out Outcome) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(a.Body))
	if err != nil {
		return Outcome{Err: "the URL cannot be requested"}
	}
	wall := s.wall()
	stamp := a.At
	if s.stamping == StampWall {
		stamp = wall
	}
	stamp = time.Unix(stamp.Unix(), 0) // the header's whole seconds, which the signature covers
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("webhook-id", a.MessageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(stamp.Unix(), 10))
	req.Header.Set("webhook-signature", wire.Sign(a.Key, a.MessageID, stamp, a.Body))
	out = s.answer(req, stamp, wall)
	out.Stamp = stamp
	// Whatever the outcome, its record shows the headers as they went out.
	out.Sent = sentHeaders(req)
	return out
}

// answer sends req, stamped stamp at wall on the wall clock, and reads what it got.
func (s *Sender) answer(req *http.Request, stamp, wall time.Time) (out Outcome) {
	resp, err := s.httpClient().Do(req)
	if err != nil {
		return Outcome{Err: s.describe(err)}
	}
	answer, cut, readErr := readAnswer(resp.Body)
	resp.Body.Close()
	defer func() { out.Answer, out.AnswerCut = answer, cut }()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return Outcome{StatusCode: resp.StatusCode, Err: fmt.Sprintf("HTTP %d: redirects are not followed", resp.StatusCode)}
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		msg := fmt.Sprintf("HTTP %d", resp.StatusCode)
		if advice := skewAdvice(stamp, wall); advice != "" {
			// The likeliest 4xx of a receiver verifying on its own clock: say why and the way out.
			msg += "; " + advice
		}
		return Outcome{StatusCode: resp.StatusCode, Err: msg}
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		return Outcome{StatusCode: resp.StatusCode, Err: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	case readErr != nil && isTimeout(readErr):
		return Outcome{StatusCode: resp.StatusCode, Err: s.describe(readErr)}
	}
	return Outcome{StatusCode: resp.StatusCode}
}

// SendAll makes the attempts and returns their outcomes in the same order. Attempts to one URL
// go one after another, in order, so that a receiver hears events in the order they happened;
// different URLs are served concurrently, at most 64 at a time and at most MaxInFlight over
// every call at once. An attempt that ctx ends before it gets a slot fails without being made.
func (s *Sender) SendAll(ctx context.Context, attempts []Attempt) []Outcome {
	out := make([]Outcome, len(attempts))
	var order []string
	byURL := map[string][]int{}
	for i, a := range attempts {
		if _, ok := byURL[a.URL]; !ok {
			order = append(order, a.URL)
		}
		byURL[a.URL] = append(byURL[a.URL], i)
	}
	sem := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for _, u := range order {
		sem <- struct{}{}
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			<-sem
			for _, i := range byURL[u] {
				out[i] = Outcome{Err: "the delivery was cancelled before it was sent"}
			}
			continue
		}
		wg.Add(1)
		go func(idx []int) {
			defer func() { <-s.slots; <-sem; wg.Done() }()
			for _, i := range idx {
				out[i] = s.Send(ctx, attempts[i])
			}
		}(byURL[u])
	}
	wg.Wait()
	return out
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// describe turns a transport error into a last_error text without the URL, which the log
// shows beside it anyway.
func (s *Sender) describe(err error) string {
	if isTimeout(err) {
		return fmt.Sprintf("timeout: no answer within %s", s.budget)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "connection error: " + err.Error()
}
