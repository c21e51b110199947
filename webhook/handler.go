package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/podqa/podqa-go/internal/errval"
)

// DefaultMaxBodyBytes is the default limit on a delivery body. Report events carry every
// check with its Markdown description and, for some checks, lists of timestamped items, so
// bodies of hundreds of KiB are plausible on long episodes; 4 MiB leaves ample room while
// still refusing absurd bodies before they are buffered.
const DefaultMaxBodyBytes = 4 << 20

// Errors Handler reports (to the hook of WithErrorHook) besides those of Verify and Parse.
var (
	// ErrBodyTooLarge: the body exceeds the limit of WithMaxBodyBytes; answered 413.
	ErrBodyTooLarge = errval.New("webhook.ErrBodyTooLarge", "webhook: body too large")
	// ErrMethodNotAllowed: the request is not a POST; answered 405.
	ErrMethodNotAllowed = errval.New("webhook.ErrMethodNotAllowed", "webhook: method not allowed")
	// ErrInFlight: a delivery with the same webhook-id is being processed right now; answered
	// 409 so that the sender retries later, when the outcome of the first is known.
	ErrInFlight = errval.New("webhook.ErrInFlight", "webhook: delivery with this webhook-id already in progress")
	// ErrCallback wraps the error the callback returned; answered 500 so the sender retries.
	ErrCallback = errval.New("webhook.ErrCallback", "webhook: callback failed")
	// ErrDedupStore wraps an error of the DedupStore.
	ErrDedupStore = errval.New("webhook.ErrDedupStore", "webhook: dedup store failed")
)

// HandlerOption configures Handler.
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	verifierOpts []VerifierOption
	store        DedupStore
	storeSet     bool
	maxBody      int64
	ignoreTest   bool
	timeout      time.Duration
	timeoutSet   bool
	onError      func(r *http.Request, status int, err error)
}

// WithVerifierOptions passes options (WithClock, WithTolerance) to the Handler's Verifier.
// The clock also drives the default MemoryStore's expiry.
func WithVerifierOptions(opts ...VerifierOption) HandlerOption {
	return func(c *handlerConfig) { c.verifierOpts = append(c.verifierOpts, opts...) }
}

// WithDedupStore replaces the default MemoryStore (30-hour TTL, 100,000 ids, per process) with
// store, typically one shared by every instance of the receiver. store must not be nil.
func WithDedupStore(store DedupStore) HandlerOption {
	return func(c *handlerConfig) { c.store, c.storeSet = store, true }
}

// WithMaxBodyBytes sets the largest body accepted (DefaultMaxBodyBytes by default); a larger
// one is answered 413 without being verified. n must be positive.
func WithMaxBodyBytes(n int64) HandlerOption { return func(c *handlerConfig) { c.maxBody = n } }

// WithIgnoreTestEvents makes Handler acknowledge test events (test: true, sent from the web
// app's Settings) with 200 after verifying them, without calling the callback.
func WithIgnoreTestEvents() HandlerOption { return func(c *handlerConfig) { c.ignoreTest = true } }

// WithTimeout gives the callback's context a deadline of d after the request arrived. The
// sender waits 10 seconds per attempt; a deadline a little under that (8 s, say) lets the
// callback give up and answer 500 itself rather than be cut off. d must be positive. Without
// it the callback's context ends only when the request's does (the sender hung up).
func WithTimeout(d time.Duration) HandlerOption {
	return func(c *handlerConfig) { c.timeout, c.timeoutSet = d, true }
}

// WithErrorHook sets a function called with every request answered with an error status,
// the status and the reason (wrapping the package's sentinels), for logging and metrics. It is
// also called with status 200 when the callback succeeded but the DedupStore could not record
// the id. It must be safe for concurrent use and should return quickly.
func WithErrorHook(hook func(r *http.Request, status int, err error)) HandlerOption {
	return func(c *handlerConfig) { c.onError = hook }
}

// Delivery identifies the delivery being handled; the callback reads it with
// DeliveryFromContext.
type Delivery struct {
	// ID is the webhook-id header: unique per delivery, stable across its retries.
	ID string
	// Timestamp is the webhook-timestamp header: when this attempt was sent.
	Timestamp time.Time
}

type deliveryKey struct{}

// DeliveryFromContext returns the Delivery of the request a Handler callback runs for; ok is
// false outside a callback.
func DeliveryFromContext(ctx context.Context) (d Delivery, ok bool) {
	d, ok = ctx.Value(deliveryKey{}).(Delivery)
	return d, ok
}

