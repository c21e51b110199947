// Package pgtable creates the tables of the SDK's PostgreSQL stores (webhookpg, pollerpg). It
// does not import pgx, so that the SDK's module does not require it: the stores, in their own
// modules, pass their pgx transaction in.
package pgtable

import "context"

// Execer runs one statement: a pgx.Tx (of any pgx version) is one.
type Execer[Result any] interface {
	Exec(ctx context.Context, sql string, args ...any) (Result, error)
}

// Create runs ddl (CREATE … IF NOT EXISTS statements) in tx under an advisory lock keyed by
// table, so that instances starting together do not collide on the catalog. tx must be one
// transaction, for the lock to last until the statements are committed.
func Create[Result any](ctx context.Context, tx Execer[Result], table string, ddl ...string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "podqa-go:"+table); err != nil {
		return err
	}
	for _, stmt := range ddl {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
