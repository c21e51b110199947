// Package pgtable creates the tables of the SDK's PostgreSQL stores (webhookpg, pollerpg).
package pgtable

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Quote returns name, optionally schema-qualified ("schema.table"), quoted as an identifier
// part by part.
func Quote(name string) string { return pgx.Identifier(strings.Split(name, ".")).Sanitize() }

// Create runs ddl (CREATE … IF NOT EXISTS statements) in one transaction under an advisory
// lock keyed by table, so that instances starting together do not collide on the catalog.
func Create(ctx context.Context, pool *pgxpool.Pool, table string, ddl ...string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "podqa-go:"+table); err != nil {
			return err
		}
		for _, stmt := range ddl {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
}
