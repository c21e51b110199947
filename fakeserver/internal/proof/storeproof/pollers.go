package storeproof

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
	"github.com/podqa/podqa-go/poller"
)

// fakeClock is a poller.Clock on the fake's manual clock, read with a skew: the poller's pauses
// move the fake.
type fakeClock struct {
	srv  *fakeserver.Server
	skew time.Duration
}

func (c fakeClock) Now() time.Time { return c.srv.Now().Add(c.skew) }

func (c fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := c.srv.Advance(d); err != nil {
		return err
	}
	return ctx.Err()
}

// killable is a LeaseStore that a test can kill: from then on every call fails, as if the
// process that made it had died (its lease is neither renewed nor released).
type killable struct {
	poller.LeaseStore
	dead atomic.Bool
	// saved runs after every fenced save that succeeded; acquired after every lease granted.
	saved, acquired func()
	// refused runs after every acquisition refused because another poller holds the lease,
	// with the wall time the call started.
	refused func(started time.Time, held *poller.LeaseHeldError)

	mu       sync.Mutex
	inFlight int       // lease calls (acquisitions, renewals) under way
	lastOK   time.Time // when the last lease call the store granted had returned
}

// leaseCall runs a lease call unless the store is dead, and notes when a granted one returned:
// the store set its expiry at most a TTL after that moment.
func (k *killable) leaseCall(call func() error) error {
	k.mu.Lock()
	if k.dead.Load() {
		k.mu.Unlock()
		return errDead
	}
	k.inFlight++
	k.mu.Unlock()
	err := call()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.inFlight--
	if err == nil {
		k.lastOK = time.Now()
	}
	return err
}

// lastGrant is when the last granted lease call returned.
func (k *killable) lastGrant() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastOK
}

// kill makes every later call fail. A lease call already under way still reaches the store.
func (k *killable) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead.Store(true)
}

// expiredBefore reports whether the dead store's lease had run out (by the wall clock, which
// the stores' servers share on loopback) before t: no call of it is under way and its last
// grant returned more than ttl (and a tenth of it for the servers' clock resolution) before t.
func (k *killable) expiredBefore(t time.Time, ttl time.Duration) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dead.Load() && k.inFlight == 0 && !k.lastOK.IsZero() && t.After(k.lastOK.Add(ttl+ttl/10))
}

var errDead = errors.New("storetest: this poller's process is dead")

func (k *killable) Load(ctx context.Context) (poller.State, error) {
	if k.dead.Load() {
		return poller.State{}, errDead
	}
	return k.LeaseStore.Load(ctx)
}

func (k *killable) Save(ctx context.Context, st poller.State) error {
	if k.dead.Load() {
		return errDead
	}
	return k.LeaseStore.Save(ctx, st)
}

func (k *killable) AcquireLease(ctx context.Context, holder string, ttl time.Duration) (poller.Lease, error) {
	var l poller.Lease
	started := time.Now()
	err := k.leaseCall(func() (err error) {
		l, err = k.LeaseStore.AcquireLease(ctx, holder, ttl)
		return err
	})
	var held *poller.LeaseHeldError
	switch {
	case err == nil && k.acquired != nil:
		k.acquired()
	case errors.As(err, &held) && k.refused != nil:
		k.refused(started, held)
	}
	return l, err
}

func (k *killable) RenewLease(ctx context.Context, l poller.Lease, ttl time.Duration) error {
	return k.leaseCall(func() error { return k.LeaseStore.RenewLease(ctx, l, ttl) })
}

func (k *killable) ReleaseLease(ctx context.Context, l poller.Lease) error {
	if k.dead.Load() {
		return errDead
	}
	return k.LeaseStore.ReleaseLease(ctx, l)
}

func (k *killable) SaveFenced(ctx context.Context, l poller.Lease, st poller.State) error {
	if k.dead.Load() {
		return errDead
	}
	err := k.LeaseStore.SaveFenced(ctx, l, st)
	if err == nil && k.saved != nil {
		k.saved()
	}
	return err
}

