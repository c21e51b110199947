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
