// Command webhook-receiver is an HTTP server that receives podqa's webhooks: it verifies each
// delivery's signature, drops redeliveries and prints the events. A delivery it refuses is
// logged on standard error with the reason (a bad signature, a timestamp off this machine's
// clock and by how much).
//
// With an endpoint made in the web app's Settings, pass its signing secret:
//
//	PODQA_WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver -addr :8000
//
// Or let it subscribe itself over REST (and unsubscribe when stopped with Ctrl-C). The service
// must be able to reach -public-url; a fake started with -allow-private-urls reaches
// loopback:
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 \
//	  go run ./examples/webhook-receiver -subscribe
//
// Running several instances behind a load balancer, give each the same -dedup-url, a Redis or
// PostgreSQL URL: the instances then share one de-duplication store, and each delivery's
// callback runs on one instance only, once it succeeded never again. The stores are built in
// only with the build tag stores (stores.go), so that a plain build compiles neither pgx nor
// go-redis; without it, -dedup-url stops the program with an error that says so:
//
//	PODQA_WEBHOOK_SECRET=whsec_... go run -tags stores ./examples/webhook-receiver -addr :8001 -dedup-url redis://127.0.0.1:6379/0
//	PODQA_WEBHOOK_SECRET=whsec_... go run -tags stores ./examples/webhook-receiver -addr :8002 -dedup-url redis://127.0.0.1:6379/0
//
// (or -dedup-url postgres://user@host/db, which creates the table podqa_webhook_dedup).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/webhook"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	addr := flag.String("addr", "127.0.0.1:8000", "listen address")
	subscribe := flag.Bool("subscribe", false, "subscribe over REST (PODQA_API_KEY) instead of using PODQA_WEBHOOK_SECRET")
	publicURL := flag.String("public-url", "", "the URL the service posts to (default http://<listen address>/)")
	dedupURL := flag.String("dedup-url", "", "a redis:// or postgres:// URL of the de-duplication store shared by every instance (default: in memory, this process only; needs -tags stores)")
	flag.Parse()
	if err := run(ctx, os.Stdout, os.Stderr, *addr, *publicURL, *dedupURL, *subscribe); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(1)
	}
}

// sharedStore is a shared de-duplication store: it writes completions behind the handler, so
// they are flushed before the program exits.
type sharedStore interface {
	webhook.DedupStore
	Flush(ctx context.Context) error
}

// openDedup returns the shared store a -dedup-url names, and what flushes it and closes its
// connections, to call once the server has shut down.
func openDedup(ctx context.Context, url string) (webhook.DedupStore, func(), error) {
	store, closeConn, err := dialDedup(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	return store, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := store.Flush(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "webhook-receiver: writing the last completions:", err)
		}
		closeConn()
	}, nil
}

func run(ctx context.Context, out, errOut io.Writer, addr, publicURL, dedupURL string, subscribe bool) error {
	// Every refused delivery says why on errOut: the sender sees only the status.
	opts := []webhook.HandlerOption{webhook.WithTimeout(8 * time.Second), webhook.WithErrorHook(logRefusals(errOut))}
	if dedupURL != "" {
		store, closeStore, err := openDedup(ctx, dedupURL)
		if err != nil {
			return err
		}
		defer closeStore()
		opts = append(opts, webhook.WithDedupStore(store))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String() + "/"
	}

	secret := os.Getenv("PODQA_WEBHOOK_SECRET")
	if subscribe {
		var opts []client.Option
		if base := os.Getenv("PODQA_BASE_URL"); base != "" {
			opts = append(opts, client.WithBaseURL(base))
		}
		c, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
		if err != nil {
			return err
		}
		sub, err := c.SubscribeWebhook(ctx, client.WebhookSubscribeParams{URL: publicURL, Events: []client.WebhookEvent{
			client.EventReportCompleted, client.EventReportFailed, client.EventReportOutOfQuota,
			client.EventEpisodeCreated, client.EventSeriesFeedBroken,
		}})
		if err != nil {
			return fmt.Errorf("subscribe %s: %w", publicURL, err)
		}
		fmt.Fprintf(out, "subscribed %s as endpoint %s\n", publicURL, sub.ID)
		secret = sub.Secret // shown only once: a real integration stores it
		defer func() {
			// The signal context is done by now; give the unsubscribe call its own.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := c.UnsubscribeWebhook(ctx, sub.ID); err != nil {
				fmt.Fprintln(os.Stderr, "webhook-receiver: unsubscribe:", err)
				return
			}
			fmt.Fprintf(out, "unsubscribed endpoint %s\n", sub.ID)
		}()
	}
	if secret == "" {
		return errors.New("set PODQA_WEBHOOK_SECRET to the endpoint's signing secret, or pass -subscribe")
	}

	var mu sync.Mutex // the handler runs on many goroutines; keep printed lines whole
	handle := func(ctx context.Context, e webhook.Event) error {
		// Keep this short: the sender waits 10 seconds. Record the event and return; fetch
		// the full report over REST elsewhere if needed.
		mu.Lock()
		defer mu.Unlock()
		test := ""
		if e.Test {
			test = " (test event)"
		}
		switch {
		case e.Report != nil:
			verdict := "no verdict"
			if e.Report.Passed != nil {
				verdict = map[bool]string{true: "passed", false: "failed"}[*e.Report.Passed]
			}
			fmt.Fprintf(out, "%s%s: report %s %s, %s\n", e.Type, test, e.Report.ID, e.Report.Status, verdict)
			for _, issue := range e.Report.Issues {
				if issue.Failed() {
					fmt.Fprintf(out, "  %s %s: %s\n", issue.Severity, issue.Name, issue.WarningMessage)
				}
			}
		case e.EpisodeCreated != nil:
			fmt.Fprintf(out, "%s%s: %q in %q\n", e.Type, test, e.EpisodeCreated.Episode.Title, e.EpisodeCreated.Series.Title)
		case e.FeedBroken != nil:
			fmt.Fprintf(out, "%s%s: %q (%s: %s)\n", e.Type, test, e.FeedBroken.Series.Title, e.FeedBroken.Failure.Kind, e.FeedBroken.Failure.LastError)
		default:
			fmt.Fprintf(out, "%s%s: an event type this program does not know\n", e.Type, test)
		}
		return nil
	}
	h, err := webhook.NewHandler(secret, handle, opts...)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "listening on %s\n", publicURL)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
