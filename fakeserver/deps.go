package fakeserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/feeds"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// newDeps connects the core to the world: feeds and audio are fetched over HTTP under the URL
// policy (see WithPrivateURLs) and audio is measured by the analysis engine.
func (s *Server) newDeps(o options) core.Deps {
	s.outbound.build = s.newOutboundClients
	analyzer := analyze
	if o.analyze != nil {
		analyzer = o.analyze
	}
	return core.Deps{
		Observe:      s.observe,
		AnalysisPace: o.analysisPace,
		Transcribe:   s.host.Transcript,
		// Transcripts scripted by content, for uploads and any other audio.
		TranscribeContent: s.transcriptByContent,
		FetchFeed: func(ctx context.Context, url string) (*core.FeedDoc, error) {
			fetcher, _ := s.outbound.clients()
			parsed, err := feeds.Fetch(ctx, fetcher, url)
			if err != nil {
				s.raiseRefusedURL(err, "feed URL refused", url)
				return nil, err
			}
			doc := &core.FeedDoc{Title: parsed.Title, Explicit: parsed.Explicit, ImageURL: parsed.ImageURL}
			for _, e := range parsed.Episodes {
				doc.Episodes = append(doc.Episodes, core.FeedEpisode{Title: e.Title, GUID: e.GUID, AudioURL: e.AudioURL, PublishedOn: e.PublishedOn})
			}
			return doc, nil
		},
		OpenAudio: func(ctx context.Context, url string) (io.ReadCloser, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return nil, err
			}
			_, audioFetcher := s.outbound.clients()
			resp, err := audioFetcher.Do(req)
			if err != nil {
				s.raiseRefusedURL(err, "audio URL refused", url)
				return nil, err
			}
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				return nil, fmt.Errorf("the audio URL answered HTTP %d", resp.StatusCode)
			}
			return resp.Body, nil
		},
		Analyze: analyzer,
	}
}

// newOutboundClients builds the clients of feed and audio fetches, and the transports Close
// closes.
func (s *Server) newOutboundClients() (feed, audio *http.Client, closers []*http.Transport) {
	o := s.opts
	if o.outbound != nil {
		return &http.Client{Timeout: 30 * time.Second, Transport: o.outbound}, &http.Client{Transport: o.outbound}, nil
	}
	// Feeds and audio are fetched as the service would: only from addresses it can reach,
	// checked on the address dialled (every redirect dials again), except the fake's own
	// listener, which hosts its feeds.
	dial := s.urlPolicy(o).DialContext(30*time.Second, s.isOwnAddress)
	feedTransport := http.DefaultTransport.(*http.Transport).Clone()
	feedTransport.Proxy, feedTransport.DialContext = nil, dial
	// Audio can be an hour long: its download is bounded by the analysis context, not by a
	// whole-request timeout sized for feeds.
	audioTransport := feedTransport.Clone()
	audioTransport.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Timeout: 30 * time.Second, Transport: feedTransport}, &http.Client{Transport: audioTransport},
		[]*http.Transport{feedTransport, audioTransport}
}

// outboundClients are the clients of feed and audio fetches, built on the first fetch: most
// fakes fetch nothing, and two transports (and the HTTP/2 set-up their close would run) are
// most of what a fake's start would otherwise allocate.
type outboundClients struct {
	build func() (feed, audio *http.Client, closers []*http.Transport)

	mu          sync.Mutex
	feed, audio *http.Client
	closers     []*http.Transport
}

// clients returns the feed and audio clients, building them on the first call.
func (c *outboundClients) clients() (feed, audio *http.Client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.feed == nil {
		c.feed, c.audio, c.closers = c.build()
	}
	return c.feed, c.audio
}

// closeIdle closes the idle connections of the transports built so far.
func (c *outboundClients) closeIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.closers {
		t.CloseIdleConnections()
	}
}

// urlPolicy is the rule for every URL the fake reaches out to: webhook receivers, feeds and
// their audio.
func (s *Server) urlPolicy(o options) webhooks.Policy {
	p := webhooks.Policy{AllowPrivate: o.allowPrivate, Dialer: o.dialer}
	if o.resolver != nil {
		p.Resolver = o.resolver
	}
	return p
}

// isOwnAddress reports whether target is the fake's own listener, which serves the hosted
// feeds: on a wildcard listener, any loopback or unspecified address on its port.
func (s *Server) isOwnAddress(target netip.AddrPort) bool {
	own, err := netip.ParseAddrPort(s.listener.Addr().String())
	if err != nil {
		return false
	}
	own = netip.AddrPortFrom(own.Addr().Unmap(), own.Port())
	if target == own {
		return true
	}
	a := target.Addr().Unmap()
	return own.Addr().IsUnspecified() && target.Port() == own.Port() && (a.IsLoopback() || a.IsUnspecified())
}
