package fakeserver

import (
	"reflect"
	"testing"
)

// TestDeliveryTwinCopiesEveryField: the dashboard's endpoint page reads a delivery through
// deliveryTwin, which copies WebhookDelivery field by field (its headers are another type); a
// field added to one and not the other, or not copied, fails here.
func TestDeliveryTwinCopiesEveryField(t *testing.T) {
	t.Parallel()
	code, lastErr := 502, "HTTP 502"
	d := WebhookDelivery{ID: "d", EndpointID: "e", EventType: "report.completed", WebhookID: "msg", Attempts: 3, FailedAttempts: 2,
		Status: "retrying", ResponseCode: &code, LastError: &lastErr, Test: true, CreatedAt: TestStart(), LastAttemptAt: TestStart().Add(1),
		NextAttemptAt: TestStart().Add(2), Body: []byte(`{}`), ReportID: "r", Resends: 1,
		RequestHeaders: []WebhookHeader{{Name: "webhook-id", Value: "msg"}}, ResponseBody: "no", ResponseBodyTruncated: true}
	from, to := reflect.ValueOf(d), reflect.ValueOf(deliveryTwin(d))
	if from.NumField() != to.NumField() {
		t.Fatalf("WebhookDelivery has %d fields, dashboard.Delivery %d", from.NumField(), to.NumField())
	}
	for i := range from.NumField() {
		name := from.Type().Field(i).Name
		got := to.FieldByName(name)
		if !got.IsValid() {
			t.Errorf("dashboard.Delivery has no field %s", name)
			continue
		}
		if from.Field(i).IsZero() {
			t.Errorf("the test leaves %s zero", name)
		}
		if name == "RequestHeaders" {
			if got.Len() != 1 || got.Index(0).FieldByName("Name").String() != "webhook-id" || got.Index(0).FieldByName("Value").String() != "msg" {
				t.Errorf("headers: %v", got)
			}
			continue
		}
		if !reflect.DeepEqual(from.Field(i).Interface(), got.Interface()) {
			t.Errorf("%s: %v, want %v", name, got, from.Field(i))
		}
	}
}

// TestAccountTwinCopiesEveryField: the dashboard's report page reads an account through
// accountTwin; every field of ReportAccount but its checks (which the page reads from the core)
// reaches it, and every field of the report's summary.
func TestAccountTwinCopiesEveryField(t *testing.T) {
	t.Parallel()
	acc := ReportAccount{
		Report: ReportSummary{ID: "r", WorkspaceID: "w", SeriesID: "s", Source: "feed", Status: "COMPLETE", CreatedAt: TestStart(), UpdatedAt: TestStart().Add(1),
			Name: "n", Verdict: ReportVerdict{Judged: true, Passed: true, RequiredFailures: 1, RequiredTotal: 2, Standard: "std"}},
		Timeline:   []StatusChange{{Status: "FAILED", At: TestStart(), Reason: "why"}},
		Failure:    "f",
		Checks:     []CheckAccount{{ID: "c"}},
		Deliveries: []WebhookDelivery{{ID: "d", EndpointID: "e"}},
		Emails:     []Email{{ID: "m", Subject: "s"}},
		Loudness:   LoudnessSeries{Step: 1, Window: 3, LUFS: []float32{-23}},
		Measured:   &Measurement{Format: "wav", Channels: 2},
	}
	from, to := reflect.ValueOf(acc), reflect.ValueOf(accountTwin(acc))
	for i := range from.NumField() {
		name := from.Type().Field(i).Name
		if from.Field(i).IsZero() {
			t.Errorf("the test leaves %s zero", name)
		}
		got := to.FieldByName(name)
		if name == "Checks" {
			if got.IsValid() {
				t.Errorf("dashboard.Account has Checks, which the page reads from the core")
			}
			continue
		}
		if !got.IsValid() || got.IsZero() {
			t.Errorf("%s did not reach dashboard.Account", name)
		}
	}
	if to.NumField() != from.NumField()-1 {
		t.Errorf("dashboard.Account has %d fields, ReportAccount %d", to.NumField(), from.NumField())
	}
	sum, twin := reflect.ValueOf(acc.Report), reflect.ValueOf(accountTwin(acc).Report)
	if sum.NumField() != twin.NumField() {
		t.Fatalf("ReportSummary has %d fields, dashboard.Summary %d", sum.NumField(), twin.NumField())
	}
	for i := range sum.NumField() {
		name := sum.Type().Field(i).Name
		if got := twin.FieldByName(name); !got.IsValid() || got.IsZero() {
			t.Errorf("the summary's %s did not reach dashboard.Summary", name)
		}
	}
	if d := accountTwin(acc).Deliveries; len(d) != 1 || d[0].EndpointID != "e" {
		t.Errorf("deliveries: %+v", d)
	}
}
