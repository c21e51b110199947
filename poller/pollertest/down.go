package pollertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/podqa/podqa-go/poller"
)

// TestStoreDown checks a LeaseStore s whose server is unreachable: every call is an error,
// never a lease answer (poller.ErrLeaseLost, poller.ErrLeaseHeld) that the Poller would take
// for one.
func TestStoreDown(t *testing.T, s poller.LeaseStore) {
	t.Helper()
	ctx := context.Background()
	l := poller.Lease{Holder: "a", Token: 1}
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}
	for name, err := range map[string]error{
		"Load":         func() error { _, err := s.Load(ctx); return err }(),
		"Save":         s.Save(ctx, st),
		"AcquireLease": func() error { _, err := s.AcquireLease(ctx, "a", time.Second); return err }(),
		"RenewLease":   s.RenewLease(ctx, l, time.Second),
		"SaveFenced":   s.SaveFenced(ctx, l, st),
		"ReleaseLease": s.ReleaseLease(ctx, l),
	} {
		if err == nil || errors.Is(err, poller.ErrLeaseLost) || errors.Is(err, poller.ErrLeaseHeld) {
			t.Errorf("%s with the server down: %v", name, err)
		}
	}
}
