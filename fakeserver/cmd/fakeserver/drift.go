package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/podqa/podqa-go/fakeserver/drift"
)

// exitStatus is an outcome that is not a failure to run but ends the program with a status of
// its own: 1 when drift finds differences.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// subcommands are the program's subcommands, in the order -h lists them.
var subcommands = []struct{ name, summary string }{
	{"drift", "compare a live service with the fake's contracts: -base-url URL [-api-key KEY] [-json]"},
	{"import", "write a fixtures file of a live workspace: -base-url URL -api-key KEY -o FILE [-fixture-key KEY2] [-limit N]"},
}

// usageError is a command line that cannot be run: the subcommand's usage is printed with it.
func usageError(fs *flag.FlagSet, format string, args ...any) error {
	fs.Usage()
	return fmt.Errorf(format, args...)
}

// runDrift is `fakeserver drift`: exit 0 when nothing differs, 1 on any difference, 2 when the
// service could not be checked (the error says why).
func runDrift(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakeserver drift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", "", "the service's base URL, such as https://podqa.example (required)")
	apiKey := fs.String("api-key", "", "an API key: also hold the answers of read-only calls to the contract (never printed)")
	asJSON := fs.Bool("json", false, "print one JSON document instead of a table")
	rate := fs.Int("rate", drift.DefaultRequestsPerMinute, "at most this many keyed requests a minute; 0 does not pace")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fakeserver drift -base-url URL [-api-key KEY] [-json]")
		fmt.Fprintln(fs.Output(), "Exit status: 0 nothing differs, 1 the service drifted, 2 it could not be checked.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fs, "unexpected arguments: %q", fs.Args())
	}
	if *baseURL == "" {
		return usageError(fs, "-base-url is required")
	}
	opts := []drift.Option{drift.WithRequestsPerMinute(max(*rate, 0))}
	if *rate < 0 {
		return usageError(fs, "-rate must not be negative")
	}
	if *apiKey != "" {
		opts = append(opts, drift.WithAPIKey(*apiKey))
	}
	rep, err := drift.Check(ctx, *baseURL, opts...)
	if err != nil {
		if errors.Is(err, drift.ErrInvalidArgument) {
			return usageError(fs, "%v", err)
		}
		return fmt.Errorf("drift: could not check: %w", err)
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
	}
	if err != nil {
		return err
	}
	if rep.Drifted() {
		return exitStatus(1)
	}
	return nil
}

// usage is the program's -h: how to run the fake, its subcommands, its flags.
func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintln(w, "Usage: fakeserver [flags]            run the fake")
	fmt.Fprintln(w, "       fakeserver SUBCOMMAND [flags]")
	fmt.Fprintln(w, "\nSubcommands (each has -h):")
	for _, sc := range subcommands {
		fmt.Fprintf(w, "  %-8s %s\n", sc.name, sc.summary)
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.PrintDefaults()
}
