package dashboard

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestReportPageBoundedWhateverTenantsSend: a report's page stays under its documented size
// with every text a tenant controls far past its cap, made of characters the page escapes to
// five bytes, and every list far past its count; it lists at most maxUIReportTrail deliveries
// and emails and counts the rest.
func TestReportPageBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	long := fiveByteText(100 << 10)
	id := "00000000-0000-4000-8000-000000000000"

	// An email with a long subject, many long addresses and a long text, for a report's page.
	var to []string
	for range 50 {
		to = append(to, long)
	}
	email := Email{ID: id, WorkspaceID: id, Kind: long, To: to, Subject: long, Text: long, SentAt: testStart}

	// A report with a long name and a long standard's name.
	summary := Summary{ID: id, WorkspaceID: id, SeriesID: id, Source: "feed", Status: "COMPLETE", CreatedAt: testStart, UpdatedAt: testStart,
		Name: long, Verdict: core.Verdict{Judged: true, RequiredFailures: 2, RequiredTotal: 8, Standard: long}}

	// A report's page: a long failure and reasons, checks with long texts and values, the
	// longest series analysis measures (12 hours), far more deliveries and emails than it lists.
	lastErr := long
	acc := Account{Report: summary, Failure: long, Loudness: LoudnessSeries{Step: time.Second, Window: 3 * time.Second}}
	for i := range 12 * 3600 {
		acc.Loudness.LUFS = append(acc.Loudness.LUFS, -23.456-float32(i%7))
	}
	for range 10 {
		acc.Timeline = append(acc.Timeline, StatusChange{Status: "FAILED", At: testStart, Reason: long})
	}
	for range 10 * maxUIReportTrail {
		acc.Deliveries = append(acc.Deliveries, Delivery{ID: id, EndpointID: id, EventType: "report.completed", Status: "retrying", Attempts: 10, LastError: &lastErr, NextAttemptAt: testStart})
		acc.Emails = append(acc.Emails, email)
	}
	// Each field's text is cut far below 4 KiB, so the quick subset's 4 KiB fields render the
	// same page as the full run's 100 KiB ones (decoding 20 checks' values of 100 KiB fields
	// is most of this test's time under -race).
	fieldText := long
	if testing.Short() {
		fieldText = fiveByteText(4 << 10)
	}
	fields := map[string]string{}
	for i := range 4 * maxUIValueFields {
		fields[fiveByteText(1<<10)+strconv.Itoa(i)] = fieldText
	}
	value, _ := json.Marshal(fields)
	unit, warning, limit := "LUFS", long, long
	var results []core.Result
	for range 20 { // above the 17 checks of CHECKS.md's catalogue, each at most once
		results = append(results, core.Result{Name: "metadata", VerboseName: long, Status: core.Fail, Value: value, MeasurementUnit: &unit,
			Description: long, WarningMessage: &warning, Severity: "required", Limit: &limit})
	}
	rv := uiReportPage{Row: RowOf(summary), Checks: uiChecks(results)}
	rv.Account, rv.Emails, rv.MoreDeliveries, rv.MoreEmails = shownAccount(acc)
	peak := 3.0
	rv.Plot = PlotLoudness(acc.Loudness, core.Limits{MaxTruePeak: -1}, &Measurement{Channels: 2, IntegratedLUFS: -20, TruePeakDB: peak})
	if len(rv.Account.Deliveries) != maxUIReportTrail || len(rv.Emails) != maxUIReportTrail || rv.MoreDeliveries != 9*maxUIReportTrail || rv.MoreEmails != 9*maxUIReportTrail {
		t.Errorf("the report page lists %d deliveries (%d more) and %d emails (%d more)", len(rv.Account.Deliveries), rv.MoreDeliveries, len(rv.Emails), rv.MoreEmails)
	}

	got := renderSize(t, "report", rv)
	t.Logf("report page: %d bytes (bound %d)", got, maxReportPageBytes)
	if got > maxReportPageBytes {
		t.Errorf("report page: %d bytes, over its bound of %d", got, maxReportPageBytes)
	}
}
