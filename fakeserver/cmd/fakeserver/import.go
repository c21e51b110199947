package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/podqa/podqa-go/fakeserver/drift"
)

// runImport is `fakeserver import`: it writes a fixtures file of the key's workspace, whole or
// not at all, and says on standard error what it recorded (and the fixture key, when it minted
// one). The live key is never printed nor written.
func runImport(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakeserver import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", "", "the service's base URL (required)")
	apiKey := fs.String("api-key", "", "the API key of the workspace to import (required; never printed nor written)")
	out := fs.String("o", "", "the fixtures file to write (required; replaced only once the import is whole)")
	fixtureKey := fs.String("fixture-key", "", "the imported workspace's key in the fixtures, podqa_api_ and 24 to 128 more characters (default: a fresh one, printed on standard error)")
	limit := fs.Int("limit", drift.DefaultLimit, "record the newest N reports")
	rate := fs.Int("rate", drift.DefaultRequestsPerMinute, "at most this many requests a minute (the service's limit); 0 does not pace")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fakeserver import -base-url URL -api-key KEY -o FILE [-fixture-key KEY2] [-limit N]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError(fs, "unexpected arguments: %q", fs.Args())
	case *baseURL == "":
		return usageError(fs, "-base-url is required")
	case *apiKey == "":
		return usageError(fs, "-api-key is required")
	case *out == "":
		return usageError(fs, "-o is required")
	case *rate < 0:
		return usageError(fs, "-rate must not be negative")
	}
	opts := []drift.Option{drift.WithLimit(*limit), drift.WithRequestsPerMinute(*rate), drift.WithProgress(stderr)}
	if *limit < 0 || *limit > drift.MaxLimit {
		return usageError(fs, "-limit must be from 0 to %d", drift.MaxLimit)
	}
	if *fixtureKey != "" {
		opts = append(opts, drift.WithFixtureKey(*fixtureKey))
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	sum, err := drift.Import(ctx, *baseURL, *apiKey, tmp, opts...)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, drift.ErrInvalidArgument) {
			return usageError(fs, "%v", err)
		}
		return fmt.Errorf("import: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for _, w := range sum.Warnings {
		fmt.Fprintln(stderr, "import: warning:", w)
	}
	fmt.Fprintf(stderr, "import: %d series, %d episodes and %d reports of the %s workspace %q written to %s\n",
		sum.Series, sum.Episodes, sum.Reports, sum.WorkspaceType, sum.WorkspaceName, *out)
	if *fixtureKey == "" {
		fmt.Fprintf(stderr, "import: the workspace's key in the fixtures (not the live key): %s\n", sum.FixtureKey)
	}
	return nil
}
