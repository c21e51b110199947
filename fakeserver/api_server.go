package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/faults"
	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/journal"
	"github.com/podqa/podqa-go/fakeserver/internal/rest"
	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
)

// WithSeed makes every id, API key, session token, webhook secret, webhook-id, upload URL
// signature and the admin token (unless WithAdminToken names one) the fake mints follow from
// seed: two fakes with the same seed, clock start, clock mode and sequence of calls answer byte
// for byte the same, so suites can keep golden files. Without it the values are random.
// Requests that run concurrently mint in whatever order they are served; send them one after
// another where the answers must repeat.
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed, o.seeded = seed, true }
}

// DefaultAnalysisPace is the fake-clock time one hour of audio takes to analyse, after the
// service's "a one-hour episode takes around five minutes".
const DefaultAnalysisPace = 5 * time.Minute

// Server is a running fake of the service: REST, GraphQL, the webhook subscription calls and
// deliveries, the hosted feeds and the control API, all over one in-memory state.
type Server struct {
	opts options
	// admin is the one admin guard, of the control API and the dashboard.
	admin  httpmw.Admin
	clock  *clock.Clock
	core   *core.Core
	faults *faults.Faults
	log    *slog.Logger

	handler    http.Handler
	httpServer *http.Server
	listener   net.Listener
	// transport is Client's, made by the first Client call (transportMu guards it): a fake a
	// test reaches with its own client never builds it.
	transportMu sync.Mutex
	transport   *http.Transport
	// outbound are the clients of feed and audio fetches, which reach the fake itself too.
	outbound outboundClients
	url      string
	serveErr chan error
	// uploadKey signs upload URLs.
	uploadKey []byte
	// views renders reports for REST and GraphQL, and mints cover URLs.
	views *views.Views
	// host is the podcast host of the hosted feeds.
	host *hosted.Host
	// stagedFeeds, set only in Reset's stagingView, takes the feeds the start state hosts.
	stagedFeeds *hosted.Staging
	// scripts are transcripts scripted by audio content.
	scripts transcriptScripts
	// rest is the REST surface: the REST API, subscription calls, upload PUTs, covers.
	rest *rest.API
	// graphql is the GraphQL surface.
	graphql *graphqlapi.API
	// hooks is the webhook URL policy and sender.
	hooks webhookWiring
	// journal keeps the most recent API requests (see WithJournalSize).
	journal *journal.Journal
	// events is the one place events are raised: log lines and the event record (events.go).
	events *eventRecord
	// rand mints every id, key, token and secret (see WithSeed).
	rand *seeded.Source
	// start is what Reset rebuilds.
	start startState
	// reports writes the run report (see WithReportDir); nil without a report dir.
	reports *runreport.Reporter
	// built is the fake's rows of the shared route tables, made on first use (surfaces.go).
	built builtRoutes
	// admitted, nil but in the package's tests, runs once a request is let in (an API's door
	// or the control API's token) and before its operation: the tests put a reset there.
	admitted func(*http.Request)
}

type options struct {
	addr         string
	manual       bool
	start        time.Time
	adminToken   string
	allowPrivate bool
	analysisPace time.Duration
	logger       *slog.Logger
	eventRecord  int
	noRateLimits bool
	// resolver and webhookBudget configure webhook delivery (see WithResolver, WithWebhookTimeout).
	resolver      Resolver
	dialer        Dialer
	webhookBudget time.Duration
	// webhookClock is the clock of webhook-timestamp (see WithWebhookClock).
	webhookClock WebhookClock
	// audioCache is the byte budget of rendered hosted audio (see WithHostedAudioCache).
	audioCache int64
	// analyze replaces the analysis engine; only the package's own benchmarks set it.
	analyze func(context.Context, io.Reader, string) (core.Measurement, error)
	// outbound replaces the transport of feed and audio fetches; only the package's own fuzz
	// tests set it, to keep generated URLs off the network.
	outbound http.RoundTripper
	// timeouts are the connection timeouts (httpmw.DefaultTimeouts); the package's tests shorten them.
	timeouts httpmw.Timeouts
	// uploadBudget replaces core.DefaultUploadBudget when positive; the package's tests set it.
	uploadBudget int64
	// journalSize is how many requests the journal keeps; 0 turns it off.
	journalSize int
	// seed, when seeded, makes every minted value follow from it (see WithSeed).
	seed   uint64
	seeded bool
	// fixtures is the start state to load (see WithFixtures).
	fixtures *Fixtures
	// reportDir is where run reports go (see WithReportDir).
	reportDir    string
	reportDirSet bool
	// testName, set by NewTest, begins the run id (see WithReportDir).
	testName string
	// testLogLevel and failureReport are NewTest's (see WithTestLogLevel, WithFailureReport).
	testLogLevel     slog.Level
	testLogLevelSet  bool
	failureReport    string
	failureReportSet bool
}

