package graphqlclient

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/graphqlclient/internal/operations"
	"github.com/podqa/podqa-go/internal/apitime"
)

// Me returns who the API key acts as, the key record and the organisations it can reach. It
// reads no workspace, so it ignores the workspace choice.
func (c *Client) Me(ctx context.Context) (*Identity, error) {
	data, err := operations.Me(ctx, c.gql)
	if err != nil {
		return nil, err
	}
	out := &Identity{Organisations: []Organisation{}}
	if u := data.User; u != nil {
		out.User = &User{ID: u.Id, Email: deref(u.Email), FirstName: deref(u.FirstName), LastName: deref(u.LastName)}
	}
	if k := data.CurrentApiKey; k != nil {
		owner, err := decodeOwner(k.Owner)
		if err != nil {
			return nil, err
		}
		out.Key = &APIKey{MaskedKey: k.MaskedKey, Owner: owner}
	}
	for _, o := range data.Organisations {
		if o != nil {
			out.Organisations = append(out.Organisations, Organisation{ID: o.Id, Name: deref(o.Name)})
		}
	}
	return out, nil
}

// ListParams pages a listing. A zero Limit takes the service's default (20 series, 10
// reports); there is no maximum.
type ListParams struct {
	Limit  int
	Offset int
}

func (o ListParams) args() (*int, *int, error) {
	if o.Limit < 0 || o.Offset < 0 || o.Limit > math.MaxInt32 || o.Offset > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: limit and offset must be 0 to %d", client.ErrInvalidArgument, math.MaxInt32)
	}
	var limit, offset *int
	if o.Limit > 0 {
		limit = &o.Limit
	}
	if o.Offset > 0 {
		offset = &o.Offset
	}
	return limit, offset, nil
}

// ListSeries lists one page of the workspace's series, ordered by title.
func (c *Client) ListSeries(ctx context.Context, p ListParams) ([]Series, error) {
	limit, offset, err := p.args()
	if err != nil {
		return nil, err
	}
	org, err := c.organisationArg(ctx)
	if err != nil {
		return nil, err
	}
	data, err := operations.ListSeries(ctx, c.gql, limit, offset, org)
	if err != nil {
		return nil, err
	}
	out := make([]Series, 0, len(data.SeriesList))
	for _, s := range data.SeriesList {
		if s == nil {
			continue
		}
		sr := Series{ID: s.Id, Title: deref(s.Title), Kind: client.SeriesKind(s.Kind), CoverImageURL: deref(s.CoverImageUrl), Sources: []Source{}}
		for _, src := range s.Sources {
			last, err := parseTime("sources.lastCheck", src.LastCheck)
			if err != nil {
				return nil, err
			}
			sr.Sources = append(sr.Sources, Source{FeedURL: deref(src.FeedUrl), LastCheck: last})
		}
		out = append(out, sr)
	}
	return out, nil
}

// AllSeries iterates over every series of the workspace, page by page (p.Limit per page,
// the service's default when 0, starting at p.Offset). It stops at the first error, which
// it yields.
func (c *Client) AllSeries(ctx context.Context, p ListParams) iter.Seq2[Series, error] {
	return paginate(p, 20, func(o ListParams) ([]Series, error) { return c.ListSeries(ctx, o) })
}

// GetSeries reads one series with its score history. Anyone holding the id can read it; the
// history's report ids and verdicts are empty unless the caller can see the show.
func (c *Client) GetSeries(ctx context.Context, seriesID string) (*Series, error) {
	id, err := parseID("series id", seriesID)
	if err != nil {
		return nil, err
	}
	org, err := c.organisationArg(ctx)
	if err != nil {
		return nil, err
	}
	data, err := operations.GetSeries(ctx, c.gql, id, org)
	if err != nil {
		return nil, err
	}
	s := data.Series
	if s == nil {
		return nil, &Error{Op: "GetSeries", Errors: []ErrorEntry{{Message: "Series not found.", Code: string(client.CodeNotFound)}}}
	}
	out := &Series{ID: s.Id, Title: deref(s.Title), Kind: client.SeriesKind(s.Kind), CoverImageURL: deref(s.CoverImageUrl), Sources: []Source{}, HistoricScores: []HistoricScore{}}
	for _, src := range s.Sources {
		last, err := parseTime("sources.lastCheck", src.LastCheck)
		if err != nil {
			return nil, err
		}
		out.Sources = append(out.Sources, Source{FeedURL: deref(src.FeedUrl), LastCheck: last})
	}
	for _, h := range s.HistoricScores {
		if h == nil {
			continue
		}
		out.HistoricScores = append(out.HistoricScores, HistoricScore{ReportID: deref(h.ReportId), Passed: h.Passed, RequiredFailures: h.RequiredFailures})
	}
	return out, nil
}

// ListReportsParams filters and pages ListReports. Zero fields are left out.
type ListReportsParams struct {
	ListParams
	// ForSeriesID keeps the reports of one series of the workspace.
	ForSeriesID string
	// CreatedSince and UpdatedSince keep reports created or updated strictly after the
	// instant.
	CreatedSince time.Time
	UpdatedSince time.Time
	// Status keeps reports with this status. GraphQL's filter takes the stored lower-case
	// form; the package sends the lower-case form of the upper-case client.Status. A status
	// the service does not know matches nothing; it is not an error.
	Status client.Status
}

