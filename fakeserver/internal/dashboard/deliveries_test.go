package dashboard

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// The kinds of the events a delivery attempt raises (fakeserver.EventDeliveryFailed and
// EventDeliverySucceeded), as the facade gives them in Deps.
const (
	failedKind    = "webhook.attempt_failed"
	succeededKind = "webhook.delivered"
)

// testStart is the fake's test start (fakeserver.TestStart).
var testStart = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// uiOverCore is a front whose core holds nothing, for what the endpoint's page reads of it.
func uiOverCore() *UI {
	return NewUI(nil, Deps{Core: core.New(clock.NewManual(testStart), core.Deps{}), DeliveryFailedKind: failedKind, DeliverySucceededKind: succeededKind})
}

// TestEndpointPageBoundedWhateverTenantsSend: an endpoint's page stays under its documented
// size when its log of 20 deliveries each carries every text at its cap, made of characters
// TestDeliveryCountsAgree: a delivery's attempt count reads "1 attempt" and "2 attempts" on
// the endpoint's page.
func TestDeliveryCountsAgree(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		attempts int
		want     string
	}{{1, "· 1 attempt, 1 failed"}, {2, "· 2 attempts, 1 failed"}} {
		ep := endpointPage{Endpoint: Endpoint{ID: "e", URL: "http://127.0.0.1/hook", Enabled: true},
			Deliveries: []deliveryShown{{Delivery: Delivery{ID: "d", EventType: "report.completed", WebhookID: "msg_x", Attempts: tt.attempts, FailedAttempts: 1}}}}
		if page := renderPage(t, "endpoint", ep); !strings.Contains(page, tt.want) {
			t.Errorf("%d attempts: the page lacks %q", tt.attempts, tt.want)
		}
	}
}

// the page escapes to five bytes.
func TestEndpointPageBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	body, _ := json.Marshal(map[string]any{"type": "report.completed", "data": map[string]any{"report": map[string]any{
		"id": fiveByteText(1 << 10), "filename": fiveByteText(64 << 10),
		"series": map[string]any{"id": fiveByteText(100), "title": fiveByteText(64 << 10)}, "episode": map[string]any{"title": fiveByteText(64 << 10)},
		"issues": []string{fiveByteText(1 << 20)},
	}}})
	ui := uiOverCore()
	ep := endpointPage{Endpoint: Endpoint{ID: fiveByteText(36), URL: "http://" + fiveByteText(2<<10), Enabled: true}}
	code := 500
	lastErr := fiveByteText(1 << 10)
	for range 20 {
		d := Delivery{ID: fiveByteText(36), EndpointID: fiveByteText(36), EventType: "report.completed", WebhookID: fiveByteText(40), Attempts: 10,
			ResponseCode: &code, LastError: &lastErr, Body: body, ReportID: fiveByteText(36), LastAttemptAt: testStart,
			ResponseBody: fiveByteText(webhooks.MaxAnswerKept), ResponseBodyTruncated: true}
		for range 5 {
			d.RequestHeaders = append(d.RequestHeaders, Header{Name: fiveByteText(20), Value: fiveByteText(120)})
		}
		ud := deliveryShown{Delivery: d, Subject: ui.eventSubject(body)}
		ud.Pretty, ud.BodyCut = prettyBody(body)
		for n := range 11 {
			a := attempt{N: n, At: testStart, Status: "failed"}
			a.Code, a.Latency, a.Error = attemptLine("500", "1.234567ms", fiveByteText(1<<10))
			ud.Timeline = append(ud.Timeline, a)
		}
		ep.Deliveries = append(ep.Deliveries, ud)
	}
	got := renderSize(t, "endpoint", ep)
	t.Logf("endpoint page: %d bytes (bound %d)", got, maxEndpointPageBytes)
	if got > maxEndpointPageBytes {
		t.Errorf("endpoint page: %d bytes, over its bound of %d", got, maxEndpointPageBytes)
	}
}

