// Command webhook-receiver is an HTTP server that receives podqa's webhooks: it verifies each
// delivery's signature, drops redeliveries and prints the events.
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
	flag.Parse()
	if err := run(ctx, os.Stdout, *addr, *publicURL, *subscribe); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, addr, publicURL string, subscribe bool) error {
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
	h, err := webhook.Handler(secret, handle, webhook.WithTimeout(8*time.Second))
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
