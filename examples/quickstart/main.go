// Command quickstart connects to podqa and prints the workspace the key belongs to and its credits.
//
// It reads the key from PODQA_API_KEY and, when set, the service's address from PODQA_BASE_URL
// (the fake's base_url, for instance):
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/podqa/podqa-go/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var opts []client.Option
	if base := os.Getenv("PODQA_BASE_URL"); base != "" {
		opts = append(opts, client.WithBaseURL(base))
	}
	c, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
	if err != nil {
		return err
	}

	// Me is the recommended connection test: it fails fast on a wrong key.
	me, err := c.Me(ctx)
	if errors.Is(err, client.ErrInvalidAPIKey) {
		return errors.New("the key was refused; check PODQA_API_KEY")
	}
	if err != nil {
		return err
	}
	fmt.Printf("workspace: %s (%s, %s)\n", me.Workspace.Name, me.Workspace.Type, me.Workspace.ID)

	credits, err := c.GetCredits(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("credits: %g available (plan %g, %g used this period, resets %s)\n",
		credits.Balance, credits.PlanAllowance, credits.PlanUsed, credits.FinishDate.Format("2006-01-02"))
	return nil
}
