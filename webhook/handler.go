package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
	// ErrInFlight: a delivery with the same webhook-id is being processed right now, by this
	// process or another sharing the DedupStore; answered 409 with Retry-After so that the
	// sender retries later, when the outcome of the first is known.
	ErrInFlight = errval.New("webhook.ErrInFlight", "webhook: delivery with this webhook-id already in progress")
	// ErrCallback wraps the error the callback returned; answered 500 so the sender retries.
	ErrCallback = errval.New("webhook.ErrCallback", "webhook: callback failed")
	// ErrDedupStore wraps an error of the DedupStore.
	ErrDedupStore = errval.New("webhook.ErrDedupStore", "webhook: dedup store failed")
)

// HandlerOption configures NewHandler.
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	verifierOpts []VerifierOption
	store        DedupStore
	storeSet     bool
	maxBody      int64
	ignoreTest   bool
	timeout      time.Duration
	timeoutSet   bool
	claimTTL     time.Duration
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

// DefaultClaimTTL is how long a Handler's claim on a webhook-id lasts by default: well over the
// sender's 10-second wait, and well under its first retry (about 10 minutes later), so that the
// retry of a delivery whose receiver died mid-callback is processed.
const DefaultClaimTTL = 2 * time.Minute

// WithClaimTTL sets how long the claim on a delivery's webhook-id lasts while the callback runs
// (DefaultClaimTTL by default). It must exceed the callback's longest run: once it expires, a
// redelivery may run the callback concurrently. d must be positive, and above WithTimeout's
// deadline when both are given.
func WithClaimTTL(d time.Duration) HandlerOption { return func(c *handlerConfig) { c.claimTTL = d } }

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

// NewHandler returns an http.Handler that receives the service's webhooks for the endpoint whose
// signing secret is secret, and calls fn once per delivery that verifies, parses and has not
// been processed before. The package documentation lists every status it answers with.
//
// fn should return quickly: the sender waits 10 seconds, then counts the attempt as failed and
// retries about 10 minutes later. Enqueue slow work and return; see WithTimeout. fn runs only
// under a claim on the webhook-id in the DedupStore (see DedupStore). A nil error from fn means
// the event is handled: the id is completed and 200 is answered. An error means it is not: the
// claim is released and 500 is answered, so the sender's retry runs fn again.
//
// NewHandler fails when secret is invalid (see NewVerifier), fn is nil, or an option is invalid
// (ErrInvalidOption).
func NewHandler(secret string, fn func(ctx context.Context, e Event) error, opts ...HandlerOption) (http.Handler, error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil callback", ErrInvalidOption)
	}
	cfg := handlerConfig{maxBody: DefaultMaxBodyBytes, claimTTL: DefaultClaimTTL}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxBody <= 0 {
		return nil, fmt.Errorf("%w: WithMaxBodyBytes(%d) is not positive", ErrInvalidOption, cfg.maxBody)
	}
	if cfg.timeoutSet && cfg.timeout <= 0 {
		return nil, fmt.Errorf("%w: WithTimeout(%v) is not positive", ErrInvalidOption, cfg.timeout)
	}
	if cfg.claimTTL <= 0 {
		return nil, fmt.Errorf("%w: WithClaimTTL(%v) is not positive", ErrInvalidOption, cfg.claimTTL)
	}
	if cfg.timeoutSet && cfg.timeout >= cfg.claimTTL {
		// The claim would expire while the callback may still run.
		return nil, fmt.Errorf("%w: WithTimeout(%v) is not below the claim TTL %v (WithClaimTTL)", ErrInvalidOption, cfg.timeout, cfg.claimTTL)
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
		if store, err = NewMemoryStore(WithDedupClock(v.clock)); err != nil {
			return nil, err
		}
	}
	return &handler{cfg: cfg, v: v, store: store, fn: fn, retryAfter: retryAfterSeconds(cfg.claimTTL)}, nil
}

type handler struct {
	cfg        handlerConfig
	v          *Verifier
	store      DedupStore
	fn         func(context.Context, Event) error
	retryAfter string
}

// retryAfterSeconds is the Retry-After of a 409: the claim's TTL, rounded up to seconds.
func retryAfterSeconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
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
	status, token, err := h.store.Claim(r.Context(), id, h.cfg.claimTTL)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, fmt.Errorf("%w: Claim: %w", ErrDedupStore, err))
		return
	}
	switch status {
	case Claimed:
	case AlreadyDone:
		ok(w, "duplicate delivery")
		return
	case InProgress:
		w.Header().Set("Retry-After", h.retryAfter)
		h.fail(w, r, http.StatusConflict, ErrInFlight)
		return
	default:
		h.fail(w, r, http.StatusInternalServerError, fmt.Errorf("%w: Claim returned %v", ErrDedupStore, status))
		return
	}
	// The claim is released when the callback fails, before answering, so that an immediate
	// retry finds the id free; and when it panics (the deferred call), so that the sender's
	// retry runs it in full. The request may be over; the release must still happen.
	released := false
	release := func() {
		released = true
		ctx, cancel := afterRequest(r)
		defer cancel()
		if err := h.store.Release(ctx, id, token); err != nil && h.cfg.onError != nil {
			h.cfg.onError(r, http.StatusInternalServerError, fmt.Errorf("%w: Release: %w", ErrDedupStore, err))
		}
	}
	handled := false
	defer func() {
		if !handled && !released {
			release()
		}
	}()
	var err2 error
	if handled, err2 = h.run(r, id, arrived, e); !handled {
		release()
		h.fail(w, r, http.StatusInternalServerError, fmt.Errorf("%w: %w", ErrCallback, err2))
		return
	}
	// The event is handled even if the sender hung up meanwhile: record it so that the retry
	// that follows is recognised.
	done, cancel := afterRequest(r)
	defer cancel()
	if err := h.store.Complete(done, id); err != nil && h.cfg.onError != nil {
		// Answering 500 would make the sender retry an event already handled; the only cost
		// of 200 is that a redelivery after the claim expired would not be recognised.
		h.cfg.onError(r, http.StatusOK, fmt.Errorf("%w: Complete: %w", ErrDedupStore, err))
	}
	ok(w, "ok")
}

// run calls the callback under the claim; handled is true when it returned nil, and err is its
// error otherwise.
func (h *handler) run(r *http.Request, id string, arrived time.Time, e Event) (handled bool, err error) {
	ts, _ := strconv.ParseInt(r.Header.Get(HeaderTimestamp), 10, 64) // verified above
	ctx := context.WithValue(r.Context(), deliveryKey{}, Delivery{ID: id, Timestamp: time.Unix(ts, 0).UTC()})
	if h.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, arrived.Add(h.cfg.timeout))
		defer cancel()
	}
	if err := h.fn(ctx, e); err != nil {
		return false, err
	}
	return true, nil
}

// storeGrace bounds the store calls made whether or not the sender still waits (Complete,
// Release), so that a store that hangs cannot hold a request's goroutine for ever.
const storeGrace = 10 * time.Second

// afterRequest is the context of a store call that must happen even if the sender hung up.
func afterRequest(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), storeGrace)
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
