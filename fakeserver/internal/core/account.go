package core

import "github.com/google/uuid"

// ParseReportID reads a report id argument where a malformed id is a 400, not a 404, since the
// caller named no report at all (Server.ReportAccount, GET /_fake/reports/{id}, the run report).
func ParseReportID(s string) (uuid.UUID, error) {
	id, ok := CanonicalID(s)
	if !ok {
		return NoID, ErrValidation("%q is not a report id (a UUID).", s)
	}
	return id, nil
}

// ReportAccount is one report of any workspace with the trail it left, for a test author who
// wants to know why it ended as it did: what Server.ReportAccount and GET /_fake/reports/{id}
// both show.
type ReportAccount struct {
	Report Report
	// Failure says why a FAILED report failed or why an OUT_OF_QUOTA one was not analysed; ""
	// for other statuses.
	Failure string
	// Deliveries and Emails are what ReportTrail holds of the report, oldest first.
	Deliveries []Delivery
	Emails     []Email
}

// AccountOf is the account of the report reportID names: a malformed id is a 400, an unknown
// one a 404.
func (c *Core) AccountOf(reportID string) (ReportAccount, error) {
	id, err := ParseReportID(reportID)
	if err != nil {
		return ReportAccount{}, err
	}
	r, ok := c.ReportByID(id)
	if !ok {
		return ReportAccount{}, ErrNotFound("Report")
	}
	acc := ReportAccount{Report: r}
	acc.Deliveries, acc.Emails = c.ReportTrail(id)
	if r.Status == StatusFailed || r.Status == StatusOutOfQuota {
		acc.Failure = r.FailureReason
	}
	return acc, nil
}
