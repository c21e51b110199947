package fakeserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/feeds"
)

// newDeps connects the core to the world: feeds and audio are fetched over HTTP (any URL,
// loopback included) and audio is measured by the analysis engine.
func (s *Server) newDeps(o options) core.Deps {
	fetcher := &http.Client{Timeout: 30 * time.Second}
	// Audio can be an hour long: its download is bounded by the analysis context, not by a
	// whole-request timeout sized for feeds.
	audioTransport := http.DefaultTransport.(*http.Transport).Clone()
	audioTransport.ResponseHeaderTimeout = 30 * time.Second
	audioFetcher := &http.Client{Transport: audioTransport}
	if o.outbound != nil {
		fetcher.Transport, audioFetcher.Transport = o.outbound, o.outbound
	}
	analyzer := analyze
	if o.analyze != nil {
		analyzer = o.analyze
	}
	return core.Deps{
		AnalysisPace: o.analysisPace,
		Transcribe:   s.transcriptFor,
		// Transcripts scripted by content, for uploads and any other audio.
		TranscribeContent: s.transcriptByContent,
		FetchFeed: func(ctx context.Context, url string) (*core.FeedDoc, error) {
			parsed, err := feeds.Fetch(ctx, fetcher, url)
			if err != nil {
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
			resp, err := audioFetcher.Do(req)
			if err != nil {
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