// Option configures New.
type Option func(*options)

// WithAddr sets the listen address (default 127.0.0.1:0, a free loopback port).
func WithAddr(addr string) Option { return func(o *options) { o.addr = addr } }

// WithManualClock makes the fake's clock start at start and move only through Advance (or the
// control API), so that tests drive time instead of sleeping.
func WithManualClock(start time.Time) Option {
	return func(o *options) { o.manual, o.start = true, start }
}

// WithRealClock makes the fake follow the wall clock (the default of New; NewTest defaults to a
// manual clock).
func WithRealClock() Option { return func(o *options) { o.manual = false } }

// WithAdminToken sets the bearer token of the control API (default: random).
func WithAdminToken(token string) Option { return func(o *options) { o.adminToken = token } }

// WithPrivateURLs lets webhook endpoints, feed URLs and enclosure URLs point at loopback,
// private and other internal addresses, which the service cannot reach and so refuses; tests
// with their own receiver or feed server on loopback need it (NewTest sets it). The fake's own
// hosted feeds work either way.
func WithPrivateURLs(allow bool) Option { return func(o *options) { o.allowPrivate = allow } }

// WithAnalysisPace sets the fake-clock time one hour of audio takes to analyse (default
// DefaultAnalysisPace); 0 finishes analyses on the next tick.
func WithAnalysisPace(d time.Duration) Option { return func(o *options) { o.analysisPace = d } }

// WithoutRateLimits turns the service's three rate limits off, for load tests against the fake.
func WithoutRateLimits() Option { return func(o *options) { o.noRateLimits = true } }

// WithLogger sends the fake's structured logs to l (default: discarded).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithEventRecordSize sets how many events the fake keeps for Events (default
// DefaultEventRecordSize, at most MaxEventRecordSize; 0 keeps none). The log gets every event
// whatever the size.
func WithEventRecordSize(n int) Option { return func(o *options) { o.eventRecord = n } }