// Handler returns an http.Handler that receives the service's webhooks for the endpoint whose
// signing secret is secret, and calls fn once per delivery that verifies, parses and has not
// been processed before. The package documentation lists every status it answers with.
//
// fn should return quickly: the sender waits 10 seconds, then counts the attempt as failed and
// retries about 10 minutes later. Enqueue slow work and return; see WithTimeout. A nil error
// from fn means the event is handled: the id is marked in the DedupStore and 200 is answered.
// An error means it is not: nothing is marked and 500 is answered, so the sender retries.
//
// Handler fails when secret is invalid (see NewVerifier), fn is nil, or an option is invalid
// (ErrInvalidOption).
func Handler(secret string, fn func(ctx context.Context, e Event) error, opts ...HandlerOption) (http.Handler, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil callback", ErrInvalidOption)
	}
	cfg := handlerConfig{maxBody: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxBody <= 0 {
		return nil, fmt.Errorf("%w: WithMaxBodyBytes(%d) is not positive", ErrInvalidOption, cfg.maxBody)
	}
	if cfg.timeoutSet && cfg.timeout <= 0 {
		return nil, fmt.Errorf("%w: WithTimeout(%v) is not positive", ErrInvalidOption, cfg.timeout)
	}
	v, err := NewVerifier(secret, cfg.verifierOpts...)
	if err != nil {
		return nil, err
	}
	store := cfg.store
	if cfg.storeSet && store == nil {
		return nil, fmt.Errorf("%w: WithDedupStore(nil)", ErrInvalidOption)
	}
	if !cfg.storeSet {
		if store, err = NewMemoryStore(WithDedupClock(v.now)); err != nil {
			return nil, err
		}
	}
	return &handler{cfg: cfg, v: v, store: store, fn: fn, inFlight: make(map[string]struct{})}, nil
}

type handler struct {
	cfg   handlerConfig
	v     *Verifier
	store DedupStore
	fn    func(context.Context, Event) error

	mu       sync.Mutex
	inFlight map[string]struct{}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The sender's 10 seconds run from here, so WithTimeout does too (real time: it bounds
	// real work, whatever clock the Verifier uses).
	arrived := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.fail(w, r, http.StatusMethodNotAllowed, ErrMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Errorf("%w: over %d bytes", ErrBodyTooLarge, h.cfg.maxBody))
			return
		}
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("webhook: reading body: %w", err))
		return
	}
	if err := h.v.Verify(r.Header, body); err != nil {
		status := http.StatusUnauthorized
		if errors.Is(err, ErrMissingHeaders) || errors.Is(err, ErrInvalidTimestamp) {
			status = http.StatusBadRequest
		}
		h.fail(w, r, status, err)
		return
	}
	e, err := Parse(body)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	if e.Test && h.cfg.ignoreTest {
		ok(w, "ignored test event")
		return
	}
	id := r.Header.Get(HeaderID)
	if !h.claim(id) {
		h.fail(w, r, http.StatusConflict, ErrInFlight)
		return
	}
	defer h.release(id)
	seen, err := h.store.Seen(r.Context(), id)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, fmt.Errorf("%w: Seen: %w", ErrDedupStore, err))
		return
	}
	if seen {
		ok(w, "duplicate delivery")
		return
	}
	ts, _ := strconv.ParseInt(r.Header.Get(HeaderTimestamp), 10, 64) // verified above
	ctx := context.WithValue(r.Context(), deliveryKey{}, Delivery{ID: id, Timestamp: time.Unix(ts, 0).UTC()})
	if h.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, arrived.Add(h.cfg.timeout))
		defer cancel()
	}
	if err := h.fn(ctx, e); err != nil {
		h.fail(w, r, http.StatusInternalServerError, fmt.Errorf("%w: %w", ErrCallback, err))
		return
	}
	// The event is handled even if the sender hung up meanwhile: record it so that the retry
	// that follows is recognised.
	if err := h.store.Mark(context.WithoutCancel(r.Context()), id); err != nil && h.cfg.onError != nil {
		// Answering 500 would make the sender retry an event already handled; the only cost
		// of 200 is that a later redelivery would not be recognised.
		h.cfg.onError(r, http.StatusOK, fmt.Errorf("%w: Mark: %w", ErrDedupStore, err))
	}
	ok(w, "ok")
}

// claim marks id as being processed; false when it already is.
func (h *handler) claim(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, busy := h.inFlight[id]; busy {
		return false
	}
	h.inFlight[id] = struct{}{}
	return true
}

func (h *handler) release(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.inFlight, id)
}

// fail answers status with a short plain-text reason. The callback's own error is not sent
// back: it may describe the receiver's internals.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if h.cfg.onError != nil {
		h.cfg.onError(r, status, err)
	}
	msg := err.Error()
	switch {
	case errors.Is(err, ErrCallback):
		msg = ErrCallback.Error()
	case errors.Is(err, ErrDedupStore):
		msg = ErrDedupStore.Error()
	}
	http.Error(w, msg, status)
}

func ok(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, msg+"\n")
}
