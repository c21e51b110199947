package views

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
	"github.com/podqa/podqa-go/internal/apitime"
)

// OptString is a copy of s, nil for nil.
func OptString(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

// OptDate is t as a date of the contract, nil for nil.
func OptDate(t *time.Time) *openapi_types.Date {
	if t == nil {
		return nil
	}
	return &openapi_types.Date{Time: t.UTC().Truncate(24 * time.Hour)}
}

// rawJSON is v encoded; the values it is given always encode.
func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// statsJSON writes stats, with remaining milliseconds of analysis.
func statsJSON(st core.Stats, remaining int) *restserver.Stats {
	return &restserver.Stats{
		Passes: &st.Passes, Failures: &st.Failures, Total: &st.Total, Percent: &st.Percent,
		TimeRemaining: &remaining, Passed: &st.Passed, RequiredFailures: &st.RequiredFailures,
		RequiredTotal: &st.RequiredTotal, InfoFlagged: &st.InfoFlagged, InfoTotal: &st.InfoTotal,
	}
}

// TranscriptEntries renders transcript lines as REST (and, JSON-encoded, GraphQL) carry them.
func TranscriptEntries(transcript []core.TranscriptLine) []restserver.TranscriptEntry {
	lines := make([]restserver.TranscriptEntry, 0, len(transcript))
	for _, l := range transcript {
		lines = append(lines, restserver.TranscriptEntry{Start: l.Start, End: l.End, Text: l.Text, Speaker: l.Speaker})
	}
	return lines
}

// Credits is a workspace's credits as REST and the control API show them.
func Credits(cr core.Credits) restserver.Credits {
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
func (v *Views) coverJSON(reportID uuid.UUID, t *core.Tags) *restserver.CoverImage {
	if t == nil || t.Cover == nil {
		return nil
	}
	f := t.Cover.Facts()
	return &restserver.CoverImage{
		Width: rawJSON(f.Width), Height: rawJSON(f.Height), FileSize: rawJSON(len(t.Cover.Data)),
		URL: rawJSON(v.CoverURL(reportID)),
	}
}
