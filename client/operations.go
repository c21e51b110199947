package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/client/internal/api"
	"github.com/podqa/podqa-go/internal/ids"
)

// parseID checks that id is a UUID, the form of every id of the service.
func parseID(what, id string) (uuid.UUID, error) {
	return ids.Parse(what, id, ErrInvalidArgument)
}

// buildError wraps a failure of a generated request builder.
func buildError(op string, err error) error {
	return fmt.Errorf("podqa: %s: building the request: %w", op, err)
}

// Me returns the workspace the key is bound to and the key's record. It touches no billing,
// which makes it the recommended connection test.
func (c *Client) Me(ctx context.Context) (*Me, error) {
	req, err := api.NewGetMeRequest(c.restServer)
	if err != nil {
		return nil, buildError("GET /me", err)
	}
	var out Me
	if _, err := c.do(ctx, kindRead, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetCredits returns the workspace's credit position. It is the only call that consults the
// billing provider, so it is slow: keep it out of polling loops.
func (c *Client) GetCredits(ctx context.Context) (*Credits, error) {
	req, err := api.NewGetCreditsRequest(c.restServer)
	if err != nil {
		return nil, buildError("GET /credits", err)
	}
	var out Credits
	if _, err := c.do(ctx, kindRead, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListSeries returns one page of the workspace's series.
func (c *Client) ListSeries(ctx context.Context, p ListParams) (Page[Series], error) {
	var params api.ListSeriesParams
	var err error
	if params.Limit, err = int32Arg("limit", p.Limit); err != nil {
		return Page[Series]{}, err
	}
	if params.Offset, err = int32Arg("offset", p.Offset); err != nil {
		return Page[Series]{}, err
	}
	req, err := api.NewListSeriesRequest(c.restServer, &params)
	if err != nil {
		return Page[Series]{}, buildError("GET /series", err)
	}
	var out Page[Series]
	_, err = c.do(ctx, kindRead, req, &out)
	return out, err
}

// AllSeries iterates over every series from p.Offset on, fetching pages of p.Limit
// (default 100) and skipping rows seen on an earlier page. It stops at the first error, which
// it yields.
func (c *Client) AllSeries(ctx context.Context, p ListParams) iter.Seq2[Series, error] {
	p.Limit = cmp.Or(p.Limit, iteratorPageSize)
	return paginate(p.Offset, func(offset int) (Page[Series], error) {
		o := p
		o.Offset = offset
		return c.ListSeries(ctx, o)
	}, func(s *Series) string { return s.ID })
}

// GetSeries returns one series of the workspace; ErrNotFound when the workspace does not hold
// it.
func (c *Client) GetSeries(ctx context.Context, seriesID string) (*Series, error) {
	id, err := parseID("series id", seriesID)
	if err != nil {
		return nil, err
	}
	req, err := api.NewGetSeriesRequest(c.restServer, id)
	if err != nil {
		return nil, buildError("GET /series/{series_id}", err)
	}
	var out Series
	if _, err := c.do(ctx, kindRead, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListEpisodes returns one page of a series' episodes, newest first by FirstSeenAt (the order
// the service recorded them, not feed order).
func (c *Client) ListEpisodes(ctx context.Context, seriesID string, p ListParams) (Page[Episode], error) {
	id, err := parseID("series id", seriesID)
	if err != nil {
		return Page[Episode]{}, err
	}
	var params api.ListSeriesEpisodesParams
	if params.Limit, err = int32Arg("limit", p.Limit); err != nil {
		return Page[Episode]{}, err
	}
	if params.Offset, err = int32Arg("offset", p.Offset); err != nil {
		return Page[Episode]{}, err
	}
	req, err := api.NewListSeriesEpisodesRequest(c.restServer, id, &params)
	if err != nil {
		return Page[Episode]{}, buildError("GET /series/{series_id}/episodes", err)
	}
	var out Page[Episode]
	_, err = c.do(ctx, kindRead, req, &out)
	return out, err
}

// AllEpisodes iterates over every episode of a series, like AllSeries.
func (c *Client) AllEpisodes(ctx context.Context, seriesID string, p ListParams) iter.Seq2[Episode, error] {
	p.Limit = cmp.Or(p.Limit, iteratorPageSize)
	return paginate(p.Offset, func(offset int) (Page[Episode], error) {
		o := p
		o.Offset = offset
		return c.ListEpisodes(ctx, seriesID, o)
	}, func(e *Episode) string { return e.ID })
}

// ListReportsParams filters and pages ListReports and AllReports. Every field is optional.
type ListReportsParams struct {
	// SeriesID keeps only the reports of one of the workspace's series.
	SeriesID string
	// Status keeps only reports in this status (upper case, as the service writes it).
	Status Status
	// CreatedSince keeps only reports created strictly after this instant.
	CreatedSince time.Time
	// UpdatedSince keeps only reports updated strictly after this instant: the bound to poll
	// on (never CreatedSince, since reports finish out of order).
	UpdatedSince time.Time
	// Limit is the page size, 1 to 100 (default 50; 100 for AllReports).
	Limit int
	// Offset is the number of rows to skip.
	Offset int
}

func (p ListReportsParams) toAPI() (api.ListReportsParams, error) {
	var out api.ListReportsParams
	var err error
	if p.SeriesID != "" {
		id, err := parseID("series id", p.SeriesID)
		if err != nil {
			return out, err
		}
		out.SeriesID = &id
	}
	if p.Status != "" {
		s := api.ReportStatusFilter(p.Status)
		out.Status = &s
	}
	if !p.CreatedSince.IsZero() {
		t := p.CreatedSince.UTC()
		out.CreatedSince = &t
	}
	if !p.UpdatedSince.IsZero() {
		t := p.UpdatedSince.UTC()
		out.UpdatedSince = &t
	}
	if out.Limit, err = int32Arg("limit", p.Limit); err != nil {
		return out, err
	}
	if out.Offset, err = int32Arg("offset", p.Offset); err != nil {
		return out, err
	}
	return out, nil
}

// ListReports returns one page of the workspace's reports, newest first by created_at (so the
// first item is not necessarily the most recently updated).
func (c *Client) ListReports(ctx context.Context, p ListReportsParams) (Page[ReportListItem], error) {
	params, err := p.toAPI()
	if err != nil {
		return Page[ReportListItem]{}, err
	}
	req, err := api.NewListReportsRequest(c.restServer, &params)
	if err != nil {
		return Page[ReportListItem]{}, buildError("GET /reports", err)
	}
	var out Page[ReportListItem]
	_, err = c.do(ctx, kindRead, req, &out)
	return out, err
}

// AllReports iterates over every report matching p from p.Offset on, fetching pages of p.Limit
// (default 100) and skipping reports seen on an earlier page (new reports push older ones down
// the listing while it is walked). It stops at the first error, which it yields.
func (c *Client) AllReports(ctx context.Context, p ListReportsParams) iter.Seq2[ReportListItem, error] {
	p.Limit = cmp.Or(p.Limit, iteratorPageSize)
	return paginate(p.Offset, func(offset int) (Page[ReportListItem], error) {
		q := p
		q.Offset = offset
		return c.ListReports(ctx, q)
	}, func(r *ReportListItem) string { return r.ID })
}

// GetReport returns a full report; ErrNotFound when it is not in this workspace.
func (c *Client) GetReport(ctx context.Context, reportID string) (*Report, error) {
	id, err := parseID("report id", reportID)
	if err != nil {
		return nil, err
	}
	req, err := api.NewGetReportRequest(c.restServer, id)
	if err != nil {
		return nil, buildError("GET /reports/{report_id}", err)
	}
	var out Report
	if _, err := c.do(ctx, kindRead, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetTranscript returns a report's transcript; Entries is nil when the report has none.
func (c *Client) GetTranscript(ctx context.Context, reportID string) (*Transcript, error) {
	id, err := parseID("report id", reportID)
	if err != nil {
		return nil, err
	}
	req, err := api.NewGetReportTranscriptRequest(c.restServer, id)
	if err != nil {
		return nil, buildError("GET /reports/{report_id}/transcript", err)
	}
	var out Transcript
	if _, err := c.do(ctx, kindRead, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// createReport posts one form of POST /reports.
func (c *Client) createReport(ctx context.Context, kind callKind, body api.CreateReportRequest) (*CreatedReport, *call, error) {
	req, err := api.NewCreateReportRequest(c.restServer, body)
	if err != nil {
		return nil, nil, buildError("POST /reports", err)
	}
	var out CreatedReport
	st, err := c.do(ctx, kind, req, &out)
	if err != nil {
		return nil, st, err
	}
	return &out, st, nil
}

// CreateReportParams are the optional settings of CreateReportFromFeed and
// CreateReportFromSeries.
type CreateReportParams struct {
	// EpisodeIndex picks the episode, counting from the newest: 0 (the default) is the latest.
	// An index past the end of the feed is ErrValidation.
	EpisodeIndex int
}

// CreateReportFromFeed reports on one episode of the RSS feed at feedURL (the newest unless
// p.EpisodeIndex says otherwise). If the workspace does not hold the show, reporting adds it,
// which can fail with ErrPlanLimitReached. An unreadable feed or an index past its end is
// ErrValidation; a workspace short of credits gets ErrInsufficientCredits.
//
// The call is not idempotent, so it is retried only when the request cannot have been carried
// out (see the package documentation).
func (c *Client) CreateReportFromFeed(ctx context.Context, feedURL string, p CreateReportParams) (*CreatedReport, error) {
	if strings.TrimSpace(feedURL) == "" {
		return nil, fmt.Errorf("%w: a feed URL is required", ErrInvalidArgument)
	}
	idx, err := episodeIndexArg(p.EpisodeIndex)
	if err != nil {
		return nil, err
	}
	out, _, err := c.createReport(ctx, kindWrite, api.CreateReportRequest{FeedURL: &feedURL, EpisodeIndex: idx})
	return out, err
}

// CreateReportFromSeries reports on one episode of a series the workspace holds (ErrNotFound
// otherwise), the newest unless p.EpisodeIndex says otherwise. Retried like
// CreateReportFromFeed.
func (c *Client) CreateReportFromSeries(ctx context.Context, seriesID string, p CreateReportParams) (*CreatedReport, error) {
	id, err := parseID("series id", seriesID)
	if err != nil {
		return nil, err
	}
	idx, err := episodeIndexArg(p.EpisodeIndex)
	if err != nil {
		return nil, err
	}
	out, _, err := c.createReport(ctx, kindWrite, api.CreateReportRequest{SeriesID: &id, EpisodeIndex: idx})
	return out, err
}

// CreateReportFromUpload creates the report of audio uploaded to a reservation from
// ReserveUpload: reportID is the reservation's id, duration the same duration given to
// ReserveUpload. The id must have been minted by this workspace within 7 days and not used
// (else ErrNotFound).
//
// Because the id names the report, this call is idempotent and is retried like a read, on 5xx
// and timeouts too. If an attempt that may have been carried out is followed by a 409 conflict,
// the earlier attempt created the report: the call then reads the report and returns its id and
// status (EstimatedCredits is nil in that case). A 409 on the first attempt is ErrConflict.
func (c *Client) CreateReportFromUpload(ctx context.Context, reportID, originalFilename string, duration time.Duration) (*CreatedReport, error) {
	id, err := parseID("report id", reportID)
	if err != nil {
		return nil, err
	}
	if originalFilename == "" {
		return nil, fmt.Errorf("%w: an original file name is required", ErrInvalidArgument)
	}
	dur, err := durationArg(duration)
	if err != nil {
		return nil, err
	}
	out, st, err := c.createReport(ctx, kindIdempotentWrite, api.CreateReportRequest{ReportID: &id, OriginalFilename: &originalFilename, DurationMs: &dur})
	if err != nil && st != nil && st.maybeApplied && errors.Is(err, ErrConflict) {
		r, gerr := c.GetReport(ctx, reportID)
		if gerr != nil {
			return nil, fmt.Errorf("podqa: POST /reports: the report was created by an earlier attempt but reading it failed: %w", gerr)
		}
		return &CreatedReport{ID: r.ID, Status: r.Status}, nil
	}
	return out, err
}

func episodeIndexArg(n int) (*int32, error) {
	if n < 0 || n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: episode index %d out of range", ErrInvalidArgument, n)
	}
	v := int32(n)
	return &v, nil
}

// durationArg is d as the API's duration_ms: whole milliseconds, rounded up.
func durationArg(d time.Duration) (int32, error) {
	if d < 0 || d > math.MaxInt32*time.Millisecond {
		return 0, fmt.Errorf("%w: duration %v out of range (0 to about 24 days)", ErrInvalidArgument, d)
	}
	return int32((d + time.Millisecond - 1) / time.Millisecond), nil
}

// ReserveUpload announces an audio file and returns where to PUT it and the report id to pass
// to CreateReportFromUpload. fileName matters only for its extension; fileType is the MIME type,
// which the later PUT must send as its Content-Type exactly; duration is the audio's length,
// sent in whole milliseconds rounded up. Retried like CreateReportFromFeed.
func (c *Client) ReserveUpload(ctx context.Context, fileName, fileType string, duration time.Duration) (*UploadReservation, error) {
	if fileName == "" || fileType == "" {
		return nil, fmt.Errorf("%w: a file name and a file type are required", ErrInvalidArgument)
	}
	dur, err := durationArg(duration)
	if err != nil {
		return nil, err
	}
	req, err := api.NewCreateUploadRequest(c.restServer, api.CreateUploadRequest{FileName: fileName, FileType: fileType, DurationMs: dur})
	if err != nil {
		return nil, buildError("POST /uploads", err)
	}
	var out UploadReservation
	if _, err := c.do(ctx, kindWrite, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EstimateCredits is the pre-flight cost of analysing audio of duration d: 10 credits per
// started minute, never less than 100 (the price of ten minutes). The amount finally charged is
// recomputed from the measured audio (Report.CreditsCharged).
func EstimateCredits(d time.Duration) int {
	if d <= 0 {
		return 100
	}
	minutes := (d + time.Minute - 1) / time.Minute
	if minutes > math.MaxInt/10 {
		return math.MaxInt
	}
	return max(100, 10*int(minutes))
}

// SubscribeWebhook creates a webhook endpoint of the workspace and returns its id and signing
// secret (shown only here). A workspace holds at most five endpoints (ErrConflict beyond).
// Errors of this call come as a bare message; they are mapped to the same *APIError, with the
// code their status stands for. Retried like CreateReportFromFeed.
func (c *Client) SubscribeWebhook(ctx context.Context, p WebhookSubscribeParams) (*WebhookSubscription, error) {
	body := api.WebhookSubscribeRequest{URL: p.URL, Events: make([]api.WebhookEventType, len(p.Events))}
	for i, e := range p.Events {
		body.Events[i] = api.WebhookEventType(e)
	}
	if p.SeriesID != "" {
		id, err := parseID("series id", p.SeriesID)
		if err != nil {
			return nil, err
		}
		body.SeriesID = &id
	}
	req, err := api.NewSubscribeWebhookRequest(c.rootServer, body)
	if err != nil {
		return nil, buildError("POST /webhook/subscribe", err)
	}
	var out WebhookSubscription
	if _, err := c.do(ctx, kindWrite, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UnsubscribeWebhook deletes a webhook endpoint created with SubscribeWebhook; ErrNotFound for
// any other id (endpoints added in Settings cannot be deleted this way).
func (c *Client) UnsubscribeWebhook(ctx context.Context, webhookID string) error {
	id, err := parseID("webhook id", webhookID)
	if err != nil {
		return err
	}
	req, err := api.NewUnsubscribeWebhookRequest(c.rootServer, id)
	if err != nil {
		return buildError("DELETE /webhook/subscribe/{id}", err)
	}
	_, err = c.do(ctx, kindWrite, req, nil)
	return err
}
