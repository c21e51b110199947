package pollerredis_test

import (
	"context"
	"log"
	"os"
	"os/signal"

	"github.com/redis/go-redis/v9"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollerredis"
)

// Every replica runs the same code; exactly one polls at a time.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	store, err := pollerredis.New(rdb, pollerredis.WithKeyPrefix("{myapp:poller}:"))
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
