package fakeserver

import (
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// What the dashboard's pages show of what tenants send, so that every page stays under its
// documented size whatever they send (docs in BEHAVIOUR.md, "The dashboard"). A text past its
// cap is cut with "…" and a note of where it is whole; a list past its cap shows its first
// items with the count of the rest and the control call that lists them all.
// TestPagesBoundedWhateverTenantsSend renders each page with every text at its cap, made of
// characters escaped to five bytes.
const (
	// maxUIReportTrail bounds the deliveries and the emails a report's page lists.
	maxUIReportTrail = 20
	// maxUICheckText bounds each text of a check's row (its name, limit and why).
	maxUICheckText = 300
	// maxUIValueFields bounds the labelled values a check's value shows.
	maxUIValueFields = 12
)

// maxReportPageBytes is the size of a report's page, in bytes (the other pages' are
// internal/dashboard's).
const maxReportPageBytes = 3 << 20

// cutNote is s cut to n characters, with the note after the "…" when it was cut.
func cutNote(s string, n int, note string) string {
	if cut, ok := dashboard.CutRunes(s, n); ok {
		return cut + " " + note
	}
	return s
}

// shownAccount is a report's account as its page shows it: its texts cut, its deliveries and
// emails at most maxUIReportTrail each (the rest counted).
func shownAccount(acc ReportAccount) (ReportAccount, []dashboard.EmailShown, int, int) {
	acc.Failure = cutNote(acc.Failure, dashboard.MaxText, "(cut: GET /_fake/reports/{id} returns it whole)")
	acc.Report.Verdict.Standard, _ = dashboard.CutRunes(acc.Report.Verdict.Standard, dashboard.MaxName)
	acc.Timeline = append([]StatusChange(nil), acc.Timeline...)
	for i := range acc.Timeline {
		acc.Timeline[i].Reason, _ = dashboard.CutRunes(acc.Timeline[i].Reason, dashboard.MaxText)
	}
	moreDeliveries, moreEmails := 0, 0
	if n := len(acc.Deliveries); n > maxUIReportTrail {
		acc.Deliveries, moreDeliveries = acc.Deliveries[n-maxUIReportTrail:], n-maxUIReportTrail
	}
	acc.Deliveries = append([]WebhookDelivery(nil), acc.Deliveries...)
	for i, d := range acc.Deliveries {
		if d.LastError != nil {
			cut, _ := dashboard.CutRunes(*d.LastError, dashboard.MaxAttemptError)
			acc.Deliveries[i].LastError = &cut
		}
	}
	if n := len(acc.Emails); n > maxUIReportTrail {
		acc.Emails, moreEmails = acc.Emails[n-maxUIReportTrail:], n-maxUIReportTrail
	}
	emails := make([]dashboard.EmailShown, len(acc.Emails))
	for i, e := range acc.Emails {
		emails[i] = dashboard.EmailRow(dashboard.Email(e))
	}
	acc.Emails = nil // the page shows the cut ones
	return acc, emails, moreDeliveries, moreEmails
}
