package views

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
	"github.com/podqa/podqa-go/internal/apitime"
)

// Report is one report as REST and GraphQL both show it, made once from the core's report.
// REST's GET /reports/{id} body is the view encoded whole (its fields are the Report schema's,
// in its order); GraphQL's report fields are its parts, and GraphQL's JSON-text fields (stats,
// file_info, metadata, results, cover_image) are the view's encoded parts as they are, so both
// APIs carry the same content without either adapter going through the other.
type Report struct {
	AudioURL         *string                   `json:"audio_url"`
	CoverImage       json.RawMessage           `json:"cover_image"`
	CreatedAt        *apitime.Time             `json:"created_at"`
	CreditsCharged   *string                   `json:"credits_charged"`
	Episode          *restserver.ReportEpisode `json:"episode"`
	FileInfo         json.RawMessage           `json:"file_info"`
	ID               uuid.UUID                 `json:"id"`
	Metadata         json.RawMessage           `json:"metadata"`
	Name             *string                   `json:"name"`
	OriginalFilename string                    `json:"original_filename"`
	PersonalReport   bool                      `json:"personal_report"`
	Results          json.RawMessage           `json:"results"`
	Series           *restserver.ReportSeries  `json:"series"`
	Standard         *restserver.StandardRef   `json:"standard"`
	StartedAt        *apitime.Time             `json:"started_at"`
	Stats            json.RawMessage           `json:"stats"`
	Status           restserver.ReportStatus   `json:"status"`
	UpdatedAt        *apitime.Time             `json:"updated_at"`
}

// Report makes the shared view of r. A nested object the report does not have stays nil
// (JSON null).
func (v *Views) Report(r core.Report) (Report, error) {
	out := Report{
		ID: r.ID, Status: restserver.ReportStatus(r.Status), Name: OptString(r.Name),
		CreatedAt: apitime.Ptr(r.CreatedAt), UpdatedAt: apitime.Ptr(r.UpdatedAt),
		OriginalFilename: r.OriginalFilename, PersonalReport: r.Personal, AudioURL: OptString(r.AudioURL),
		Standard: &restserver.StandardRef{ID: r.Standard.ID, Name: r.Standard.Name, Builtin: r.Standard.Builtin},
	}
	if r.StartedAt != nil {
		out.StartedAt = apitime.Ptr(*r.StartedAt)
	}
	if r.CreditsCharged != nil {
		charged := fmt.Sprintf("%d.00", *r.CreditsCharged)
		out.CreditsCharged = &charged
	}
	if sr, e := v.Show(r); sr != nil {
		feed := sr.FeedURL
		guid := e.GUID
		out.Series = &restserver.ReportSeries{ID: sr.ID, Title: OptString(sr.Title), FeedURL: &feed}
		out.Episode = &restserver.ReportEpisode{ID: e.ID, Title: OptString(e.Title), GUID: &guid, AudioURL: e.AudioURL, PublishedOn: OptDate(e.PublishedOn)}
	}
	if r.Recorded != nil {
		return recordedView(out, r.Recorded), nil
	}
	var parts encoder
	switch {
	case r.Stats != nil:
		parts.encode(&out.Stats, statsJSON(*r.Stats, 0))
	case r.Status == core.StatusInProgress:
		remaining := int(r.TimeRemaining(v.clock.Now()) / time.Millisecond)
		parts.encode(&out.Stats, &restserver.Stats{TimeRemaining: &remaining})
	}
	if r.Results != nil {
		results := make([]restserver.ResultEntry, 0, len(r.Results))
		for _, res := range r.Results {
			results = append(results, restserver.ResultEntry{
				Name: res.Name, VerboseName: res.VerboseName, Status: restserver.ResultStatus(res.Status),
				Value: res.Value, MeasurementUnit: res.MeasurementUnit, Description: res.Description,
				WarningMessage: res.WarningMessage, Link: res.Link, Severity: restserver.Severity(res.Severity), Limit: res.Limit,
			})
		}
		parts.encode(&out.Results, results)
	}
	if m := r.Measurement; m != nil && r.Status == core.StatusComplete {
		parts.encode(&out.FileInfo, fileInfoJSON(*m))
		if md := metadataJSON(m.Tags); md != nil {
			parts.encode(&out.Metadata, md)
		}
		if cover := v.coverJSON(r.ID, m.Tags); cover != nil {
			parts.encode(&out.CoverImage, cover)
		}
	}
	return out, parts.err
}

// Transcript is the JSON text of a report's transcript as GraphQL carries it (REST serves it
// at /reports/{id}/transcript), or nil when the report's standard leaves it out or it has none.
func Transcript(r core.Report) (json.RawMessage, error) {
	if !core.TranscriptIncluded(r.Standard) || r.Transcript == nil {
		return nil, nil
	}
	return json.Marshal(TranscriptEntries(r.Transcript))
}

// encoder encodes a view's nested objects, keeping the first failure.
type encoder struct{ err error }

func (p *encoder) encode(dst *json.RawMessage, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		p.err = err
		return
	}
	*dst = b
}

// Show returns the series and episode of a feed report, or nils for an upload.
func (v *Views) Show(r core.Report) (*core.Series, *core.Episode) {
	if r.Series == nil || r.Episode == nil {
		return nil, nil
	}
	sr, ok := v.core.SeriesByID(*r.Series)
	e, ok2 := v.core.Episode(*r.Episode)
	if !ok || !ok2 {
		return nil, nil
	}
	return &sr, &e
}
