package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
	"github.com/podqa/podqa-go/internal/apitime"
)

const defaultLimit = 50

func pageArgs(limit, offset *int32) (int, int) {
	l, o := defaultLimit, 0
	if limit != nil {
		l = int(*limit)
	}
	if offset != nil {
		o = int(*offset)
	}
	return l, o
}

func seriesJSON(s core.Series) restserver.Series {
	kind := restserver.SeriesKindPODCAST
	feed := s.FeedURL
	auto := s.AutomatedReporting
	return restserver.Series{
		ID: s.ID, Title: views.OptString(s.Title), Kind: &kind, FeedURL: &feed,
		AutomatedReporting: &auto, CreatedAt: apitime.Ptr(s.CreatedAt),
	}
}

func episodeJSON(e core.Episode) restserver.Episode {
	guid := e.GUID
	return restserver.Episode{
		ID: e.ID, Title: views.OptString(e.Title), GUID: &guid, AudioURL: e.AudioURL,
		PublishedOn: views.OptDate(e.PublishedOn), FirstSeenAt: apitime.Ptr(e.FirstSeenAt),
	}
}

func (a *restAPI) ListSeries(ctx context.Context, req restserver.ListSeriesRequestObject) (restserver.ListSeriesResponseObject, error) {
	limit, offset := pageArgs(req.Params.Limit, req.Params.Offset)
	page, err := a.core.ListSeries(httpmw.Principal(ctx), limit, offset)
	if err != nil {
		return nil, err
	}
	out := restserver.SeriesList{Items: make([]restserver.Series, 0, len(page.Items)), Limit: page.Limit, Offset: page.Offset, HasMore: page.HasMore}
	for _, s := range page.Items {
		out.Items = append(out.Items, seriesJSON(s))
	}
	return restserver.ListSeries200JSONResponse(out), nil
}

func (a *restAPI) GetSeries(ctx context.Context, req restserver.GetSeriesRequestObject) (restserver.GetSeriesResponseObject, error) {
	s, err := a.core.GetSeries(httpmw.Principal(ctx), req.SeriesID)
	if err != nil {
		return nil, err
	}
	return restserver.GetSeries200JSONResponse(seriesJSON(s)), nil
}

func (a *restAPI) ListSeriesEpisodes(ctx context.Context, req restserver.ListSeriesEpisodesRequestObject) (restserver.ListSeriesEpisodesResponseObject, error) {
	limit, offset := pageArgs(req.Params.Limit, req.Params.Offset)
	page, err := a.core.ListEpisodes(httpmw.Principal(ctx), req.SeriesID, limit, offset)
	if err != nil {
		return nil, err
	}
	out := restserver.EpisodeList{Items: make([]restserver.Episode, 0, len(page.Items)), Limit: page.Limit, Offset: page.Offset, HasMore: page.HasMore}
	for _, e := range page.Items {
		out.Items = append(out.Items, episodeJSON(e))
	}
	return restserver.ListSeriesEpisodes200JSONResponse(out), nil
}

func (a *restAPI) CreateReport(ctx context.Context, req restserver.CreateReportRequestObject) (restserver.CreateReportResponseObject, error) {
	b := req.Body
	if b.ReportID != nil {
		// The contract's one-of rule guarantees original_filename and duration_ms here.
		r, estimate, err := a.core.CreateReportFromUpload(httpmw.Principal(ctx), *b.ReportID, *b.OriginalFilename, int(*b.DurationMs))
		if err != nil {
			return nil, err
		}
		return restserver.CreateReport201JSONResponse{ID: r.ID, Status: restserver.ReportStatus(r.Status), EstimatedCredits: &estimate}, nil
	}
	in := core.FromFeed{SeriesID: b.SeriesID}
	if b.FeedURL != nil {
		in.FeedURL = *b.FeedURL
	}
	if b.EpisodeIndex != nil {
		in.EpisodeIndex = int(*b.EpisodeIndex)
	}
	r, err := a.core.CreateReportFromFeed(ctx, httpmw.Principal(ctx), in)
	if err != nil {
		return nil, err
	}
	return restserver.CreateReport201JSONResponse{ID: r.ID, Status: restserver.ReportStatus(r.Status)}, nil
}

