package webhookpg

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/testkit/servicetest"
)

// TestClaimCommitsAsynchronously: every outcome of the claim statement turns synchronous_commit
// off for its own transaction, duplicates included. A duplicate writes too (ON CONFLICT DO
// UPDATE locks the row it found), so without this it would wait for a WAL flush: twice the
// cost of a new claim. The statement runs in a transaction that is rolled back, so that the
// setting can be read after it.
func TestClaimCommitsAsynchronously(t *testing.T) {
	t.Parallel()
	pool := servicetest.Postgres(t, pgxpool.New)
	ctx := context.Background()
	s, err := New(ctx, pool, WithTable(servicetest.Name("podqa_test_")))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"done", "held"} {
		if _, _, err := s.Claim(ctx, id, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Complete(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Claim(ctx, "expired", time.Microsecond); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want int // the statement's outcome: 1 claimed, 2 done, 3 held elsewhere
	}{
		{"new", 1},
		{"expired", 1},
		{"done", 2},
		{"held", 3},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(ctx) }()
			var got int
			if err := tx.QueryRow(ctx, s.claimSQL, tt.id, "token", time.Minute.Microseconds()).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("claim of %q = %d, want %d", tt.id, got, tt.want)
			}
			var setting string
			if err := tx.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil {
				t.Fatal(err)
			}
			if setting != "off" {
				t.Fatalf("after the claim of %q synchronous_commit = %q, want off", tt.id, setting)
			}
		})
	}
}
