package core

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// SourceImported is the source of a report loaded as recorded from another service (the
// program's import): it is served as it was recorded and never measured, judged or charged.
const SourceImported = "imported"

// Recorded is what a recorded report's answer held that the fake would otherwise work out:
// the five JSON parts as the service sent them (nil is JSON null) and credits_charged as its
// decimal text.
type Recorded struct {
	Stats, Results, FileInfo, Metadata, CoverImage json.RawMessage
	CreditsCharged                                 *string
}

// ImportedSeries is a show as another service listed it, with the episodes it had seen. Its
// feed is not tracked: the fake never reads it.
type ImportedSeries struct {
	// ID is the series' id; uuid.Nil mints one.
	ID                 uuid.UUID
	Title              *string
	FeedURL            string
	AutomatedReporting bool
	CreatedAt          time.Time
	Episodes           []ImportedEpisode
}

// ImportedEpisode is an episode of an ImportedSeries.
type ImportedEpisode struct {
	// ID is the episode's id; uuid.Nil mints one.
	ID          uuid.UUID
	Title       *string
	GUID        string
	AudioURL    string
	PublishedOn *time.Time
	FirstSeenAt time.Time
}

// ImportedReport is a report as another service answered it.
type ImportedReport struct {
	// ID is the report's id; uuid.Nil mints one.
	ID               uuid.UUID
	Status           string
	Name             *string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	StartedAt        *time.Time
	OriginalFilename string
	Personal         bool
	AudioURL         *string
	// Standard is the standard as the report named it (its id, name and builtin flag; the
	// limits are not known) and whether the transcript is kept.
	Standard        Standard
	Series, Episode *uuid.UUID
	Recorded        Recorded
	// Transcript is nil when the report had none.
	Transcript []TranscriptLine
}

// ImportSeries adds a recorded show and its episodes to workspace ws, outside the plan's
// podcast cap (the service held it) and without tracking its feed. An id already in use, or a
// feed the workspace already holds, is a conflict.
func (c *Core) ImportSeries(ws uuid.UUID, in ImportedSeries) (Series, []Episode, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.workspaces[ws]
	if w == nil {
		return Series{}, nil, ErrNotFound("Workspace")
	}
	cat := c.catalogLocked(ws)
	if _, dup := cat.byFeed[in.FeedURL]; dup {
		return Series{}, nil, errorf(CodeConflict, "The workspace already holds a series of this feed.")
	}
	id := in.ID
	if id == uuid.Nil {
		id = c.rand.UUID()
	} else if _, taken := c.series[id]; taken {
		return Series{}, nil, errorf(CodeConflict, "The series id %s is already in use.", id)
	}
	seen := map[uuid.UUID]bool{}
	for _, e := range in.Episodes {
		if e.ID == uuid.Nil {
			continue
		}
		if _, taken := c.episodes[e.ID]; taken || seen[e.ID] {
			return Series{}, nil, errorf(CodeConflict, "The episode id %s is already in use.", e.ID)
		}
		seen[e.ID] = true
	}
	s := &Series{ID: id, Workspace: ws, Title: in.Title, FeedURL: in.FeedURL, AutomatedReporting: in.AutomatedReporting, CreatedAt: in.CreatedAt}
	c.series[id] = s
	cat.order = append(cat.order, id)
	cat.byFeed[in.FeedURL] = id
	eps := &seriesEpisodes{byGUID: map[string]*Episode{}}
	cat.episodes[id] = eps
	// The listing is newest first by first_seen_at, read from the end of seen.
	order := slices.Clone(in.Episodes)
	slices.SortStableFunc(order, func(a, b ImportedEpisode) int { return a.FirstSeenAt.Compare(b.FirstSeenAt) })
	out := make([]Episode, 0, len(order))
	for _, ie := range order {
		e := &Episode{ID: ie.ID, Series: id, Title: ie.Title, GUID: ie.GUID, AudioURL: ie.AudioURL, PublishedOn: ie.PublishedOn, FirstSeenAt: ie.FirstSeenAt}
		if e.ID == uuid.Nil {
			e.ID = c.rand.UUID()
		}
		if e.GUID == "" {
			e.GUID = e.AudioURL
		}
		eps.seen = append(eps.seen, e)
		eps.byGUID[e.GUID] = e
		c.episodes[e.ID] = e
		out = append(out, *e)
	}
	return *s, out, nil
}

