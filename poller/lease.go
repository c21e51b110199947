package poller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/errval"
)

// DefaultLeaseTTL is how long a poller's lease on a LeaseStore lasts unless renewed (every
// third of it while the poller holds it), and so about the longest a dead holder keeps the
// others waiting.
const DefaultLeaseTTL = 15 * time.Second

// Lease is a poller's hold on a LeaseStore: who holds it, and the fencing token that the store
// makes larger every time the lease changes hands. A save under a lease whose token is no
// longer the store's (the lease expired, another poller took it) is refused.
type Lease struct {
	// Holder names the poller (WithHolder); Token is the fencing token.
	Holder string
	Token  int64
}

// Errors of the lease.
var (
	// ErrLeaseHeld: another poller holds the lease; this one waits (Run) or returns the error
	// (PollOnce). Wrapped by *LeaseHeldError.
	ErrLeaseHeld = errval.New("poller.ErrLeaseHeld", "poller: the lease is held by another poller")
	// ErrLeaseLost: the lease this poller held expired or was taken over; it stopped before
	// saving, and a save fenced by the old lease was refused and not applied.
	ErrLeaseLost = errval.New("poller.ErrLeaseLost", "poller: the lease was lost")
)

// LeaseHeldError says who holds the lease and for how much longer, on the store's clock.
type LeaseHeldError struct {
	// Holder is the current holder; Remaining the time left on its lease.
	Holder    string
	Remaining time.Duration
}

// Error describes the holder.
func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("poller: the lease is held by %q for %v more", e.Holder, e.Remaining)
}

// Is makes errors.Is(err, ErrLeaseHeld) true.
func (e *LeaseHeldError) Is(target error) bool { return target == ErrLeaseHeld }

// LeaseStore is a Store shared by several pollers: of the pollers sharing it, exactly one
// polls at a time. A poller whose store implements it takes the lease before polling, renews it
// every third of its TTL while polling (and, in Run, between polls), reloads the state whenever
// the lease's token changed, stops when it can no longer renew, and saves with SaveFenced.
// Every TTL is measured on the store's clock (the database server's), so the pollers' clocks
// never decide. Subpackages pollerpg (PostgreSQL) and pollerredis (Redis) implement it; so does
// MemoryLeaseStore, for pollers sharing one process.
//
// AcquireLease and RenewLease refuse a ttl that is not positive, or below the store's
// resolution (a millisecond for Redis), with an error wrapping ErrInvalidOption, and change
// nothing: a lease of no time would end the moment it was granted or renewed.
type LeaseStore interface {
	Store
	// AcquireLease gives holder the lease for ttl when it is free or expired, with a new
	// token, or renews it keeping its token when holder holds it already. When another
	// holder does, it returns a *LeaseHeldError.
	AcquireLease(ctx context.Context, holder string, ttl time.Duration) (Lease, error)
	// RenewLease extends l by ttl from now if l is still the store's unexpired lease, and
	// returns ErrLeaseLost otherwise. One round trip.
	RenewLease(ctx context.Context, l Lease, ttl time.Duration) error
	// ReleaseLease gives l up if it is still the store's lease; otherwise it does nothing.
	ReleaseLease(ctx context.Context, l Lease) error
	// SaveFenced replaces the state with st if l is still the store's unexpired lease, and
	// returns ErrLeaseLost, writing nothing, otherwise. One round trip, atomic with the check.
	SaveFenced(ctx context.Context, l Lease, st State) error
}

type leaseConfig struct {
	ttl    time.Duration
	holder string
	// clock times the lease: renewals, and how long the poller may go on when they fail. It
	// is the wall clock (the lease's TTL runs in the store's real time, whatever the poller's
	// Clock, and Go's wall readings carry the monotonic clock); tests replace it.
	clock client.Clock
}

func defaultLeaseConfig() leaseConfig {
	host, _ := os.Hostname()
	return leaseConfig{
		ttl:    DefaultLeaseTTL,
		holder: host + "/" + strconv.Itoa(os.Getpid()) + "/" + uuid.NewString()[:8],
		clock:  client.SystemClock{},
	}
}

// WithLeaseTTL sets the lease's time-to-live on a LeaseStore (DefaultLeaseTTL by default): a
// holder that dies is taken over within it. It must be at least 10 ms; the store's round trip
// must stay well under a third of it.
func WithLeaseTTL(d time.Duration) Option {
	return func(c *config) error {
		if d < 10*time.Millisecond {
			return fmt.Errorf("%w: lease TTL %v is under 10ms", ErrInvalidOption, d)
		}
		c.lease.ttl = d
		return nil
	}
}

