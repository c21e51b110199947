package fakeserver

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
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

// analysisLimits are the ceilings of what the fake decodes, so that a file's cost is bounded by
// what it is charged whatever its size (a 54 KB FLAC bomb declared 8 channels and decoded to
// 50 minutes of them; a 61 KB one of 10 minutes at 384 kHz, charged the 10-minute minimum).
// Podcast audio is mono or stereo, and the checks judge nothing a third channel would add; no
// episode is longer than 12 hours; no service would take more than 192 kHz. A report is
// charged by its duration, at least ten minutes, so a file may decode at most the samples of
// 48 kHz stereo over its duration, and ten minutes' worth whatever its duration: ten minutes of
// any upload cost at most what ten minutes of 48 kHz stereo cost, and higher rates are measured
// while they fit (96 kHz stereo up to 5 minutes, 192 kHz stereo up to 2.5). Crossing one fails
// the report with the ceiling named. An M4A's copy to temporary files (its media data before
// its moov box, its long sample tables) is capped at the upload limit, for uploads and feed
// enclosures alike.
var analysisLimits = audio.Limits{
	MaxDuration: 12 * time.Hour, MaxChannels: 2, MaxSpill: core.MaxUploadBytes,
	MaxSampleRate: maxAnalysedRate, SamplesPerSecond: analysedSamplesPerSecond,
	MinSamples: analysedSamplesPerSecond * 10 * 60,
}

const (
	// maxAnalysedRate is the highest sample rate the fake measures.
	maxAnalysedRate = 192_000
	// analysedSamplesPerSecond is 48 kHz stereo: what a second of charged audio pays for.
	analysedSamplesPerSecond = 48_000 * 2
)

// analyze measures audio with the analysis engine; the file name breaks ties when the leading
// bytes do not identify the format. What it cannot measure (HE-AAC, say) fails the report with
// the decoder's reason. Decoding stops when ctx ends (the 10-minute limit of
// an analysis, or Close), for uploads as for downloads.
func analyze(ctx context.Context, r io.Reader, name string) (core.Measurement, error) {
	m, err := audio.MeasureContext(ctx, r, audio.WithNameHint(name), audio.WithLimits(analysisLimits))
	if err != nil {
		return core.Measurement{}, err
	}
	lra := m.LoudnessRange
	out := core.Measurement{
		Duration: m.Duration, Size: m.Size, Channels: m.Channels, SampleRate: m.SampleRate,
		CodecName: m.CodecName, FormatName: m.FormatName, IntegratedLUFS: m.IntegratedLUFS,
		SamplePeakDB: m.SamplePeakDB, TruePeakDB: m.TruePeakDB, Title: m.Title,
		BitRate: m.BitRate, Lossy: lossyCodecs[m.CodecName], LoudnessRange: &lra,
		Tags: mapTags(m.Tags, m.Cover),
		// Kept with the report for its account: clipped, so it holds 2 bytes a second and no more.
		ShortTermLoudness: slices.Clip([]int16(m.ShortTerm)),
	}
	mapSignalStats(m.SignalStats, &out)
	return out, nil
}

// lossyCodecs are the codecs (ffprobe's names) whose bit rate the bitrate check judges.
var lossyCodecs = map[string]bool{"mp3": true, "vorbis": true, "opus": true, "aac": true}

// mapTags copies the tags the engine read (every decoded file's tags are read, so the result
// is never nil: a file without tags has empty ones, and the metadata check fails as info).
func mapTags(t audio.Tags, cover *audio.Cover) *core.Tags {
	out := &core.Tags{
		Title: t.Title, Artist: t.Artist, Album: t.Album, Year: t.Year, Copyright: t.Copyright,
		Comments: strings.Join(t.Comments, "\n"),
	}
	if t.Track > 0 {
		out.Track = strconv.Itoa(t.Track)
	}
	for _, ch := range t.Chapters {
		out.Chapters = append(out.Chapters, core.Chapter{Start: ch.Start, End: ch.End, Title: ch.Title})
	}
	if cover != nil {
		out.Cover = &core.Cover{Data: cover.Data, MIME: cover.MIMEType, Width: cover.Width, Height: cover.Height}
	}
	return out
}

// mapSignalStats copies the engine's signal statistics into the core's measurement.
func mapSignalStats(st audio.SignalStats, out *core.Measurement) {
	leading, trailing, longest := st.LeadingSilence, st.TrailingSilence, st.LongestSilence
	out.LeadingSilence, out.TrailingSilence, out.LongestSilence = &leading, &trailing, &longest
	runs := int(st.ClippingRuns)
	out.ClippingRuns = &runs
	floor := st.NoiseFloorDB
	out.NoiseFloorDB = &floor
	out.ChannelRMSDB = slices.Clone(st.ChannelRMSDB)
	if len(st.DCOffset) > 0 {
		worst := st.DCOffset[0]
		for _, v := range st.DCOffset[1:] {
			if math.Abs(v) > math.Abs(worst) {
				worst = v
			}
		}
		out.DCOffset = &worst
	}
	if !math.IsNaN(st.Correlation) && out.Channels == 2 {
		corr := st.Correlation
		out.Correlation = &corr
	}
}