// ListReports lists one page of the workspace's reports, newest first.
func (c *Client) ListReports(ctx context.Context, p ListReportsParams) ([]ReportSummary, error) {
	limit, offset, err := p.args()
	if err != nil {
		return nil, err
	}
	var forSeries, created, updated, status *string
	if p.ForSeriesID != "" {
		id, err := parseID("series id", p.ForSeriesID)
		if err != nil {
			return nil, err
		}
		forSeries = &id
	}
	if !p.CreatedSince.IsZero() {
		s := apitime.Format(p.CreatedSince)
		created = &s
	}
	if !p.UpdatedSince.IsZero() {
		s := apitime.Format(p.UpdatedSince)
		updated = &s
	}
	if p.Status != "" {
		s := strings.ToLower(string(p.Status))
		status = &s
	}
	org, err := c.organisationArg(ctx)
	if err != nil {
		return nil, err
	}
	data, err := operations.ListReports(ctx, c.gql, org, limit, offset, forSeries, created, updated, status)
	if err != nil {
		return nil, err
	}
	out := make([]ReportSummary, 0, len(data.Reports))
	for _, r := range data.Reports {
		if r == nil {
			continue
		}
		row := ReportSummary{ID: r.Id, Name: deref(r.Name), Status: client.Status(r.Status), TranscriptIncluded: r.TranscriptIncluded}
		if row.CreatedAt, err = parseTime("createdAt", r.CreatedAt); err != nil {
			return nil, err
		}
		if row.UpdatedAt, err = parseTime("updatedAt", r.UpdatedAt); err != nil {
			return nil, err
		}
		if s := r.Series; s != nil {
			row.Series = &SeriesRef{ID: s.Id, Title: deref(s.Title)}
		}
		if s := r.Standard; s != nil {
			row.Standard = &client.StandardRef{ID: s.Id, Name: s.Name, Builtin: s.Builtin}
		}
		if row.Stats, err = decodeOptional[client.Stats]("stats", r.Stats); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

// AllReports iterates over every report that matches p, newest first, page by page. It stops
// at the first error, which it yields.
func (c *Client) AllReports(ctx context.Context, p ListReportsParams) iter.Seq2[ReportSummary, error] {
	return paginate(p.ListParams, 10, func(o ListParams) ([]ReportSummary, error) {
		q := p
		q.ListParams = o
		return c.ListReports(ctx, q)
	})
}

// GetReport reads one report with every documented field. It needs no workspace: a report id
// is enough to read it.
func (c *Client) GetReport(ctx context.Context, reportID string) (*Report, error) {
	id, err := parseID("report id", reportID)
	if err != nil {
		return nil, err
	}
	data, err := operations.GetReport(ctx, c.gql, id)
	if err != nil {
		return nil, err
	}
	if data.Report == nil {
		return nil, &Error{Op: "GetReport", Errors: []ErrorEntry{{Message: "Report not found.", Code: string(client.CodeNotFound)}}}
	}
	return toReport(data.Report)
}

// toReport converts a generated report, decoding its JSON-string fields.
func toReport(r *operations.GetReportReportReportType) (*Report, error) {
	var err error
	out := &Report{
		ID: r.Id, Name: deref(r.Name), Status: client.Status(r.Status), AudioURL: deref(r.AudioUrl),
		TranscriptIncluded: r.TranscriptIncluded,
	}
	if out.CreatedAt, err = parseTime("createdAt", r.CreatedAt); err != nil {
		return nil, err
	}
	if out.UpdatedAt, err = parseTime("updatedAt", r.UpdatedAt); err != nil {
		return nil, err
	}
	if s := r.Series; s != nil {
		out.Series = &SeriesRef{ID: s.Id, Title: deref(s.Title)}
	}
	if s := r.Standard; s != nil {
		out.Standard = &client.StandardRef{ID: s.Id, Name: s.Name, Builtin: s.Builtin}
	}
	if out.Stats, err = decodeOptional[client.Stats]("stats", r.Stats); err != nil {
		return nil, err
	}
	if out.FileInfo, err = decodeOptional[client.FileInfo]("fileInfo", r.FileInfo); err != nil {
		return nil, err
	}
	if out.Metadata, err = decodeOptional[client.Metadata]("metadata", r.Metadata); err != nil {
		return nil, err
	}
	if out.CoverImage, err = decodeOptional[client.CoverImage]("coverImage", r.CoverImage); err != nil {
		return nil, err
	}
	if _, err = decodeJSONString("results", r.Results, &out.Results); err != nil {
		return nil, err
	}
	if _, err = decodeJSONString("transcript", r.Transcript, &out.Transcript); err != nil {
		return nil, err
	}
	return out, nil
}

// paginate walks pages of size p.Limit (def when 0) from p.Offset until a short page.
func paginate[T any](p ListParams, def int, page func(ListParams) ([]T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		size := p.Limit
		if size <= 0 {
			size = def
		}
		o := ListParams{Limit: size, Offset: p.Offset}
		for {
			items, err := page(o)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if len(items) < size {
				return
			}
			o.Offset += len(items)
		}
	}
}
