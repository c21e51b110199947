package pollerpg_test

import (
	"context"
	"log"
	"os"
	"os/signal"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollerpg"
)

// Every replica runs the same code; exactly one polls at a time.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	store, err := pollerpg.New(ctx, pool, pollerpg.WithName("workspace-acme"))
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(os.Getenv("PODQA_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	p, err := poller.New(c, store, poller.WithStartWatermark("2026-01-05T09:00:00.000000+00:00"))
	if err != nil {
		log.Fatal(err)
	}
	err = p.Run(ctx, func(ctx context.Context, cpl poller.Completion) error {
		log.Printf("report %s completed", cpl.Item.ID)
		return nil
	})
	log.Print(err)
}