// TestTimelineNextAttemptOnlyWhileRetrying: an attempt's line says when the next attempt is due
// only while that retry is still to come: on the last attempt of a delivery still retrying,
// never on an attempt a later one followed, nor once the delivery succeeded or was given up.
func TestTimelineNextAttemptOnlyWhileRetrying(t *testing.T) {
	t.Parallel()
	t0 := testStart
	failed := func(n int, next time.Time) Event {
		return Event{Seq: uint64(n), At: t0.Add(time.Duration(n) * time.Minute), Kind: failedKind, Attrs: []slog.Attr{
			slog.String("endpoint_id", "ep"), slog.String("delivery_id", "d"), slog.Int("attempt", n),
			slog.Int("response_status", 500), slog.String("next_attempt", next.Format(time.RFC3339Nano))}}
	}
	succeeded := Event{Seq: 3, At: t0.Add(3 * time.Minute), Kind: succeededKind, Attrs: []slog.Attr{
		slog.String("endpoint_id", "ep"), slog.String("delivery_id", "d"), slog.Int("attempt", 3), slog.Int("response_status", 200)}}
	retry2, retry3 := t0.Add(2*time.Minute), t0.Add(3*time.Minute)
	for _, tc := range []struct {
		name   string
		d      Delivery
		events []Event
		// want is each line's status and attempt, with "+next" where the line names a next attempt.
		want string
	}{
		{"retrying after one", Delivery{ID: "d", Attempts: 1, Status: "retrying", NextAttemptAt: retry2},
			[]Event{failed(1, retry2)}, "failed 1+next, queued 2"},
		{"retrying after two", Delivery{ID: "d", Attempts: 2, Status: "retrying", NextAttemptAt: retry3},
			[]Event{failed(1, retry2), failed(2, retry3)}, "failed 1, failed 2+next, queued 3"},
		{"delivered", Delivery{ID: "d", Attempts: 3, Status: "succeeded"},
			[]Event{failed(1, retry2), failed(2, retry3), succeeded}, "failed 1, failed 2, succeeded 3"},
		{"given up", Delivery{ID: "d", Attempts: 2, Status: "abandoned"},
			[]Event{failed(1, retry2), failed(2, retry3)}, "failed 1, failed 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, a := range attemptsOf(tc.d, attemptLog{"d": tc.events}, succeededKind) {
				line := a.Status + " " + strconv.Itoa(a.N)
				if !a.Next.IsZero() {
					line += "+next"
				}
				got = append(got, line)
			}
			if strings.Join(got, ", ") != tc.want {
				t.Errorf("timeline %q, want %q", strings.Join(got, ", "), tc.want)
			}
		})
	}
}

// FuzzDeliveryView fuzzes what the endpoint's page reads from a delivery's body (which holds
// tenants' file names and feed titles): never a panic, each name and the indented body within
// their cuts.
func FuzzDeliveryView(f *testing.F) {
	f.Add([]byte(`{"type":"report.completed","data":{"report":{"id":"5b0d3f40-6a4e-4b8e-9c1e-000000000001","filename":"a.wav","series":{"id":"x","title":"S"},"episode":{"title":"E"}}}}`))
	f.Add([]byte(`{"data":{"series":{"title":null},"episode":{"title":"` + fiveByteText(400) + `"}}}`))
	f.Add([]byte(`{"data":{"report":null}}`))
	f.Add([]byte(`not json`))
	f.Add([]byte{0xff, 0xfe, '{'})
	ui := uiOverCore()
	f.Fuzz(func(t *testing.T, body []byte) {
		s := ui.eventSubject(body)
		for _, name := range []string{s.ReportID, s.ReportName, s.SeriesID, s.SeriesTitle, s.EpisodeTitle} {
			if utf8.RuneCountInString(name) > maxSubject+1 {
				t.Fatalf("a name of %d characters", utf8.RuneCountInString(name))
			}
		}
		if s.ReportLink != "" && s.ReportID == "" {
			t.Fatal("a link without a report")
		}
		pretty, cut := prettyBody(body)
		if len(pretty) > maxDeliveryBody || cut < 0 {
			t.Fatalf("indented body of %d bytes, %d cut", len(pretty), cut)
		}
		if json.Valid(body) && cut == 0 && !json.Valid([]byte(pretty)) {
			t.Fatalf("an uncut valid body became invalid: %q", pretty)
		}
	})
}
