package fakeserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/google/uuid"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// DefaultAnalysisPace is the fake-clock time one hour of audio takes to analyse, after the
// service's "a one-hour episode takes around five minutes".
const DefaultAnalysisPace = 5 * time.Minute

// Server is a running fake of the service: REST, the control API and, as they land, GraphQL and
// webhooks, all over one in-memory state.
type Server struct {
	opts   options
	clock  *clock.Clock
	core   *core.Core
	faults *faults
	log    *slog.Logger

	handler    http.Handler
	httpServer *http.Server
	listener   net.Listener
	transport  *http.Transport
	url        string
	serveErr   chan error
	// uploadKey signs upload URLs.
	uploadKey []byte
	hosting   hosting
	// scripts are transcripts scripted by audio content.
	scripts transcriptScripts
	// renderCache keeps the JSON of finished reports.
	renderCache renderCache
	// hooks is the webhook URL policy and sender.
	hooks webhookWiring
	// audioCache keeps rendered hosted audio (nil when off); synthesize renders it (tests
	// wrap it to count renderings).
	audioCache *audioCache
	synthesize func(io.Writer, HostedEpisode) error
}

type options struct {
	addr         string
	manual       bool
	start        time.Time
	adminToken   string
	allowPrivate bool
	analysisPace time.Duration
	logger       *slog.Logger
	noRateLimits bool
	// resolver and webhookBudget configure webhook delivery (see WithResolver, WithWebhookTimeout).
	resolver      Resolver
	webhookBudget time.Duration
	// audioCache is the byte budget of rendered hosted audio (see WithHostedAudioCache).
	audioCache int64
	// analyze replaces the analysis engine; only the package's own benchmarks set it.
	analyze func(context.Context, io.Reader, string) (core.Measurement, error)
	// outbound replaces the transport of feed and audio fetches; only the package's own fuzz
	// tests set it, to keep generated URLs off the network.
	outbound http.RoundTripper
	// seed and seeded are the fake's seed (WithSeed); fault patterns are drawn from it.
	seed   uint64
	seeded bool
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

// WithPrivateWebhookURLs lets webhook endpoints point at loopback and private addresses, which
// the service refuses; tests with a local receiver need it.
func WithPrivateWebhookURLs(allow bool) Option { return func(o *options) { o.allowPrivate = allow } }

// WithAnalysisPace sets the fake-clock time one hour of audio takes to analyse (default
// DefaultAnalysisPace); 0 finishes analyses on the next tick.
func WithAnalysisPace(d time.Duration) Option { return func(o *options) { o.analysisPace = d } }

// WithoutRateLimits turns the service's three rate limits off, for load tests against the fake.
func WithoutRateLimits() Option { return func(o *options) { o.noRateLimits = true } }

// WithLogger sends the fake's structured logs to l (default: discarded).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// New starts a fake listening on loopback and returns it; Close stops it.
func New(opts ...Option) (*Server, error) {
	o := options{addr: "127.0.0.1:0", analysisPace: DefaultAnalysisPace, audioCache: DefaultHostedAudioCache}
	for _, opt := range opts {
		opt(&o)
	}
	if o.analysisPace < 0 {
		return nil, errors.New("fakeserver: the analysis pace must not be negative")
	}
	if o.audioCache < 0 {
		return nil, errors.New("fakeserver: the hosted audio cache budget must not be negative")
	}
	if o.adminToken == "" {
		o.adminToken = randomHex(16)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
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
		clock:     clk,
		faults:    newFaults(o),
		log:       o.logger,
		listener:  ln,
		url:       "http://" + ln.Addr().String(),
		serveErr:  make(chan error, 1),
		uploadKey: []byte(randomHex(32)),
		hosting:   hosting{feeds: map[uuid.UUID]*hostedFeed{}, byAudio: map[string]*hostedEpisode{}},
	}
	s.synthesize = synthesizeEpisode
	if o.audioCache > 0 {
		s.audioCache = newAudioCache(o.audioCache)
	}
	s.core = core.New(clk, s.newDeps(o))
	s.setupWebhooks()
	s.transport = http.DefaultTransport.(*http.Transport).Clone()
	s.handler = s.routes()
	s.httpServer = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(o.logger.Handler(), slog.LevelWarn),
	}
	go func() { s.serveErr <- s.httpServer.Serve(ln) }()
	return s, nil
}

// URL is the base URL of the fake, such as http://127.0.0.1:PORT; the REST API is under
// URL()+"/api/rest/v1".
func (s *Server) URL() string { return s.url }

// Client returns an HTTP client for talking to the fake; its connections close with the fake.
func (s *Server) Client() *http.Client { return &http.Client{Transport: s.transport} }

// Handler returns the fake's whole HTTP handler, for callers that serve it themselves.
func (s *Server) Handler() http.Handler { return s.handler }

// AdminToken is the bearer token of the control API under URL()+"/_fake".
func (s *Server) AdminToken() string { return s.opts.adminToken }

// Close stops the fake: it stops accepting requests, waits up to five seconds for those in
// flight, and stops the clock.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.faults.close()
	err := s.httpServer.Shutdown(ctx)
	s.transport.CloseIdleConnections()
	s.clock.Close()
	s.core.Close()
	s.hooks.sender.Close()
	if serveErr := <-s.serveErr; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return hex.EncodeToString(b)
}
