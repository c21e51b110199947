package webhookpg_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookpg"
)

// Every instance of the receiver builds the same store on the application's own pool (New
// creates the table once); a delivery's callback then runs on one instance only. At shutdown,
// Flush writes the completions still queued.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	store, err := webhookpg.New(ctx, pool, webhookpg.WithTable("myapp.webhook_dedup"))
	if err != nil {
		log.Fatal(err)
	}
	h, err := webhook.NewHandler(os.Getenv("PODQA_WEBHOOK_SECRET"), func(ctx context.Context, e webhook.Event) error {
		return nil // record the event
	}, webhook.WithDedupStore(store))
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: "127.0.0.1:8000", Handler: h}
	stopped, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	go func() {
		<-stopped.Done()
		_ = srv.Shutdown(ctx)
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	// The handlers have returned; write the completions they queued before exiting.
	if err := store.Flush(ctx); err != nil {
		log.Print(err)
	}
}
