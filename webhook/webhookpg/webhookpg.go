// Package webhookpg is a webhook.DedupStore on PostgreSQL (github.com/jackc/pgx/v5), for
// receivers running as several instances behind a load balancer: give every instance's
// webhook.NewHandler the same store with webhook.WithDedupStore.
//
// One table (podqa_webhook_dedup by default, WithTable) holds a row per webhook-id: a claim
// (token set) until its expiry, or a completion (token NULL) kept for the done TTL
// (webhook.DefaultDedupTTL, 30 hours, by default). New creates the table and its index if they
// do not exist, under an advisory lock so that instances starting together do not collide.
// Every expiry is computed and compared by the server (clock_timestamp()), so the receivers'
// clocks never decide. Each call is one statement, one round trip, or none:
//
//   - Claim: INSERT … ON CONFLICT (id) DO UPDATE … WHERE the row expired, in a CTE whose
//     outer SELECT reads the existing row when the insert did nothing (a second statement is
//     needed only when a concurrent claim committed after the statement's snapshot).
//   - Complete queues the id and returns at once: a goroutine writes the completions queued
//     meanwhile in one INSERT … SELECT … FROM unnest($1) ON CONFLICT (id) DO UPDATE SET token =
//     NULL and the done expiry, so a burst of deliveries shares one commit. The sender's 200
//     does not wait for it; a duplicate reaching another instance meanwhile finds the claim
//     and is answered 409, to retry later. Flush waits for the queue: call it after the HTTP
//     server's Shutdown. A process that dies first loses only what a synchronous Complete
//     would have lost: the claims expire, and a later copy of those deliveries runs again.
//   - Release: DELETE … WHERE id and token match.
//
// Claims commit asynchronously (synchronous_commit off for the claim's own transaction only): a
// claim is a short-lived lock, and waiting for its WAL flush cost as much as the rest of the claim.
// So do the claims of redeliveries, which write nothing but a row lock. If the PostgreSQL server
// crashes within its WAL writer's delay (200 ms by default) of a claim, the claim may be lost as if
// it had expired, so a copy of that delivery arriving right after the crash could run the callback
// a second time. Completions and releases commit as the server is configured (synchronously by
// default): a completion, once written (Flush returned), is never lost.
//
// Expired rows are not read as claims or completions but stay until Sweep deletes them; call
// it now and then (hourly, say) from one instance.
//
// The package is a module of its own (go get github.com/podqa/podqa-go/webhook/webhookpg), so that
// only programs that use it have pgx in their module graph.
package webhookpg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/pgtable"
	"github.com/podqa/podqa-go/internal/writebehind"
	"github.com/podqa/podqa-go/webhook"
)

// DefaultTable is the table the store uses unless WithTable says otherwise.
const DefaultTable = "podqa_webhook_dedup"

// Store is a webhook.DedupStore in PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	table   string
	doneTTL time.Duration
	onError func(error)
	q       *writebehind.Queue

	claimSQL, stateSQL, completeSQL, releaseSQL, sweepSQL string
}

// Option configures New.
type Option func(*Store)

// WithTable sets the table's name, optionally schema-qualified ("schema.table"); each part is
// quoted as an identifier. DefaultTable by default.
func WithTable(name string) Option { return func(s *Store) { s.table = name } }

// WithDoneTTL sets how long a completed id is remembered (webhook.DefaultDedupTTL by default);
// keep it above the sender's 28-hour retry ladder. It must be at least a microsecond.
func WithDoneTTL(d time.Duration) Option { return func(s *Store) { s.doneTTL = d } }

// WithErrorHook sets a function called with the error of each failed write of completions
// (from the goroutine that writes them; see Complete). Such errors are also returned by the
// next Flush.
func WithErrorHook(hook func(error)) Option { return func(s *Store) { s.onError = hook } }

