package core

// Verdict is what a list shows of a report's judgement beside its status: whether it passed
// its standard, how many of the standard's required checks failed, and the standard's name.
// A report is judged when it completes; before that (and for a FAILED or OUT_OF_QUOTA one)
// Judged is false and only Standard is set.
type Verdict struct {
	Judged bool
	Passed bool
	// RequiredFailures of RequiredTotal required checks failed.
	RequiredFailures, RequiredTotal int
	// Standard is the name of the standard the report is (or will be) judged by.
	Standard string
}

// VerdictOf is r's verdict, from its stats.
func VerdictOf(r *Report) Verdict {
	v := Verdict{Standard: r.Standard.Name}
	if r.Status == StatusComplete && r.Stats != nil {
		v.Judged, v.Passed = true, r.Stats.Passed
		v.RequiredFailures, v.RequiredTotal = r.Stats.RequiredFailures, r.Stats.RequiredTotal
	}
	return v
}

// NameOf is the report's name as every list and page of the fake shows it: the name it was
// given or settled on at completion, else the name rule (the audio's title tag, else the
// episode's title, else the uploaded file's name). "" when none of them is known. It takes
// the core's lock for the episode's title; callers holding it use nameLocked.
func (c *Core) NameOf(r Report) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.nameLocked(&r)
}

func (c *Core) nameLocked(r *Report) string {
	if r.Name != nil && *r.Name != "" {
		return *r.Name
	}
	if n := c.reportNameLocked(r); n != nil {
		return *n
	}
	return ""
}

// ShownName is what a list without room for an empty cell calls r (the run report's rows, the
// control API's report listing): NameOf, else the report's id.
func (c *Core) ShownName(r Report) string {
	if n := c.NameOf(r); n != "" {
		return n
	}
	return r.ID.String()
}
