// Package pollerpg is a poller.LeaseStore on PostgreSQL (github.com/jackc/pgx/v5): pollers of
// one workspace running as several replicas share it, and exactly one of them polls at a time.
//
// One table (podqa_poller by default, WithTable) holds a row per poller name (WithName,
// "default" by default, one per workspace polled): the state as poller.MarshalState's JSON
// document, and the lease (holder, token, expires_at). New creates the table if it does not
// exist, under an advisory lock. Every expiry is computed and compared by the server
// (clock_timestamp()), so the pollers' clocks never decide. The token grows by one each time the
// lease changes hands and fences the saves. Each operation is one statement, one round trip:
//
//   - AcquireLease: INSERT … ON CONFLICT (name) DO UPDATE … WHERE the lease is free, expired or
//     the caller's, in a CTE whose outer SELECT reads the current holder when it is not.
//   - RenewLease: UPDATE … SET expires_at WHERE name, holder, token match and it has not expired.
//   - SaveFenced: UPDATE … SET state WHERE name, holder, token match and it has not expired.
//   - ReleaseLease: UPDATE … SET holder = NULL WHERE name, holder and token match.
//
// A stored state that is not a valid document is an error wrapping poller.ErrCorruptState.
//
// The package is a module of its own (go get github.com/podqa/podqa-go/poller/pollerpg), so that
// only programs that use it have pgx in their module graph.
package pollerpg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/internal/pgtable"
	"github.com/podqa/podqa-go/poller"
)

// DefaultTable is the table the store uses unless WithTable says otherwise.
const DefaultTable = "podqa_poller"

// Store is a poller.LeaseStore in PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool        *pgxpool.Pool
	table, name string

	loadSQL, saveSQL, acquireSQL, holderSQL, renewSQL, releaseSQL, fencedSQL string
}

// Option configures New.
type Option func(*Store)

// WithTable sets the table's name, optionally schema-qualified ("schema.table"); each part is
// quoted as an identifier. DefaultTable by default.
func WithTable(name string) Option { return func(s *Store) { s.table = name } }

// WithName sets the row's name ("default" by default): one per workspace polled, so that
// pollers of several workspaces can share the table.
func WithName(name string) Option { return func(s *Store) { s.name = name } }

// New returns a store on pool, the application's own pool (the store never closes it), and
// creates the table if it does not exist. It fails with poller.ErrInvalidOption for a nil pool
// or an empty table or row name, and with the database's error if the table cannot be created.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	s := &Store{pool: pool, table: DefaultTable, name: "default"}
	for _, o := range opts {
		o(s)
	}
	switch {
	case pool == nil:
		return nil, fmt.Errorf("%w: pollerpg: nil pool", poller.ErrInvalidOption)
	case strings.TrimSpace(s.table) == "":
		return nil, fmt.Errorf("%w: pollerpg: empty table name", poller.ErrInvalidOption)
	case s.name == "":
		return nil, fmt.Errorf("%w: pollerpg: empty row name", poller.ErrInvalidOption)
	}
	t := pgx.Identifier(strings.Split(s.table, ".")).Sanitize()
	s.loadSQL = `SELECT state FROM ` + t + ` WHERE name = $1`
	s.saveSQL = `INSERT INTO ` + t + ` (name, state) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state`
	s.acquireSQL = `WITH got AS (
	INSERT INTO ` + t + ` AS p (name, holder, token, expires_at)
	VALUES ($1, $2, 1, clock_timestamp() + $3::bigint * interval '1 microsecond')
	ON CONFLICT (name) DO UPDATE SET
		token = CASE WHEN p.holder = EXCLUDED.holder AND p.expires_at > clock_timestamp() THEN p.token ELSE p.token + 1 END,
		holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
	WHERE p.holder IS NULL OR p.holder = EXCLUDED.holder OR p.expires_at <= clock_timestamp()
	RETURNING token
)
SELECT true, token, '', 0::bigint FROM got
UNION ALL
SELECT false, token, holder, (extract(epoch FROM expires_at - clock_timestamp()) * 1000000)::bigint FROM ` + t + `
WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM got)`
	s.holderSQL = `SELECT holder, (extract(epoch FROM expires_at - clock_timestamp()) * 1000000)::bigint FROM ` + t + `
WHERE name = $1 AND holder IS NOT NULL AND holder <> $2 AND expires_at > clock_timestamp()`
	s.renewSQL = `UPDATE ` + t + ` SET expires_at = clock_timestamp() + $4::bigint * interval '1 microsecond'
WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()`
	s.releaseSQL = `UPDATE ` + t + ` SET holder = NULL, expires_at = NULL WHERE name = $1 AND holder = $2 AND token = $3`
	s.fencedSQL = `UPDATE ` + t + ` SET state = $4 WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()`
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return pgtable.Create(ctx, tx, t, `CREATE TABLE IF NOT EXISTS `+t+` (
	name text PRIMARY KEY,
	state text,
	holder text,
	token bigint NOT NULL DEFAULT 0,
	expires_at timestamptz
)`)
	})
	if err != nil {
		return nil, fmt.Errorf("pollerpg: creating table %s: %w", t, err)
	}
	return s, nil
}

