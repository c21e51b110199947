package webhookredis_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhookredis"
)

// Every instance of the receiver builds the same store on the application's own client; a
// delivery's callback then runs on one instance only.
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
	log.Fatal(http.ListenAndServe("127.0.0.1:8000", h))
}
