// Command fakeserver runs the podqa fake as a program, for test suites in any language.
//
// It listens, prints exactly one line of JSON to standard output,
//
//	{"base_url":"http://127.0.0.1:PORT","admin_token":"...","workspace_id":"<uuid>","api_key":"podqa_api_..."}
//
// and logs to standard error. The workspace is a seeded personal workspace named Demo. SIGINT or
// SIGTERM stops it with exit status 0.
//
// Usage:
//
//	go run github.com/podqa/podqa-go/fakeserver/cmd/fakeserver [flags]
//
// Subcommands (each has -h; see the README's "Is the fake still the service?"):
//
//	fakeserver drift -base-url URL [-api-key KEY] [-json]
//	    compares a live service with the fake's contracts; exit 0 nothing differs, 1 drift, 2 could not check
//	fakeserver import -base-url URL -api-key KEY -o FILE [-fixture-key KEY2] [-limit N]
//	    writes a fixtures file of a live workspace, its reports as recorded, for -fixtures
//
// Flags:
//
//	-addr                       listen address (default 127.0.0.1:8080; port 0 picks a free port)
//	-clock                      real, or manual: time then moves only through the control API
//	-start                      RFC 3339 start instant of a manual clock (default now)
//	-admin-token                control API token (default random; env FAKESERVER_ADMIN_TOKEN)
//	-allow-private-urls         reach loopback and private addresses: webhook receivers, feeds
//	                            and enclosures (-allow-private-webhook-urls is its former name)
//	-analysis-pace              fake-clock time one hour of audio takes to analyse (default 5m)
//	-webhook-timeout            time a webhook receiver has to answer one attempt (default 10s)
//	-webhook-clock              fake (the default) or wall: the clock of each delivery's webhook-timestamp
//	-log-level                  debug, info, warn or error (default info)
//	-log-format                 text (key=value, the default) or json (one object a line)
//	-seed                       integer: every id, key, secret, token and webhook-id follows from it (env FAKESERVER_SEED)
//	-fixtures                   JSON file of start state: workspaces, keys, endpoints, standards, feeds (env FAKESERVER_FIXTURES)
//	-journal-size               requests the request journal keeps, oldest dropped (default 10000, at most 100000; 0 off)
//	-report-dir                 write the run report there on stop and on POST /_fake/report: podqa-fake-report-<run id>.json and .html
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	var status exitStatus
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &status):
		os.Exit(int(status))
	default:
		fmt.Fprintln(os.Stderr, "fakeserver:", err)
		os.Exit(2)
	}
}

