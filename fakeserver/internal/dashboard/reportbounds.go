package dashboard

// What a report's page shows of what tenants send, so that it stays under its documented size
// whatever they send (docs in BEHAVIOUR.md, "The dashboard"). A text past its cap is cut with
// "…" and a note of where it is whole; a list past its cap shows its last items with the count
// of the rest and the control call that lists them all. TestReportPageBoundedWhateverTenantsSend
// renders the page with every text past its cap, made of characters escaped to five bytes.
const (
	// maxUIReportTrail bounds the deliveries and the emails a report's page lists.
	maxUIReportTrail = 20
	// maxUICheckText bounds each text of a check's row (its name, limit and value).
	maxUICheckText = 300
	// maxUICheckWhy bounds a check's why: the built-in checks' explanations (at most 355
	// characters) show whole, a seeded or imported report's longer text is cut.
	maxUICheckWhy = 1200
	// maxUIValueFields bounds the labelled values a check's value shows.
	maxUIValueFields = 12
)

// maxReportPageBytes is the size of a report's page, in bytes.
const maxReportPageBytes = 3 << 20

// cutNote is s cut to n characters, with the note after the "…" when it was cut.
func cutNote(s string, n int, note string) string {
	if cut, ok := CutRunes(s, n); ok {
		return cut + " " + note
	}
	return s
}

// shownAccount is a report's account as its page shows it: its texts cut, its deliveries and
// emails at most maxUIReportTrail each (the rest counted).
func shownAccount(acc Account) (Account, []EmailShown, int, int) {
	acc.Failure = cutNote(acc.Failure, MaxText, "(cut: GET /_fake/reports/{id} returns it whole)")
	acc.Report.Verdict.Standard, _ = CutRunes(acc.Report.Verdict.Standard, MaxName)
	acc.Timeline = append([]StatusChange(nil), acc.Timeline...)
	for i := range acc.Timeline {
		acc.Timeline[i].Reason, _ = CutRunes(acc.Timeline[i].Reason, MaxText)
	}
	moreDeliveries, moreEmails := 0, 0
	if n := len(acc.Deliveries); n > maxUIReportTrail {
		acc.Deliveries, moreDeliveries = acc.Deliveries[n-maxUIReportTrail:], n-maxUIReportTrail
	}
	acc.Deliveries = append([]Delivery(nil), acc.Deliveries...)
	for i, d := range acc.Deliveries {
		if d.LastError != nil {
			cut, _ := CutRunes(*d.LastError, MaxAttemptError)
			acc.Deliveries[i].LastError = &cut
		}
	}
	if n := len(acc.Emails); n > maxUIReportTrail {
		acc.Emails, moreEmails = acc.Emails[n-maxUIReportTrail:], n-maxUIReportTrail
	}
	emails := make([]EmailShown, len(acc.Emails))
	for i, e := range acc.Emails {
		emails[i] = EmailRow(e)
	}
	acc.Emails = nil // the page shows the cut ones
	return acc, emails, moreDeliveries, moreEmails
}
