package dashboard

import (
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Summary is a report as the dashboard's lists and its report page name it: what
// fakeserver.ReportSummary and core.ReportHead both say of it.
type Summary struct {
	ID, WorkspaceID, Source, Status, SeriesID string
	CreatedAt, UpdatedAt                      time.Time
	Name                                      string
	Verdict                                   core.Verdict
}

// summaryOf is a listed report's summary.
func summaryOf(h core.ReportHead) Summary {
	s := Summary{ID: h.ID.String(), WorkspaceID: h.Workspace.String(), Source: h.Source, Status: h.Status, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt, Name: h.Name, Verdict: h.Verdict}
	if h.Series != nil {
		s.SeriesID = h.Series.String()
	}
	return s
}

// ReportRow is a report as the dashboard's lists and its report page show it: its name, its
// status and, beside it, its verdict. A COMPLETE report that did not pass is not drawn as a
// success: its status carries the class not-passed.
type ReportRow struct {
	// The summary's fields, copied rather than embedded: html/template looks a promoted field up
	// by a search that allocates, for every field of every row.
	ID, Source, Status, SeriesID string
	CreatedAt, UpdatedAt         time.Time
	// Shown is what names the report: its name, else "(no name)".
	Shown string
	// Named is false when the report has no name (Shown is then a placeholder).
	Named bool
	// StatusClass is the status cell's class list.
	StatusClass string
	// Verdict is the verdict in words; VerdictClass passed, not-passed or unjudged.
	Verdict, VerdictClass string
}

// RowOf is a report's row.
func RowOf(r Summary) ReportRow {
	row := ReportRow{ID: r.ID, Source: r.Source, Status: r.Status, SeriesID: r.SeriesID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Shown: r.Name, Named: r.Name != "", StatusClass: "status " + r.Status}
	if !row.Named {
		row.Shown = "(no name)"
	}
	row.Shown, _ = CutRunes(row.Shown, MaxName)
	row.Verdict, row.VerdictClass = verdictWords(r.Status, r.Verdict)
	if r.Status == core.StatusComplete && row.VerdictClass != "passed" {
		row.StatusClass += " not-passed"
	}
	return row
}

// verdictWords says a verdict as the dashboard shows it beside the status.
func verdictWords(status string, v core.Verdict) (words, class string) {
	std, _ := CutRunes(v.Standard, MaxName)
	if std == "" {
		std = "its standard"
	}
	switch {
	case v.Judged && v.Passed:
		return "passed " + std + " (" + failures(v) + ")", "passed"
	case v.Judged:
		return "did not pass " + std + ": " + failures(v), "not-passed"
	case status == core.StatusComplete:
		return "not judged against " + std, "unjudged"
	case status == core.StatusFailed || status == core.StatusOutOfQuota:
		return "not judged: the report was not analysed", "unjudged"
	default:
		return "to be judged against " + std, "unjudged"
	}
}

func failures(v core.Verdict) string {
	n := strconv.Itoa(v.RequiredFailures) + " of " + strconv.Itoa(v.RequiredTotal) + " required checks failed"
	if v.RequiredTotal == 1 {
		n = strconv.Itoa(v.RequiredFailures) + " of 1 required check failed"
	}
	return n
}
