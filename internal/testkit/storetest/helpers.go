// Package storetest holds what the SDK's own stores share beyond the exported contract suites
// (webhook/webhooktest, poller/pollertest): the multi-instance proofs against the fake
// (Receivers, Pollers), the round-trip count of the lease calls, and the benchmarks' bodies.
package storetest

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

// BenchClaim measures Claim alone on s, a fresh id each time.
func BenchClaim(b *testing.B, s webhook.DedupStore) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if st, _, err := s.Claim(ctx, "msg_"+strconv.Itoa(i), time.Minute); err != nil || st != webhook.Claimed {
			b.Fatal(st, err)
		}
		i++
	}
}

// BenchClaimDuplicate measures the Claim of a redelivery on s: an id already done (done true)
// or claimed by another holder (done false), among 64 such ids.
func BenchClaimDuplicate(b *testing.B, s webhook.DedupStore, done bool) {
	ctx := context.Background()
	want := webhook.InProgress
	if done {
		want = webhook.AlreadyDone
	}
	const ids = 64
	for i := range ids {
		id := "dup_" + strconv.Itoa(i)
		if st, _, err := s.Claim(ctx, id, time.Hour); err != nil || st != webhook.Claimed {
			b.Fatal(st, err)
		}
		if done {
			if err := s.Complete(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if st, _, err := s.Claim(ctx, "dup_"+strconv.Itoa(i%ids), time.Hour); err != nil || st != want {
			b.Fatal(st, err)
		}
		i++
	}
}

// BenchClaimComplete measures one delivery's de-duplication on s: Claim, then Complete.
func BenchClaimComplete(b *testing.B, s webhook.DedupStore) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		id := "msg_" + strconv.Itoa(i)
		i++
		if st, _, err := s.Claim(ctx, id, time.Minute); err != nil || st != webhook.Claimed {
			b.Fatal(st, err)
		}
		if err := s.Complete(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	// A store that writes completions behind is timed until they are all written.
	if f, ok := s.(webhooktest.Flusher); ok {
		b.StartTimer()
		if err := f.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
	}
	readBack(b, s, "msg_0", "msg_"+strconv.Itoa(i-1))
}

// readBack checks, after a benchmark's run and its flush, that the completions landed: ids
// read as done (nothing is queued now, so the store asks its server). A store that looked fast
// by never writing fails here.
func readBack(b *testing.B, s webhook.DedupStore, ids ...string) {
	b.Helper()
	for _, id := range ids {
		if st, _, err := s.Claim(context.Background(), id, time.Minute); err != nil || st != webhook.AlreadyDone {
			b.Fatalf("after the run, Claim(%q) = %v, %v; want already done", id, st, err)
		}
	}
}

// BenchParallel runs op, each time with a fresh id ("msg_1" to "msg_<n>"), from 4 × GOMAXPROCS
// goroutines at once, as a receiver under a burst of deliveries; flush, if not nil, runs once
// at the end, timed. It returns n.
func BenchParallel(b *testing.B, op func(ctx context.Context, id string) error, flush func(ctx context.Context) error) int64 {
	ctx := context.Background()
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(ctx, "msg_"+strconv.FormatInt(next.Add(1), 10)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if flush != nil {
		if err := flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return next.Load()
}

// BenchClaimCompleteParallel is BenchClaimComplete under BenchParallel.
func BenchClaimCompleteParallel(b *testing.B, s webhook.DedupStore) {
	var flush func(context.Context) error
	if f, ok := s.(webhooktest.Flusher); ok {
		flush = f.Flush
	}
	n := BenchParallel(b, func(ctx context.Context, id string) error {
		st, _, err := s.Claim(ctx, id, time.Minute)
		if err != nil {
			return err
		}
		if st != webhook.Claimed {
			return fmt.Errorf("claim %s: %v", id, st)
		}
		return s.Complete(ctx, id)
	}, flush)
	b.StopTimer()
	readBack(b, s, "msg_1", "msg_"+strconv.FormatInt(n, 10))
}

// BenchLease measures RenewLease (save false) or SaveFenced (save true) on s.
func BenchLease(b *testing.B, s poller.LeaseStore, save bool) {
	ctx := context.Background()
	l, err := s.AcquireLease(ctx, "a", time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}
	b.ReportAllocs()
	for b.Loop() {
		if save {
			err = s.SaveFenced(ctx, l, st)
		} else {
			err = s.RenewLease(ctx, l, time.Minute)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// OneRoundTrip checks that RenewLease and SaveFenced each make one exchange with the server, as
// counted by sent (commands, or statements) after one warm-up of each.
func OneRoundTrip(t *testing.T, s poller.LeaseStore, sent func() int64) {
	ctx := context.Background()
	st := poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"}
	l, err := s.AcquireLease(ctx, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"RenewLease": func() error { return s.RenewLease(ctx, l, time.Minute) },
		"SaveFenced": func() error { return s.SaveFenced(ctx, l, st) },
	}
	for _, call := range calls { // warm up: load scripts, prepare statements
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	for name, call := range calls {
		before := sent()
		if err := call(); err != nil {
			t.Fatal(err)
		}
		if n := sent() - before; n != 1 {
			t.Errorf("%s took %d round trips, want 1", name, n)
		}
	}
}
