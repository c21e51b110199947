package webhookpg_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookpg"
)

// Every instance of the receiver builds the same store on the application's own pool (New
// creates the table once); a delivery's callback then runs on one instance only.
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
	log.Fatal(http.ListenAndServe("127.0.0.1:8000", h))
}
