package core

// ReportDisplayName is what a list calls a report: the name the report carries (its title
// tag, else its episode's title, else its file name, as the core names it), or its file name
// while it has none, or "report <first 8 characters of its id>" for a report of neither. The run
// report's rows use it; the dashboard's lists are to share it.
func ReportDisplayName(r Report) string {
	switch {
	case r.Name != nil && *r.Name != "":
		return *r.Name
	case r.Measurement != nil && r.Measurement.Title != "":
		return r.Measurement.Title
	case r.OriginalFilename != "":
		return r.OriginalFilename
	}
	return "report " + r.ID.String()[:8]
}

// Verdict is whether a judged report passed its standard: it passes when none of its
// required checks failed.
type Verdict struct {
	Passed                          bool
	RequiredFailures, RequiredTotal int
	// Standard is the name of the standard it was judged by.
	Standard string
}

// ReportVerdict is r's verdict; false for a report not judged (any status but COMPLETE).
func ReportVerdict(r Report) (Verdict, bool) {
	if r.Status != StatusComplete || r.Stats == nil {
		return Verdict{}, false
	}
	return Verdict{Passed: r.Stats.Passed, RequiredFailures: r.Stats.RequiredFailures, RequiredTotal: r.Stats.RequiredTotal, Standard: r.Standard.Name}, true
}