// ImportReports adds recorded reports to workspace ws, oldest first by created_at whatever
// their order in in. A report's series and episode must be the workspace's (ImportSeries);
// nothing is added unless every report can be.
func (c *Core) ImportReports(ws uuid.UUID, in []ImportedReport) ([]Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.workspaces[ws]
	if w == nil {
		return nil, ErrNotFound("Workspace")
	}
	ids := map[uuid.UUID]int{}
	for i, ir := range in {
		if statusNumber(ir.Status) < 0 {
			return nil, ErrValidation("reports[%d]: status %q is not a report status.", i, ir.Status)
		}
		if ir.ID != uuid.Nil {
			if _, taken := c.reports[ir.ID]; taken {
				return nil, errorf(CodeConflict, "reports[%d]: the report id %s is already in use.", i, ir.ID)
			}
			if j, dup := ids[ir.ID]; dup {
				return nil, errorf(CodeConflict, "reports[%d]: the report id %s is already that of reports[%d].", i, ir.ID, j)
			}
			ids[ir.ID] = i
		}
		if ir.Series != nil {
			if s := c.series[*ir.Series]; s == nil || s.Workspace != ws {
				return nil, ErrValidation("reports[%d]: the series is not one of the workspace's.", i)
			}
		}
		if ir.Episode != nil {
			if e := c.episodes[*ir.Episode]; e == nil || ir.Series == nil || e.Series != *ir.Series {
				return nil, ErrValidation("reports[%d]: the episode is not one of the report's series.", i)
			}
		}
	}
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return in[a].CreatedAt.Compare(in[b].CreatedAt) })
	out := make([]Report, len(in))
	made := make([]*Report, 0, len(in))
	for _, i := range order {
		ir := in[i]
		r := &Report{
			ID: ir.ID, Workspace: ws, Status: ir.Status, Name: ir.Name, CreatedAt: ir.CreatedAt, UpdatedAt: ir.UpdatedAt,
			StartedAt: ir.StartedAt, OriginalFilename: ir.OriginalFilename, Personal: ir.Personal, AudioURL: ir.AudioURL,
			Series: ir.Series, Episode: ir.Episode, Standard: ir.Standard, Transcript: ir.Transcript, Source: SourceImported,
		}
		if r.ID == uuid.Nil {
			r.ID = c.rand.UUID()
		}
		rec := ir.Recorded
		r.Recorded = &rec
		r.Stats = recordedStats(rec.Stats)
		c.insertReportLocked(r)
		r.Timeline = []StatusStep{{Status: r.Status, At: r.UpdatedAt}}
		made = append(made, r)
		out[i] = *r
	}
	// The update order is updated_at's, not the order of creation.
	if idx := c.reportIdx[ws]; idx != nil && len(made) > 0 {
		slices.SortStableFunc(made, func(a, b *Report) int { return cmp.Compare(nanos(a.UpdatedAt), nanos(b.UpdatedAt)) })
		for _, r := range made {
			idx.updated.MoveToBack(r.byUpdate)
		}
	}
	return out, nil
}

// recordedStats reads the counts and verdict of a recorded stats part, for what the fake shows
// of a report beside its answer (a series' score history); nil when it has none or they cannot
// be read. The answer itself serves the part as recorded.
func recordedStats(raw json.RawMessage) *Stats {
	if raw == nil {
		return nil
	}
	var st struct {
		Passes, Failures, Total, Percent int
		Passed                           *bool
		RequiredFailures                 int `json:"required_failures"`
		RequiredTotal                    int `json:"required_total"`
		InfoFlagged                      int `json:"info_flagged"`
		InfoTotal                        int `json:"info_total"`
	}
	if json.Unmarshal(raw, &st) != nil || st.Passed == nil {
		return nil
	}
	return &Stats{Passes: st.Passes, Failures: st.Failures, Total: st.Total, Percent: st.Percent, Passed: *st.Passed,
		RequiredFailures: st.RequiredFailures, RequiredTotal: st.RequiredTotal, InfoFlagged: st.InfoFlagged, InfoTotal: st.InfoTotal}
}
