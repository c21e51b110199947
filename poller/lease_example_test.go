package poller_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/poller"
)

// The lease as the pollers use it: one holder at a time, a new token when it changes hands, and
// a save under an old token refused.
func ExampleLeaseStore() {
	ctx := context.Background()
	clk := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	var store poller.LeaseStore = poller.NewMemoryLeaseStore(poller.WithLeaseClock(clk))
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}

	a, _ := store.AcquireLease(ctx, "replica-a", 15*time.Second)
	fmt.Println("a holds token", a.Token)
	_, err := store.AcquireLease(ctx, "replica-b", 15*time.Second)
	var held *poller.LeaseHeldError
	if errors.As(err, &held) {
		fmt.Printf("b waits: held by %s for %v\n", held.Holder, held.Remaining)
	}

	clk.Advance(20 * time.Second) // a stalls past its TTL
	b, _ := store.AcquireLease(ctx, "replica-b", 15*time.Second)
	fmt.Println("b holds token", b.Token)
	fmt.Println("a's save:", store.SaveFenced(ctx, a, st))
	fmt.Println("b's save:", store.SaveFenced(ctx, b, st))
	// Output:
	// a holds token 1
	// b waits: held by replica-a for 15s
	// b holds token 2
	// a's save: poller: the lease was lost
	// b's save: <nil>
}
