// Command graphql reads podqa's GraphQL API: who the key acts as, the workspace's series, and
// its newest reports with their verdicts. The newest report is then read in full.
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 go run ./examples/graphql
//
// An organisation key needs no extra setup: the client learns the organisation from the key
// and passes organisationId itself.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/graphqlclient"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "graphql:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	var opts []client.Option
	if base := os.Getenv("PODQA_BASE_URL"); base != "" {
		opts = append(opts, client.WithBaseURL(base))
	}
	rest, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
	if err != nil {
		return err
	}
	c, err := graphqlclient.New(rest)
	if err != nil {
		return err
	}

	me, err := c.Me(ctx)
	if err != nil {
		return err
	}
	if me.Key != nil {
		fmt.Fprintf(out, "key %s belongs to a %s\n", me.Key.MaskedKey, me.Key.Owner.Type)
	}

	fmt.Fprintln(out, "series:")
	for s, err := range c.AllSeries(ctx, graphqlclient.ListParams{}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s (%s)\n", s.Title, s.ID)
	}

	// GraphQL's status filter takes the stored lower-case form; the client converts
	// client.StatusComplete for you.
	reports, err := c.ListReports(ctx, graphqlclient.ListReportsParams{
		ListParams: graphqlclient.ListParams{Limit: 5},
		Status:     client.StatusComplete,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "newest complete reports:")
	for _, r := range reports {
		verdict := "no verdict"
		if r.Stats != nil {
			verdict = map[bool]string{true: "passed", false: "failed"}[r.Stats.Passed]
		}
		fmt.Fprintf(out, "  %s  %s  %s\n", r.CreatedAt.Format("2006-01-02 15:04"), r.Name, verdict)
	}
	if len(reports) == 0 {
		return nil
	}

	// stats, results, fileInfo... arrive as JSON strings; the client decodes them into the
	// same types as the REST client's.
	report, err := c.GetReport(ctx, reports[0].ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d of %d checks passed\n", report.Name, report.Stats.Passes, report.Stats.Total)
	for _, res := range report.Results { // every check, the numeric ones with their value
		if v, ok := res.Float(); ok {
			fmt.Fprintf(out, "  %-18s %-4s %8.2f %s\n", res.Name, res.Status, v, res.MeasurementUnit)
		} else {
			fmt.Fprintf(out, "  %-18s %-4s\n", res.Name, res.Status)
		}
	}
	return nil
}
