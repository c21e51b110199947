package fakeserver

import "github.com/podqa/podqa-go/fakeserver/internal/core"

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