// Load implements poller.Store.
func (s *Store) Load(ctx context.Context) (poller.State, error) {
	var data *string
	err := s.pool.QueryRow(ctx, s.loadSQL, s.name).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && data == nil) {
		return poller.State{}, nil
	}
	if err != nil {
		return poller.State{}, fmt.Errorf("pollerpg: load: %w", err)
	}
	st, err := poller.UnmarshalState([]byte(*data))
	if err != nil {
		return poller.State{}, fmt.Errorf("pollerpg: row %q: %w", s.name, err)
	}
	return st, nil
}

// Save implements poller.Store, unfenced (a poller on this store saves with SaveFenced).
func (s *Store) Save(ctx context.Context, st poller.State) error {
	data, err := poller.MarshalState(st)
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, s.saveSQL, s.name, string(data)); err != nil {
		return fmt.Errorf("pollerpg: save: %w", err)
	}
	return nil
}

// AcquireLease implements poller.LeaseStore.
func (s *Store) AcquireLease(ctx context.Context, holder string, ttl time.Duration) (poller.Lease, error) {
	if ttl < time.Microsecond {
		return poller.Lease{}, fmt.Errorf("%w: pollerpg: lease TTL %v is under a microsecond", poller.ErrInvalidOption, ttl)
	}
	// A row inserted by another session after this statement's snapshot makes the insert do
	// nothing while the outer SELECT cannot see it: read the holder in a new statement.
	for range 5 {
		var (
			granted bool
			token   int64
			other   string
			left    int64
		)
		err := s.pool.QueryRow(ctx, s.acquireSQL, s.name, holder, ttl.Microseconds()).Scan(&granted, &token, &other, &left)
		if errors.Is(err, pgx.ErrNoRows) {
			err = s.pool.QueryRow(ctx, s.holderSQL, s.name, holder).Scan(&other, &left)
			if errors.Is(err, pgx.ErrNoRows) {
				continue // released or expired meanwhile: try again
			}
		}
		if err != nil {
			return poller.Lease{}, fmt.Errorf("pollerpg: acquire the lease: %w", err)
		}
		if granted {
			return poller.Lease{Holder: holder, Token: token}, nil
		}
		return poller.Lease{}, &poller.LeaseHeldError{Holder: other, Remaining: time.Duration(max(left, 0)) * time.Microsecond}
	}
	return poller.Lease{}, fmt.Errorf("pollerpg: acquire the lease: the row kept changing under five attempts")
}

// RenewLease implements poller.LeaseStore in one statement.
func (s *Store) RenewLease(ctx context.Context, l poller.Lease, ttl time.Duration) error {
	if ttl < time.Microsecond {
		return fmt.Errorf("%w: pollerpg: lease TTL %v is under a microsecond", poller.ErrInvalidOption, ttl)
	}
	tag, err := s.pool.Exec(ctx, s.renewSQL, s.name, l.Holder, l.Token, ttl.Microseconds())
	if err != nil {
		return fmt.Errorf("pollerpg: renew the lease: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return poller.ErrLeaseLost
	}
	return nil
}

// ReleaseLease implements poller.LeaseStore in one statement.
func (s *Store) ReleaseLease(ctx context.Context, l poller.Lease) error {
	if _, err := s.pool.Exec(ctx, s.releaseSQL, s.name, l.Holder, l.Token); err != nil {
		return fmt.Errorf("pollerpg: release the lease: %w", err)
	}
	return nil
}

// SaveFenced implements poller.LeaseStore in one statement.
func (s *Store) SaveFenced(ctx context.Context, l poller.Lease, st poller.State) error {
	data, err := poller.MarshalState(st)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, s.fencedSQL, s.name, l.Holder, l.Token, string(data))
	if err != nil {
		return fmt.Errorf("pollerpg: save: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return poller.ErrLeaseLost
	}
	return nil
}
