package webhookredis_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookredis"
)

// Every instance of the receiver builds the same store on the application's own client; a
// delivery's callback then runs on one instance only. At shutdown, Flush writes the
// completions still queued.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	store, err := webhookredis.New(rdb, webhookredis.WithKeyPrefix("myapp:webhook:"))
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	// The handlers have returned; write the completions they queued before exiting.
	if err := store.Flush(context.Background()); err != nil {
		log.Print(err)
	}
}