// WithHolder names this poller in the lease (by default host/pid/random, unique per Poller).
// Two pollers must never share a name: a holder renews a lease held under its own name.
func WithHolder(name string) Option {
	return func(c *config) error {
		if name == "" {
			return fmt.Errorf("%w: empty holder name", ErrInvalidOption)
		}
		c.lease.holder = name
		return nil
	}
}

// hold is a lease being kept: ctx ends (with cause ErrLeaseLost) when it can no longer be
// renewed, or when end is called.
type hold struct {
	lease  Lease
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// takeLease acquires the lease and starts renewing it in the background. When the token
// differs from the last lease this poller held, the state is reloaded before the next poll:
// another poller may have moved it.
func (p *Poller) takeLease(ctx context.Context, ls LeaseStore) (*hold, error) {
	// The store granted the lease at some moment after this one: counting from here, the
	// poller's own deadline falls before the store's expiry however slow the answer was.
	sent := p.cfg.lease.clock.Now()
	l, err := ls.AcquireLease(ctx, p.cfg.lease.holder, p.cfg.lease.ttl)
	if err != nil {
		if errors.Is(err, ErrLeaseHeld) {
			return nil, err
		}
		return nil, fmt.Errorf("poller: acquiring the lease: %w", err)
	}
	if l.Token != p.lastToken {
		p.loaded = false
		p.lastToken = l.Token
	}
	hctx, cancel := context.WithCancelCause(ctx)
	h := &hold{lease: l, ctx: hctx, cancel: cancel, done: make(chan struct{})}
	go p.renew(ls, h, sent)
	return h, nil
}

// renew renews h every third of the TTL until h ends. A renewal the store refuses ends h at
// once. When renewals fail otherwise (the store unreachable or slow), renew tries again every
// sixth of the TTL, and ends h once two thirds of the TTL have passed since the start of the
// last exchange that succeeded (the acquisition, or a renewal): the store cannot hand the lease
// to another poller before a whole TTL has passed since then, so the third left over is the
// margin for the poller's and the store's clocks running at slightly different rates. Only
// durations are measured, on the poller's monotonic clock, so an offset between the pollers'
// and the store's clocks does not matter.
func (p *Poller) renew(ls LeaseStore, h *hold, lastOK time.Time) {
	defer close(h.done)
	clk, ttl := p.cfg.lease.clock, p.cfg.lease.ttl
	var lastErr error
	wait := ttl / 3
	for {
		deadline := lastOK.Add(2 * ttl / 3)
		left := deadline.Sub(clk.Now())
		if left <= 0 {
			if lastErr == nil {
				lastErr = errors.New("the lease was granted too late to be used")
			}
			h.cancel(fmt.Errorf("%w: could not renew it in time: %w", ErrLeaseLost, lastErr))
			return
		}
		if err := clk.Sleep(h.ctx, min(wait, left)); err != nil {
			return
		}
		left = deadline.Sub(clk.Now())
		if left <= 0 {
			continue // out of time: the check above ends h
		}
		start := clk.Now()
		rctx, cancel := context.WithTimeout(h.ctx, min(ttl/3, left))
		err := ls.RenewLease(rctx, h.lease, ttl)
		cancel()
		switch {
		case err == nil:
			lastOK, lastErr, wait = start, nil, ttl/3
		case errors.Is(err, ErrLeaseLost):
			h.cancel(ErrLeaseLost)
			return
		case h.ctx.Err() != nil:
			return
		default:
			lastErr, wait = err, ttl/6
		}
	}
}

// end stops renewing h and, if release and the lease was not lost, gives the lease up.
func (p *Poller) end(ls LeaseStore, h *hold, release bool) {
	lost := leaseLost(h.ctx) != nil
	h.cancel(context.Canceled)
	<-h.done
	if release && !lost {
		ctx, cancel := context.WithTimeout(context.Background(), p.cfg.lease.ttl)
		defer cancel()
		_ = ls.ReleaseLease(ctx, h.lease) // if it fails, the lease expires after its TTL
	}
}

// leaseLost reports the error for a poll whose hold ended: ErrLeaseLost, or nil while held.
func leaseLost(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrLeaseLost) {
		return cause
	}
	return nil
}
