package fakeserver

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
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

func optString(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

func optDate(t *time.Time) *openapi_types.Date {
	if t == nil {
		return nil
	}
	return &openapi_types.Date{Time: t.UTC().Truncate(24 * time.Hour)}
}

func seriesJSON(s core.Series) restserver.Series {
	kind := restserver.SeriesKindPODCAST
	feed := s.FeedURL
	auto := s.AutomatedReporting
	return restserver.Series{
		ID: s.ID, Title: optString(s.Title), Kind: &kind, FeedURL: &feed,
		AutomatedReporting: &auto, CreatedAt: apitime.Ptr(s.CreatedAt),
	}
}

func episodeJSON(e core.Episode) restserver.Episode {
	guid := e.GUID
	return restserver.Episode{
		ID: e.ID, Title: optString(e.Title), GUID: &guid, AudioURL: e.AudioURL,
		PublishedOn: optDate(e.PublishedOn), FirstSeenAt: apitime.Ptr(e.FirstSeenAt),
	}
}

func (a *restAPI) ListSeries(ctx context.Context, req restserver.ListSeriesRequestObject) (restserver.ListSeriesResponseObject, error) {
	limit, offset := pageArgs(req.Params.Limit, req.Params.Offset)
	page, err := a.s.core.ListSeries(httpmw.Principal(ctx), limit, offset)
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
	s, err := a.s.core.GetSeries(httpmw.Principal(ctx), req.SeriesID)
	if err != nil {
		return nil, err
	}
	return restserver.GetSeries200JSONResponse(seriesJSON(s)), nil
}

func (a *restAPI) ListSeriesEpisodes(ctx context.Context, req restserver.ListSeriesEpisodesRequestObject) (restserver.ListSeriesEpisodesResponseObject, error) {
	limit, offset := pageArgs(req.Params.Limit, req.Params.Offset)
	page, err := a.s.core.ListEpisodes(httpmw.Principal(ctx), req.SeriesID, limit, offset)
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
		r, estimate, err := a.s.core.CreateReportFromUpload(httpmw.Principal(ctx), *b.ReportID, *b.OriginalFilename, int(*b.DurationMs))
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
	r, err := a.s.core.CreateReportFromFeed(ctx, httpmw.Principal(ctx), in)
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
	page, err := a.s.core.ListReports(httpmw.Principal(ctx), f, limit, offset)
	if err != nil {
		return nil, err
	}
	out := restserver.ReportList{Items: make([]restserver.ReportListItem, 0, len(page.Items)), Limit: page.Limit, Offset: page.Offset, HasMore: page.HasMore}
	for _, r := range page.Items {
		item := restserver.ReportListItem{
			ID: r.ID, Status: restserver.ReportStatus(r.Status), OriginalFilename: r.OriginalFilename,
			CreatedAt: apitime.Ptr(r.CreatedAt), UpdatedAt: apitime.Ptr(r.UpdatedAt),
		}
		if s, e := a.s.reportShow(r); s != nil {
			item.Series = &restserver.ReportSeriesRef{ID: s.ID, Title: optString(s.Title)}
			item.Episode = &restserver.ReportEpisodeRef{ID: e.ID, Title: optString(e.Title), PublishedOn: optDate(e.PublishedOn)}
		}
		out.Items = append(out.Items, item)
	}
	return restserver.ListReports200JSONResponse(out), nil
}

func (a *restAPI) GetReport(ctx context.Context, req restserver.GetReportRequestObject) (restserver.GetReportResponseObject, error) {
	r, err := a.s.core.GetReport(httpmw.Principal(ctx), req.ReportID)
	if err != nil {
		return nil, err
	}
	render := func() ([]byte, error) {
		view, err := a.s.viewReport(r)
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
	return a.s.renderCache.get(r.ID, a.s.core.RenderStampOf(r), render)
}

// renderCache keeps the JSON of finished reports, which are read far more often than they
// change: a poller re-reads each one for its current verdict.
type renderCache struct {
	mu      sync.Mutex
	entries map[uuid.UUID]renderedReport
	// probe lets a test compare the cached answers with renderings made anew.
	probe answerCacheProbe
}

// answerCacheProbe lets a test compare the cache's answers with renderings made anew: mode holds
// answerCacheOff (every request renders) and answerCacheCount (hits counts the answers the cache
// gives). Both are off outside tests.
type answerCacheProbe struct {
	mode atomic.Uint32
	hits atomic.Uint64
}

const (
	answerCacheOff = 1 << iota
	answerCacheCount
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
	probe := c.probe.mode.Load()
	if probe&answerCacheOff == 0 {
		c.mu.Lock()
		e, ok := c.entries[id]
		c.mu.Unlock()
		if ok && e.stamp == stamp {
			if probe&answerCacheCount != 0 {
				c.probe.hits.Add(1)
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

func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func statsJSON(st core.Stats, remaining int) *restserver.Stats {
	return &restserver.Stats{
		Passes: &st.Passes, Failures: &st.Failures, Total: &st.Total, Percent: &st.Percent,
		TimeRemaining: &remaining, Passed: &st.Passed, RequiredFailures: &st.RequiredFailures,
		RequiredTotal: &st.RequiredTotal, InfoFlagged: &st.InfoFlagged, InfoTotal: &st.InfoTotal,
	}
}

func (a *restAPI) GetReportTranscript(ctx context.Context, req restserver.GetReportTranscriptRequestObject) (restserver.GetReportTranscriptResponseObject, error) {
	r, err := a.s.core.GetReport(httpmw.Principal(ctx), req.ReportID)
	if err != nil {
		return nil, err
	}
	out := restserver.Transcript{ReportID: r.ID}
	if r.Transcript != nil {
		lines := transcriptEntries(r.Transcript)
		out.Transcript = &lines
	}
	return restserver.GetReportTranscript200JSONResponse(out), nil
}

// transcriptEntries renders transcript lines as REST (and, JSON-encoded, GraphQL) carry them.
func transcriptEntries(transcript []core.TranscriptLine) []restserver.TranscriptEntry {
	lines := make([]restserver.TranscriptEntry, 0, len(transcript))
	for _, l := range transcript {
		lines = append(lines, restserver.TranscriptEntry{Start: l.Start, End: l.End, Text: l.Text, Speaker: l.Speaker})
	}
	return lines
}

func (a *restAPI) GetCredits(ctx context.Context, _ restserver.GetCreditsRequestObject) (restserver.GetCreditsResponseObject, error) {
	cr, err := a.s.core.CreditsFor(httpmw.Principal(ctx))
	if err != nil {
		return nil, err
	}
	return restserver.GetCredits200JSONResponse(creditsJSON(cr)), nil
}

func creditsJSON(cr core.Credits) restserver.Credits {
	out := restserver.Credits{
		Balance: cr.Balance, PlanAllowance: cr.PlanAllowance, PlanUsed: cr.PlanUsed, PlanRemaining: cr.PlanRemaining,
		TopupBalance: cr.TopupBalance, FreeAllowance: cr.FreeAllowance, Progress: cr.Progress,
		FinishDate: apitime.At(cr.FinishDate), ChargingEnabled: cr.ChargingEnabled, TopupLots: []restserver.TopupLot{},
	}
	if cr.TopupExpiresAt != nil {
		out.TopupExpiresAt = apitime.Ptr(*cr.TopupExpiresAt)
	}
	for _, l := range cr.TopupLots {
		lot := restserver.TopupLot{AmountRemaining: l.AmountRemaining}
		if l.ExpiresAt != nil {
			lot.ExpiresAt = apitime.Ptr(*l.ExpiresAt)
		}
		out.TopupLots = append(out.TopupLots, lot)
	}
	return out
}

// fileInfoJSON writes file_info: size in bytes and duration in seconds always, the codec
// detail only when the file could be probed (a codec name was found).
func fileInfoJSON(m core.Measurement) *restserver.FileInfo {
	fi := &restserver.FileInfo{Size: rawJSON(m.Size), Duration: rawJSON(m.Duration.Seconds())}
	if m.CodecName != "" {
		fi.CodecName, fi.FormatName = rawJSON(m.CodecName), rawJSON(m.FormatName)
		fi.Channels, fi.SampleRate = rawJSON(m.Channels), rawJSON(m.SampleRate)
	}
	return fi
}

// chapterJSON is a chapter in metadata.chapters; times are milliseconds from the start.
type chapterJSON struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Title string `json:"title"`
}

// metadataJSON writes the file's tags: strings, null for an absent tag, chapters always a list.
// Files whose tags were not read have null metadata.
func metadataJSON(t *core.Tags) *restserver.Metadata {
	if t == nil {
		return nil
	}
	tag := func(v string) json.RawMessage {
		if v == "" {
			return json.RawMessage("null")
		}
		return rawJSON(v)
	}
	chapters := make([]any, 0, len(t.Chapters))
	for _, c := range t.Chapters {
		chapters = append(chapters, chapterJSON{Start: c.Start.Milliseconds(), End: c.End.Milliseconds(), Title: c.Title})
	}
	return &restserver.Metadata{
		Title: tag(t.Title), Artist: tag(t.Artist), Album: tag(t.Album), TrackNum: tag(t.Track),
		Year: tag(t.Year), Copyright: tag(t.Copyright), Comments: tag(t.Comments), Chapters: &chapters,
	}
}

// coverJSON writes cover_image: width and height in pixels, file_size in bytes, and the URL
// where the fake serves the picture; null when the file carries none.
func (s *Server) coverJSON(reportID uuid.UUID, t *core.Tags) *restserver.CoverImage {
	if t == nil || t.Cover == nil {
		return nil
	}
	f := t.Cover.Facts()
	return &restserver.CoverImage{
		Width: rawJSON(f.Width), Height: rawJSON(f.Height), FileSize: rawJSON(len(t.Cover.Data)),
		URL: rawJSON(s.coverURL(reportID)),
	}
}