// New returns a store on pool, the application's own pool (the store never closes it), and
// creates the table if it does not exist. It fails with webhook.ErrInvalidOption for a nil
// pool, an empty table name or a TTL under a microsecond, and with the database's error if the
// table cannot be created.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	s := &Store{pool: pool, table: DefaultTable, doneTTL: webhook.DefaultDedupTTL}
	for _, o := range opts {
		o(s)
	}
	switch {
	case pool == nil:
		return nil, fmt.Errorf("%w: webhookpg: nil pool", webhook.ErrInvalidOption)
	case strings.TrimSpace(s.table) == "":
		return nil, fmt.Errorf("%w: webhookpg: empty table name", webhook.ErrInvalidOption)
	case s.doneTTL < time.Microsecond:
		return nil, fmt.Errorf("%w: webhookpg: WithDoneTTL(%v) is under a microsecond", webhook.ErrInvalidOption, s.doneTTL)
	}
	t := pgx.Identifier(strings.Split(s.table, ".")).Sanitize()
	// The claim commits asynchronously (set_config(…, true) lasts until this statement's
	// transaction commits): see the package documentation. The insert reads its row from cfg
	// so that set_config runs whatever the outcome: a duplicate writes too (ON CONFLICT DO
	// UPDATE locks the existing row even when its WHERE is false), and would otherwise wait
	// for a WAL flush.
	s.claimSQL = `WITH cfg AS (
	SELECT set_config('synchronous_commit', 'off', true) AS v
), claim AS (
	INSERT INTO ` + t + ` AS d (id, token, expires_at)
	SELECT $1, $2, clock_timestamp() + $3::bigint * interval '1 microsecond' FROM cfg
	ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
	WHERE d.expires_at <= clock_timestamp()
	RETURNING 1
)
SELECT 1 FROM claim
UNION ALL
SELECT CASE WHEN token IS NULL THEN 2 ELSE 3 END FROM ` + t + `
WHERE id = $1 AND expires_at > clock_timestamp() AND NOT EXISTS (SELECT 1 FROM claim)`
	s.stateSQL = `SELECT CASE WHEN token IS NULL THEN 2 ELSE 3 END FROM ` + t + ` WHERE id = $1 AND expires_at > clock_timestamp()`
	// The ids of one batch are distinct (writebehind never queues a key twice): ON CONFLICT
	// cannot update a row twice in one statement.
	s.completeSQL = `INSERT INTO ` + t + ` (id, token, expires_at)
SELECT id, NULL, clock_timestamp() + $2::bigint * interval '1 microsecond' FROM unnest($1::text[]) AS ids(id)
ON CONFLICT (id) DO UPDATE SET token = NULL, expires_at = EXCLUDED.expires_at`
	s.releaseSQL = `DELETE FROM ` + t + ` WHERE id = $1 AND token = $2`
	s.sweepSQL = `DELETE FROM ` + t + ` WHERE expires_at <= clock_timestamp()`
	index := pgx.Identifier{strings.ReplaceAll(s.table, ".", "_") + "_expires_at"}.Sanitize()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return pgtable.Create(ctx, tx, t, `CREATE TABLE IF NOT EXISTS `+t+` (
	id text PRIMARY KEY,
	token text,
	expires_at timestamptz NOT NULL
)`, `CREATE INDEX IF NOT EXISTS `+index+` ON `+t+` (expires_at)`)
	})
	if err != nil {
		return nil, fmt.Errorf("webhookpg: creating table %s: %w", t, err)
	}
	s.q = writebehind.New(s.writeDone, s.onError, 0)
	return s, nil
}

// Claim implements webhook.DedupStore.
func (s *Store) Claim(ctx context.Context, id string, ttl time.Duration) (webhook.ClaimStatus, string, error) {
	if ttl < time.Microsecond {
		return 0, "", fmt.Errorf("%w: webhookpg: claim TTL %v is under a microsecond", webhook.ErrInvalidOption, ttl)
	}
	if s.q.Pending(id) {
		return webhook.AlreadyDone, "", nil
	}
	token := webhook.NewClaimToken()
	// A claim committed by another session after this statement's snapshot makes the insert
	// do nothing while the outer SELECT cannot see the row: read it again in a new statement,
	// and if it was released meanwhile, claim again.
	for range 5 {
		var st int
		err := s.pool.QueryRow(ctx, s.claimSQL, id, token, ttl.Microseconds()).Scan(&st)
		if errors.Is(err, pgx.ErrNoRows) {
			err = s.pool.QueryRow(ctx, s.stateSQL, id).Scan(&st)
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
		}
		if err != nil {
			return 0, "", fmt.Errorf("webhookpg: claim %q: %w", id, err)
		}
		switch st {
		case 1:
			return webhook.Claimed, token, nil
		case 2:
			return webhook.AlreadyDone, "", nil
		default:
			return webhook.InProgress, "", nil
		}
	}
	return 0, "", fmt.Errorf("%w: webhookpg: claim %q: the row kept changing under five attempts", webhook.ErrDedupStore, id)
}

// Complete implements webhook.DedupStore. It queues the completion and returns: a goroutine
// writes the completions queued meanwhile in one statement, committed as the server is
// configured (synchronously by default). Until the write lands this store answers AlreadyDone
// for id, and other instances still see the claim it replaces (InProgress). Call Flush before
// the process exits. It waits only when more than 4,096 completions are pending, for ctx at most.
func (s *Store) Complete(ctx context.Context, id string) error {
	return s.q.Add(ctx, id)
}

// Flush waits until every completion queued before it is written, or for ctx, and returns the
// errors of the writes that failed since the previous Flush.
func (s *Store) Flush(ctx context.Context) error {
	return s.q.Flush(ctx)
}

func (s *Store) writeDone(ctx context.Context, ids []string) error {
	if _, err := s.pool.Exec(ctx, s.completeSQL, ids, s.doneTTL.Microseconds()); err != nil {
		return fmt.Errorf("webhookpg: complete %d ids (%q first): %w", len(ids), ids[0], err)
	}
	return nil
}

// Release implements webhook.DedupStore. The completion of id, if queued, wins: the claim it
// replaces is left for it.
func (s *Store) Release(ctx context.Context, id, token string) error {
	if s.q.Pending(id) {
		return nil
	}
	if _, err := s.pool.Exec(ctx, s.releaseSQL, id, token); err != nil {
		return fmt.Errorf("webhookpg: release %q: %w", id, err)
	}
	return nil
}

// Sweep deletes the expired rows and returns how many it deleted.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, s.sweepSQL)
	if err != nil {
		return 0, fmt.Errorf("webhookpg: sweep: %w", err)
	}
	return tag.RowsAffected(), nil
}