// New starts a fake listening on loopback and returns it; Close stops it.
//
// A fake from New starts as the service would: on the real clock (WithManualClock changes it),
// with no workspace until SeedDemo, WithFixtures or CreateWorkspace makes one, and refusing
// webhook, feed and enclosure URLs on loopback and private addresses until WithPrivateURLs(true)
// allows them. NewTest is New for a Go test with all three set: a manual clock at TestStart, the
// Demo workspace and its key, and private URLs allowed.
func New(opts ...Option) (*Server, error) {
	o := options{addr: "127.0.0.1:0", analysisPace: DefaultAnalysisPace, audioCache: DefaultHostedAudioCache, journalSize: DefaultJournalSize, timeouts: httpmw.DefaultTimeouts(), eventRecord: DefaultEventRecordSize}
	for _, opt := range opts {
		opt(&o)
	}
	if o.analysisPace < 0 {
		return nil, errors.New("fakeserver: the analysis pace must not be negative")
	}
	if o.audioCache < 0 {
		return nil, errors.New("fakeserver: the hosted audio cache budget must not be negative")
	}
	if o.journalSize < 0 || o.journalSize > MaxJournalSize {
		return nil, fmt.Errorf("fakeserver: the journal size must be from 0 to %d, not %d", MaxJournalSize, o.journalSize)
	}
	if o.eventRecord < 0 || o.eventRecord > MaxEventRecordSize {
		return nil, fmt.Errorf("fakeserver: the event record size must be from 0 to %d, not %d", MaxEventRecordSize, o.eventRecord)
	}
	if _, err := webhookStamping(o); err != nil {
		return nil, err
	}
	reports, err := setupRunReports(o)
	if err != nil {
		return nil, err
	}
	src := seeded.Random()
	if o.seeded {
		src = seeded.New(o.seed)
	}
	// Drawn even when an option names the token, so that ids do not depend on it.
	if token := src.Hex(16); o.adminToken == "" {
		o.adminToken = token
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	var clk *clock.Clock
	if o.manual {
		if o.start.IsZero() {
			o.start = time.Now()
		}
		clk = clock.NewManual(o.start)
	} else {
		clk = clock.NewReal()
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		clk.Close()
		return nil, fmt.Errorf("fakeserver: listen on %s: %w", o.addr, err)
	}
	s := &Server{
		opts:      o,
		admin:     httpmw.NewAdmin(o.adminToken),
		clock:     clk,
		faults:    newFaults(o, src.UUID),
		log:       o.logger,
		listener:  ln,
		url:       "http://" + ln.Addr().String(),
		serveErr:  make(chan error, 1),
		uploadKey: []byte(src.Hex(32)),
		journal:   journal.New(o.journalSize, journalLimits(), src.UUID()),
		events:    newEventRecord(o.logger, o.eventRecord),
		rand:      src,
		reports:   reports,
	}
	s.start.rand = src.Save()
	s.host = hosted.New(s.url, o.audioCache, o.logger)
	deps := s.newDeps(o)
	deps.Rand = src
	var coreOpts []core.Option
	if o.noRateLimits {
		coreOpts = append(coreOpts, core.WithoutRateLimits())
	}
	s.core = core.New(clk, deps, coreOpts...)
	if o.uploadBudget > 0 {
		s.core.SetUploadBudget(o.uploadBudget)
	}
	s.setupWebhooks()
	// The cover key derives from the upload key: a seeded fake mints the same cover URLs, and
	// no draw is added to the seeded sequence.
	s.views = views.New(s.core, clk, s.url, s.uploadKey)
	s.rest = s.newREST()
	s.graphql = graphqlapi.New(graphqlapi.Deps{Core: s.core, Log: s.log, Views: s.views, Enter: s.enter})
	s.handler = s.routes()
	s.httpServer = &http.Server{
		Handler:           o.timeouts.Deadlines(s.handler),
		BaseContext:       s.baseContext,
		Protocols:         plainHTTP1(),
		ReadHeaderTimeout: o.timeouts.Header,
		IdleTimeout:       o.timeouts.Idle,
		ErrorLog:          slog.NewLogLogger(o.logger.Handler(), slog.LevelWarn),
	}
	if err := s.loadStartFixtures(); err != nil {
		_ = ln.Close()
		clk.Close()
		s.core.Close()
		s.hooks.sender.Close()
		return nil, err
	}
	go func() { s.serveErr <- s.httpServer.Serve(ln) }()
	return s, nil
}

// URL is the base URL of the fake, such as http://127.0.0.1:PORT; the REST API is under
// URL()+"/api/rest/v1".
func (s *Server) URL() string { return s.url }

// Client returns an HTTP client for talking to the fake; its connections close with the fake.
func (s *Server) Client() *http.Client { return &http.Client{Transport: s.ownTransport(true)} }

// ownTransport returns Client's transport, made first when build is set; nil when it is not
// and no Client call made it.
func (s *Server) ownTransport(build bool) *http.Transport {
	s.transportMu.Lock()
	defer s.transportMu.Unlock()
	if s.transport == nil && build {
		s.transport = http.DefaultTransport.(*http.Transport).Clone()
		s.transport.Protocols = plainHTTP1()
	}
	return s.transport
}

// Handler returns the fake's whole HTTP handler, for callers that serve it themselves.
func (s *Server) Handler() http.Handler { return s.handler }

// AdminToken is the bearer token of the control API under URL()+"/_fake".
func (s *Server) AdminToken() string { return s.opts.adminToken }

// Close stops the fake: it stops accepting requests, waits up to five seconds for those in
// flight, writes the run report (WithReportDir), and stops the clock.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.faults.Close()
	// Our own clients' idle connections go first: one that a transport dialled but never used
	// looks new to the server, and Shutdown would wait five seconds for it.
	own := s.ownTransport(false)
	if own != nil {
		own.CloseIdleConnections()
	}
	s.outbound.closeIdle()
	err := s.httpServer.Shutdown(ctx)
	if own := s.ownTransport(false); own != nil {
		own.CloseIdleConnections()
	}
	// The run report, once no request can change what it shows and before the clock stops.
	err = errors.Join(err, s.writeRunReportOnStop())
	s.clock.Close()
	s.core.Close()
	s.hooks.sender.Close()
	if serveErr := <-s.serveErr; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}