// PollersResult is what Pollers measured.
type PollersResult struct {
	// Twice counts the reports delivered twice; Takeover is the time from the kill to another
	// poller taking the lease, FirstDelivery to its first delivery (zero without a kill).
	Twice                   int
	Takeover, FirstDelivery time.Duration
	// KilledPage counts the reports the killed poller delivered in the page it died in.
	KilledPage int
}

// PollersTTL is the lease TTL to give Pollers: a live holder renews every third of it and
// loses it only if its renewals are starved for two thirds of it, 6.7 s rather than the 0.67 s
// of a 1 s TTL, which a loaded 2-core machine running -race can reach. The test waits it out
// once, after the kill.
const PollersTTL = 10 * time.Second

// Pollers is the proof for a shared LeaseStore: three pollers, each with its own store
// from newStore (sharing the same data), run against a fake with n reports completing every
// 100 ms of fake time, polling every 30 s of fake time (so most polls read several pages), their
// clocks ten TTLs apart from one another. It checks that at no moment two pollers run handlers,
// and that every report is delivered.
//
// Without kill, no report may be delivered twice. With kill, the poller delivering the
// (n/3+50)th report dies in the middle of that page, without releasing the lease: another must
// take over as soon as its lease has run out (no acquisition that starts a TTL after the dead
// poller's last grant is refused in its name), nothing is missed, and the reports delivered
// twice are exactly those the dead poller delivered in its last page before dying, so at most
// one page (poller.PageSize).
//
// No bound depends on the machine's speed: the leases run on the stores' real clocks, so the
// takeover is checked against the dead lease's expiry, not timed; ttl must be long enough that
// a live holder's renewals (every third of it) are never starved past two thirds of it on a
// loaded machine, or it loses its lease mid-page and delivers a page twice, as it should.
func Pollers(t *testing.T, newStore func(t *testing.T) poller.LeaseStore, ttl time.Duration, n int, kill bool) PollersResult {
	if testing.Short() {
		t.Skip("the three-poller proof is long: -short skips it, the full suite (CI) runs it")
	}
	srv, seed := fakeserver.NewTest(t, fakeserver.WithoutRateLimits())
	reports := make([]fakeserver.SeededReport, n)
	for i := range reports {
		reports[i].CompleteAfter = time.Duration(i+1) * 100 * time.Millisecond
	}
	ids, err := srv.SeedReports(seed.WorkspaceID, reports)
	if err != nil {
		t.Fatal(err)
	}
	start := srv.Now()

	var (
		mu           sync.Mutex
		got          = map[string]int{}
		byPoller     = map[int]int{}
		inHandler    atomic.Int32
		killedAt     time.Time
		killedIdx    = -1
		lateRefusals []string                         // acquisitions refused for the dead poller after its lease ran out
		takeover     time.Duration                    // kill → another poller holds the lease
		firstAfter   time.Duration                    // kill → another poller's first delivery
		sinceSave    = [3]map[string]bool{{}, {}, {}} // per poller, reports delivered since its last save
		pageOfKill   map[string]bool                  // the dead poller's, when it died
		all          = make(chan struct{})
	)
	stores := make([]*killable, 3)
	cancels := make([]context.CancelFunc, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		stores[i] = &killable{LeaseStore: newStore(t), saved: func() {
			// A checkpoint (after a page) or a commit stored what was delivered so far.
			mu.Lock()
			clear(sinceSave[i])
			mu.Unlock()
		}, acquired: func() {
			mu.Lock()
			if killedIdx >= 0 && killedIdx != i && takeover == 0 {
				takeover = time.Since(killedAt) // for the log only
			}
			mu.Unlock()
		}, refused: func(started time.Time, held *poller.LeaseHeldError) {
			mu.Lock()
			defer mu.Unlock()
			if killedIdx >= 0 && held.Holder == fmt.Sprint("poller-", killedIdx) && stores[killedIdx].expiredBefore(started, ttl) {
				lateRefusals = append(lateRefusals, fmt.Sprintf("poller %d refused at %v, %v after the dead holder's last grant returned", i, started.Format(time.StampMicro), started.Sub(stores[killedIdx].lastGrant())))
			}
		}}
		c := clienttest.NewClient(t, srv, seed.APIKey)
		// The pollers' clocks disagree by far more than the TTL: only the store's clock may
		// decide who holds the lease.
		skew := time.Duration(i-1) * 10 * ttl
		p, err := poller.New(c, stores[i], poller.WithClock(fakeClock{srv, skew}), poller.WithStartTime(start),
			poller.WithIntervalUnbounded(30*time.Second), poller.WithJitter(0), poller.WithLeaseTTL(ttl),
			poller.WithHolder(fmt.Sprint("poller-", i)))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		handler := func(ctx context.Context, cpl poller.Completion) error {
			if inHandler.Add(1) != 1 {
				t.Errorf("two pollers ran handlers at once")
			}
			defer inHandler.Add(-1)
			mu.Lock()
			defer mu.Unlock()
			if killedIdx == i {
				return errDead // the dead poller's last call, already under way
			}
			if kill && killedIdx < 0 && len(got) == n/3+50 {
				// Die mid-page: no more store calls, no release, the context cancelled.
				killedIdx, killedAt = i, time.Now()
				pageOfKill = sinceSave[i]
				stores[i].kill()
				cancels[i]()
				return errDead
			}
			if killedIdx >= 0 && killedIdx != i && firstAfter == 0 {
				firstAfter = time.Since(killedAt)
			}
			got[cpl.Item.ID]++
			byPoller[i]++
			sinceSave[i][cpl.Item.ID] = true
			if len(got) == n {
				close(all)
			}
			return nil
		}
		wg.Go(func() {
			_ = p.Run(ctx, handler)
		})
	}
	// A watchdog, not a bound: it only turns a hung test into a failure.
	select {
	case <-all:
	case <-time.After(5 * time.Minute):
		mu.Lock()
		t.Errorf("only %d of %d reports delivered", len(got), n)
		mu.Unlock()
	}
	for _, cancel := range cancels {
		cancel()
	}
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	res := PollersResult{Takeover: takeover, FirstDelivery: firstAfter}
	for _, id := range ids {
		switch got[id] {
		case 0:
			t.Errorf("report %s never delivered", id)
		case 1:
		default:
			res.Twice++
		}
	}
	if !kill {
		if res.Twice != 0 {
			t.Errorf("%d reports delivered twice with no poller dying", res.Twice)
		}
		return res
	}
	if killedIdx < 0 {
		t.Fatal("no poller was killed")
	}
	res.KilledPage = len(pageOfKill)
	// The dead lease ran out at most a TTL after its last grant; from then on the first
	// acquisition that asked had to get it.
	if takeover == 0 {
		t.Errorf("no poller took the lease over")
	}
	for _, r := range lateRefusals {
		t.Errorf("the dead poller's lease was still refused after it had run out: %s", r)
	}
	for id := range pageOfKill {
		if got[id] != 2 {
			t.Errorf("report %s of the dead poller's last page delivered %d times, want 2 (once by it, once after the takeover)", id, got[id])
		}
	}
	if res.Twice != len(pageOfKill) || res.Twice > poller.PageSize {
		t.Errorf("%d reports delivered twice, want exactly the %d the dead poller delivered in its last page (at most %d)", res.Twice, len(pageOfKill), poller.PageSize)
	}
	t.Logf("%d reports; poller %d killed mid-page after delivering %d reports of that page; lease taken over after %v of wall time (TTL %v), first delivery after %v; %d reports delivered twice; deliveries by poller %v",
		n, killedIdx, len(pageOfKill), takeover, ttl, firstAfter, res.Twice, byPoller)
	return res
}
