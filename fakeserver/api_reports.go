package fakeserver

import (
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// SeededReport describes one report for SeedReports.
type SeededReport struct {
	// FileName is the report's original_filename (default "seeded-N.wav", N from 1).
	FileName string
	// Duration is the measured length of the report's audio (default 10 minutes); it sets the
	// credits charged at completion.
	Duration time.Duration
	// CompleteAfter is how long after now, on the fake's clock, the report completes, from 0
	// to 366 days; 0 completes it before SeedReports returns. On a manual clock the later ones
	// complete as Advance reaches them.
	CompleteAfter time.Duration
}

// SeedReports creates reports in a workspace without audio to fetch or measure: they start
// IN_PROGRESS, in the order given (the last one is the newest by created_at), and each
// completes CompleteAfter later through the ordinary completion (judged as passing audio at the
// target loudness, charged, updated_at moved). It returns their ids in the same order.
//
// It is for testing clients that watch many reports, such as pollers: thousands of reports that
// finish in any chosen order cost microseconds each. Nothing is created unless every entry is
// valid.
func (s *Server) SeedReports(workspaceID string, reports []SeededReport) (_ []string, err error) {
	defer apiError(&err)
	in := make([]core.BulkReport, len(reports))
	for i, r := range reports {
		in[i] = core.BulkReport(r)
	}
	out, err := s.core.SeedReportsIn(workspaceID, in)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r.ID.String()
	}
	return ids, nil
}

// FeedCheckPeriod is how often the fake re-reads every tracked feed (a feed some workspace holds
// as a series), counted from when the first workspace added it: new episodes, the explicit flag,
// and breakage are noticed at these checks.
const FeedCheckPeriod = time.Hour

// SetAutomatedReporting turns a series' automated reporting on or off, as its workspace does in
// the dashboard: with it on, the feed checker reports on every new episode.
func (s *Server) SetAutomatedReporting(seriesID string, on bool) (err error) {
	defer apiError(&err)
	_, err = s.core.SwitchAutomatedReporting(seriesID, on)
	return err
}

// ReportVerdict is a report's judgement as lists show it beside the status: whether it passed
// its standard, how many of the standard's required checks failed, and the standard's name. A
// report is judged when it completes: before that, and for a FAILED or OUT_OF_QUOTA report,
// Judged is false and only Standard is set. A COMPLETE report with Passed false completed but
// did not pass.
type ReportVerdict struct {
	Judged bool
	Passed bool
	// RequiredFailures of RequiredTotal required checks failed.
	RequiredFailures, RequiredTotal int
	// Standard is the name of the standard the report is judged by.
	Standard string
}

func verdictView(v core.Verdict) ReportVerdict { return ReportVerdict(v) }