// startLine is the one line the program prints once it listens.
type startLine struct {
	BaseURL     string `json:"base_url"`
	AdminToken  string `json:"admin_token"`
	WorkspaceID string `json:"workspace_id"`
	APIKey      string `json:"api_key"`
	// Fixtures maps the refs of -fixtures to ids and feed URLs; absent without -fixtures.
	Fixtures *fakeserver.FixtureIDs `json:"fixtures,omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		switch args[0] {
		case "drift":
			return runDrift(ctx, args[1:], stdout, stderr)
		case "import":
			return runImport(ctx, args[1:], stderr)
		}
	}
	fs := flag.NewFlagSet("fakeserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(fs) }
	addr := fs.String("addr", "127.0.0.1:8080", "listen address; port 0 picks a free port")
	clockMode := fs.String("clock", "real", "real, or manual: time then moves only through the control API")
	startAt := fs.String("start", "", "RFC 3339 start instant of a manual clock (default now)")
	adminToken := fs.String("admin-token", "", "control API bearer token (default random; env FAKESERVER_ADMIN_TOKEN overrides)")
	allowPrivate := fs.Bool("allow-private-urls", false, "reach loopback and private addresses: webhook receivers, feeds and enclosures (the service refuses them)")
	// The flag's first name, kept working: both set the same switch.
	fs.BoolVar(allowPrivate, "allow-private-webhook-urls", false, "former name of -allow-private-urls")
	pace := fs.Duration("analysis-pace", fakeserver.DefaultAnalysisPace, "fake-clock time one hour of audio takes to analyse; 0 finishes on the next tick")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	logFormat := fs.String("log-format", "text", "text (key=value) or json (one object a line)")
	envFile := fs.String("env-file", "", "also write the start line's values as shell exports (PODQA_BASE_URL, PODQA_API_KEY, PODQA_ADMIN_TOKEN, PODQA_WORKSPACE_ID) to this file, for `. file`; removed on stop")
	webhookTimeout := fs.Duration("webhook-timeout", core.ReceiverBudget, "time a webhook receiver has to answer one delivery attempt; more than 0")
	webhookClock := fs.String("webhook-clock", string(fakeserver.WebhookClockFake), "clock of each delivery's webhook-timestamp: fake, or wall so that receivers verifying on their own clock accept deliveries after the manual clock moved")
	seedFlag := fs.String("seed", "", "integer; with it every id, key, secret, token, upload URL signature and webhook-id follows from it (default random)")
	fixturesFile := fs.String("fixtures", "", "JSON file of start state: workspaces, keys, webhook endpoints, standards, hosted feeds")
	journalSize := fs.Int("journal-size", fakeserver.DefaultJournalSize, "requests the request journal keeps, oldest dropped; at most 100000; 0 turns it off")
	reportDir := fs.String("report-dir", "", "directory to write the run report into when the fake stops (SIGTERM, SIGINT) and on POST /_fake/report: podqa-fake-report-<run id>.json and .html; made if missing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if *webhookTimeout <= 0 {
		return fmt.Errorf("-webhook-timeout must be more than 0, not %s", *webhookTimeout)
	}
	stamps, err := fakeserver.ParseWebhookClock(*webhookClock)
	if err != nil {
		return fmt.Errorf("-webhook-clock must be wall or fake, not %q", *webhookClock)
	}
	if *journalSize < 0 || *journalSize > fakeserver.MaxJournalSize {
		return fmt.Errorf("-journal-size must be from 0 to %d, not %d", fakeserver.MaxJournalSize, *journalSize)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	var logger *slog.Logger
	switch *logFormat {
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	default:
		return fmt.Errorf("-log-format must be text or json, not %q", *logFormat)
	}

	opts := []fakeserver.Option{
		fakeserver.WithAddr(*addr),
		fakeserver.WithPrivateURLs(*allowPrivate),
		fakeserver.WithAnalysisPace(*pace),
		fakeserver.WithLogger(logger),
		fakeserver.WithWebhookTimeout(*webhookTimeout),
		fakeserver.WithWebhookClock(stamps),
		fakeserver.WithJournalSize(*journalSize),
	}
	if *reportDir != "" {
		opts = append(opts, fakeserver.WithReportDir(*reportDir))
	}
	// Service containers (GitHub Actions services) take no arguments: the environment stands in.
	if *seedFlag == "" {
		*seedFlag = getenv("FAKESERVER_SEED")
	}
	if *fixturesFile == "" {
		*fixturesFile = getenv("FAKESERVER_FIXTURES")
	}
	if *seedFlag != "" {
		n, err := strconv.ParseUint(*seedFlag, 10, 64)
		if err != nil {
			return fmt.Errorf("-seed must be an integer from 0 to %d, not %q", uint64(math.MaxUint64), *seedFlag)
		}
		opts = append(opts, fakeserver.WithSeed(n))
	}
	switch *clockMode {
	case "real":
		if *startAt != "" {
			return errors.New("-start needs -clock manual")
		}
	case "manual":
		start := time.Now()
		if *startAt != "" {
			t, err := time.Parse(time.RFC3339Nano, *startAt)
			if err != nil {
				return fmt.Errorf("-start: want an RFC 3339 instant: %w", err)
			}
			start = t
		}
		opts = append(opts, fakeserver.WithManualClock(start))
	default:
		return fmt.Errorf("-clock must be real or manual, not %q", *clockMode)
	}
	// The flag wins over the environment, which wins over a random token.
	token := *adminToken
	if token == "" {
		token = getenv("FAKESERVER_ADMIN_TOKEN")
	}
	if token != "" {
		opts = append(opts, fakeserver.WithAdminToken(token))
	}

	srv, err := start(ctx, *fixturesFile, opts)
	if err != nil {
		return err
	}
	if srv == nil {
		logger.Info("fakeserver stopped while loading its fixtures")
		return nil
	}
	seed, err := srv.SeedDemo()
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("seed the Demo workspace: %w", err)
	}
	line := startLine{
		BaseURL:     srv.URL(),
		AdminToken:  srv.AdminToken(),
		WorkspaceID: seed.WorkspaceID,
		APIKey:      seed.APIKey,
	}
	if *fixturesFile != "" {
		ids := srv.Fixtures()
		line.Fixtures = &ids
	}
	// The env file is in place before the line is printed, so that a reader of the line finds it.
	if *envFile != "" {
		if err := writeEnvFile(*envFile, line); err != nil {
			_ = srv.Close()
			return err
		}
		defer os.Remove(*envFile)
	}
	encoded, _ := json.Marshal(line)
	if _, err := fmt.Fprintf(stdout, "%s\n", encoded); err != nil {
		_ = srv.Close()
		return err
	}
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	logger.Info("fakeserver listening", "base_url", srv.URL(), "clock", *clockMode)

	<-ctx.Done()
	logger.Info("fakeserver stopping")
	return srv.Close()
}

// readFixtures loads a fixtures file; its errors name the file's bad entry by JSON path.
// start reads the fixtures file, if any, and makes the fake, unless ctx ends first (SIGTERM
// while a large fixtures file loads): then it returns a nil server, and a fake made after all is
// closed as soon as it is.
func start(ctx context.Context, fixturesFile string, opts []fakeserver.Option) (*fakeserver.Server, error) {
	type made struct {
		srv *fakeserver.Server
		err error
	}
	ready := make(chan made, 1)
	go func() {
		if fixturesFile != "" {
			f, err := readFixtures(fixturesFile)
			if err != nil {
				ready <- made{err: err}
				return
			}
			opts = append(opts, fakeserver.WithFixtures(f))
		}
		srv, err := fakeserver.New(opts...)
		ready <- made{srv, err}
	}()
	select {
	case m := <-ready:
		return m.srv, m.err
	case <-ctx.Done():
		go func() {
			if m := <-ready; m.srv != nil {
				_ = m.srv.Close()
			}
		}()
		return nil, nil
	}
}

func readFixtures(name string) (fakeserver.Fixtures, error) {
	file, err := os.Open(name)
	if err != nil {
		return fakeserver.Fixtures{}, fmt.Errorf("fixtures: %w", err)
	}
	defer file.Close()
	return fakeserver.LoadFixtures(file)
}
