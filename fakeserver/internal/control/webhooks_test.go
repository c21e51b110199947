package control

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
	"github.com/podqa/podqa-go/internal/apitime"
)

// TestDeliveryJSON: a delivery shows its receiver's answer only once an attempt got one, as
// valid UTF-8 even when the kept part ends inside a character, null for no report and no
// attempt times, and never null request headers.
func TestDeliveryJSON(t *testing.T) {
	t.Parallel()
	code, at := 500, time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	report := uuid.MustParse("9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4")
	tests := []struct {
		name string
		d    core.Delivery
		want map[string]any // the fields asked of the JSON
	}{
		{"queued", core.Delivery{Status: core.DeliveryPending, Body: []byte(`{}`)},
			map[string]any{"response_body": nil, "report_id": nil, "last_attempt_at": nil, "request_headers": []any{}, "failed_attempts": 0.0}},
		{"answered, cut inside a character", core.Delivery{Status: core.DeliveryRetrying, Attempts: 1, ResponseCode: &code, LastAttemptAt: &at,
			Answer: []byte("ok \xe2\x82"), AnswerCut: true, Report: report, Sent: []wire.Header{{Name: "webhook-id", Value: "msg_1"}}},
			map[string]any{"response_body": "ok \uFFFD", "response_body_truncated": true, "report_id": report.String(), "last_attempt_at": apitime.Format(at),
				"request_headers": []any{map[string]any{"name": "webhook-id", "value": "msg_1"}}, "failed_attempts": 1.0}},
		{"no answer to the attempt", core.Delivery{Status: core.DeliveryRetrying, Attempts: 1, Answer: []byte("x")},
			map[string]any{"response_body": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw, err := json.Marshal(deliveryJSONOf(tt.d))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				g, ok := got[k]
				if !ok {
					t.Errorf("%s missing from %s", k, raw)
					continue
				}
				gj, _ := json.Marshal(g)
				wj, _ := json.Marshal(v)
				if string(gj) != string(wj) {
					t.Errorf("%s = %s, want %s", k, gj, wj)
				}
			}
			if !strings.HasPrefix(string(raw), `{"id":`) {
				t.Errorf("the delivery's fields are out of their order: %s", raw)
			}
		})
	}
}