func (a *restAPI) ListReports(ctx context.Context, req restserver.ListReportsRequestObject) (restserver.ListReportsResponseObject, error) {
	p := req.Params
	limit, offset := pageArgs(p.Limit, p.Offset)
	f := core.ReportFilter{SeriesID: p.SeriesID}
	if p.Status != nil {
		f.Status = string(*p.Status)
	}
	if p.CreatedSince != nil {
		f.CreatedSince = &p.CreatedSince.Time
	}
	if p.UpdatedSince != nil {
		f.UpdatedSince = &p.UpdatedSince.Time
	}
	page, err := a.core.ListReports(httpmw.Principal(ctx), f, limit, offset)
	if err != nil {
		return nil, err
	}
	out := restserver.ReportList{Items: make([]restserver.ReportListItem, 0, len(page.Items)), Limit: page.Limit, Offset: page.Offset, HasMore: page.HasMore}
	for _, r := range page.Items {
		item := restserver.ReportListItem{
			ID: r.ID, Status: restserver.ReportStatus(r.Status), OriginalFilename: r.OriginalFilename,
			CreatedAt: apitime.Ptr(r.CreatedAt), UpdatedAt: apitime.Ptr(r.UpdatedAt),
		}
		if s, e := a.views.Show(r); s != nil {
			item.Series = &restserver.ReportSeriesRef{ID: s.ID, Title: views.OptString(s.Title)}
			item.Episode = &restserver.ReportEpisodeRef{ID: e.ID, Title: views.OptString(e.Title), PublishedOn: views.OptDate(e.PublishedOn)}
		}
		out.Items = append(out.Items, item)
	}
	return restserver.ListReports200JSONResponse(out), nil
}

func (a *restAPI) GetReport(ctx context.Context, req restserver.GetReportRequestObject) (restserver.GetReportResponseObject, error) {
	r, err := a.core.GetReport(httpmw.Principal(ctx), req.ReportID)
	if err != nil {
		return nil, err
	}
	render := func() ([]byte, error) {
		view, err := a.views.Report(r)
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(view)
		return append(body, '\n'), err
	}
	if r.Status != core.StatusComplete && r.Status != core.StatusFailed {
		body, err := render()
		if err != nil {
			return nil, err
		}
		return cachedReport(body), nil
	}
	// After every check (credentials, limits, the contract, the report's access): the cache
	// only spares the rendering of a report the stamp says is unchanged.
	return a.cache.get(r.ID, a.core.RenderStampOf(r), render)
}

// renderCache keeps the JSON of finished reports, which are read far more often than they
// change: a poller re-reads each one for its current verdict.
type renderCache struct {
	mu      sync.Mutex
	entries map[uuid.UUID]renderedReport
	// probe lets a test compare the cached answers with renderings made anew.
	probe CacheProbe
}

// CacheProbe lets a test compare the cache's answers with renderings made anew: Mode holds
// CacheOff (every request renders) and CacheCount (Hits counts the answers the cache gives).
// Both are off outside tests.
type CacheProbe struct {
	Mode atomic.Uint32
	Hits atomic.Uint64
}

// The bits of CacheProbe.Mode.
const (
	CacheOff = 1 << iota
	CacheCount
)

type renderedReport struct {
	// stamp is the state's generation, the report's version and its show as rendered.
	stamp core.RenderStamp
	// answer is body as the handler returns it, boxed once here and not on every read.
	answer restserver.GetReportResponseObject
}

// maxRenderCache bounds the cache; past it, it starts again empty.
const maxRenderCache = 1 << 16

// get returns the rendering of report id as stamp says it is, rendering it when the cache has
// none.
func (c *renderCache) get(id uuid.UUID, stamp core.RenderStamp, render func() ([]byte, error)) (restserver.GetReportResponseObject, error) {
	probe := c.probe.Mode.Load()
	if probe&CacheOff == 0 {
		c.mu.Lock()
		e, ok := c.entries[id]
		c.mu.Unlock()
		if ok && e.stamp == stamp {
			if probe&CacheCount != 0 {
				c.probe.Hits.Add(1)
			}
			return e.answer, nil
		}
	}
	body, err := render()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxRenderCache {
		c.entries = map[uuid.UUID]renderedReport{}
	}
	answer := restserver.GetReportResponseObject(cachedReport(body))
	c.entries[id] = renderedReport{stamp: stamp, answer: answer}
	c.mu.Unlock()
	return answer, nil
}

// cachedReport answers GET /reports/{id} with the bytes of its view, rendered now or before.
type cachedReport []byte

// VisitGetReportResponse writes the cached JSON.
func (b cachedReport) VisitGetReportResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	return err
}

func (a *restAPI) GetReportTranscript(ctx context.Context, req restserver.GetReportTranscriptRequestObject) (restserver.GetReportTranscriptResponseObject, error) {
	r, err := a.core.GetReport(httpmw.Principal(ctx), req.ReportID)
	if err != nil {
		return nil, err
	}
	out := restserver.Transcript{ReportID: r.ID}
	if r.Transcript != nil {
		lines := views.TranscriptEntries(r.Transcript)
		out.Transcript = &lines
	}
	return restserver.GetReportTranscript200JSONResponse(out), nil
}

func (a *restAPI) GetCredits(ctx context.Context, _ restserver.GetCreditsRequestObject) (restserver.GetCreditsResponseObject, error) {
	cr, err := a.core.CreditsFor(httpmw.Principal(ctx))
	if err != nil {
		return nil, err
	}
	return restserver.GetCredits200JSONResponse(views.Credits(cr)), nil
}
