package fakeserver

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// flakyReceiver answers status (500 to begin with) and a body naming itself, longer than what
// a delivery keeps.
func flakyReceiver(t *testing.T) (*httptest.Server, *atomic.Int64, *atomic.Int64) {
	t.Helper()
	var status, hits atomic.Int64
	status.Store(http.StatusInternalServerError)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
		_, _ = w.Write([]byte(`{"receiver":"<b>says no</b>"}` + strings.Repeat(" ", MaxWebhookAnswer)))
	}))
	t.Cleanup(rc.Close)
	return rc, &status, &hits
}

// TestEndpointPageShowsWhatWasSentAndAnswered: a delivery of a report's event names and links
// its report, shows its body indented, the headers as sent (and no secret), the receiver's
// status and the first 2 KiB of its answer, and an attempt line that says each thing once.
func TestEndpointPageShowsWhatWasSentAndAnswered(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	rc, _, _ := flakyReceiver(t)
	ep := demoEndpoint(t, srv, seed, rc.URL+"/hook")
	ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{FileName: "episode-<1>.wav", CompleteAfter: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Advance(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	ds, err := srv.WebhookDeliveries(ep.ID)
	if err != nil || len(ds) != 1 || ds[0].ReportID != ids[0] || ds[0].Attempts != 1 {
		t.Fatalf("deliveries %+v, %v", ds, err)
	}
	d := ds[0]
	page := uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/endpoints/" + ep.ID, header: browser(bearer(srv.AdminToken()))}).Body.String()
	text := html.UnescapeString(page)
	for _, want := range []string{
		`<a href="/_fake/ui/reports/` + ids[0] + `" class="report-link">episode-&lt;1&gt;.wav</a>`,
		"<code>webhook-id</code></th><td><code>" + d.WebhookID + "</code>",
		"<code>webhook-signature</code></th><td><code>v1,",
		"<code>webhook-timestamp</code></th><td><code>",
		"Receiver's answer: HTTP 500, 2048 bytes shown (the first 2 KiB)",
		`{&#34;receiver&#34;:&#34;&lt;b&gt;says no&lt;/b&gt;&#34;}`,
		`action="/_fake/ui/deliveries/` + d.ID + `/resend"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(text, "\n  \"type\": \"report.completed\",\n") {
		t.Error("the body is not shown indented")
	}
	if strings.Contains(page, "whsec_") || strings.Contains(text, ep.Secret[len("whsec_"):]) {
		t.Error("the page shows the endpoint's secret")
	}
	line := regexp.MustCompile(`attempt 1: <b>failed</b>[^<]*`).FindString(page)
	if strings.Count(line, "HTTP 500") != 1 || !regexp.MustCompile(`· \d+(\.\d{1,2})?(µs|ms|s) · next attempt `).MatchString(line) {
		t.Errorf("attempt line %q: want HTTP 500 once, a rounded latency, the next attempt", line)
	}
}

// TestResendFromTheDashboard: the Resend button makes one attempt now and returns to the
// delivery; a cross-origin post is refused and makes none; an unknown delivery is 404, a
// disabled endpoint's 409, and neither makes an attempt.
func TestResendFromTheDashboard(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	rc, status, hits := flakyReceiver(t)
	ep := demoEndpoint(t, srv, seed, rc.URL+"/hook")
	d, err := srv.SendTestEvent(t.Context(), ep.ID)
	if err != nil || d.Status != "retrying" || hits.Load() != 1 {
		t.Fatalf("test event: %+v, %v, %d hits", d, err, hits.Load())
	}
	session := login(t, srv)
	resend := "/_fake/ui/deliveries/" + d.ID + "/resend"

	for _, foreign := range []http.Header{{"Origin": {"http://evil.test"}}, {"Sec-Fetch-Site": {"cross-site"}}} {
		h := browser(session)
		for k, v := range foreign {
			h[k] = v
		}
		if w := uiDo(t, srv, uiReq{method: "POST", target: resend, header: h, form: url.Values{}}); w.Code != http.StatusForbidden {
			t.Fatalf("cross-origin resend: %d %s", w.Code, w.Body)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("a refused resend reached the receiver (%d hits)", hits.Load())
	}

	status.Store(http.StatusOK)
	w := uiDo(t, srv, uiReq{method: "POST", target: resend, header: sameOrigin(session), form: url.Values{}})
	loc := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/_fake/ui/endpoints/"+ep.ID+"?resent="+d.ID+"#delivery-"+d.ID) || hits.Load() != 2 {
		t.Fatalf("resend: %d %q, %d hits", w.Code, loc, hits.Load())
	}
	page := uiDo(t, srv, uiReq{method: "GET", target: strings.Split(loc, "#")[0], header: sameOrigin(session)}).Body.String()
	for _, want := range []string{"Resent delivery " + d.ID + ": attempt 2, succeeded · HTTP 200.", "attempt 2 (resend): <b>succeeded</b> · HTTP 200", "1 of them resent"} {
		if !strings.Contains(page, want) {
			t.Errorf("after the resend the page lacks %q", want)
		}
	}
	if got, _ := srv.WebhookDeliveries(ep.ID); got[0].Status != "succeeded" || got[0].Attempts != 2 || !got[0].NextAttemptAt.IsZero() {
		t.Fatalf("after the resend: %s, %d attempts, next %v", got[0].Status, got[0].Attempts, got[0].NextAttemptAt)
	}

	for _, tc := range []struct {
		name, target string
		disable      bool
		status       int
	}{
		{"unknown delivery", "/_fake/ui/deliveries/00000000-0000-4000-8000-000000000000/resend", false, http.StatusNotFound},
		{"not an id", "/_fake/ui/deliveries/nope/resend", false, http.StatusNotFound},
		{"disabled endpoint", resend, true, http.StatusConflict},
	} {
		if tc.disable {
			if _, err := srv.SetWebhookEndpointEnabled(ep.ID, false); err != nil {
				t.Fatal(err)
			}
		}
		w := uiDo(t, srv, uiReq{method: "POST", target: tc.target, header: sameOrigin(session), form: url.Values{}})
		if w.Code != tc.status || hits.Load() != 2 {
			t.Errorf("%s: %d, %d hits", tc.name, w.Code, hits.Load())
		}
	}
	page = uiDo(t, srv, uiReq{method: "GET", target: "/_fake/ui/endpoints/" + ep.ID, header: sameOrigin(session)}).Body.String()
	if strings.Contains(page, "resend-button") || !strings.Contains(page, "Resend needs the endpoint enabled.") {
		t.Error("a disabled endpoint's page offers Resend")
	}
}

// TestResendInTheControlAPI: POST /_fake/webhook-deliveries/{id}/resend answers 201 with the
// delivery after its new attempt, in the contract's shape (checked by call); 404 and 409 in
// the control API's error shape.
func TestResendInTheControlAPI(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	rc, _, hits := flakyReceiver(t)
	ep := demoEndpoint(t, srv, seed, rc.URL+"/hook")
	d, err := srv.SendTestEvent(t.Context(), ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	status, _, raw := call(t, srv, "POST", "/_fake/webhook-deliveries/"+d.ID+"/resend", admin(srv), "")
	body := string(raw)
	if status != http.StatusCreated || !strings.Contains(body, `"attempts":2`) || !strings.Contains(body, `"resends":1`) ||
		!strings.Contains(body, `"name":"webhook-signature"`) || !strings.Contains(body, `"response_body_truncated":true`) || hits.Load() != 2 {
		t.Fatalf("resend: %d %s", status, body)
	}
	status, _, raw = call(t, srv, "POST", "/_fake/webhook-deliveries/00000000-0000-4000-8000-000000000000/resend", admin(srv), "")
	if status != http.StatusNotFound || errorCode(t, raw) != "not_found" {
		t.Fatalf("unknown: %d %s", status, raw)
	}
	if _, err := srv.SetWebhookEndpointEnabled(ep.ID, false); err != nil {
		t.Fatal(err)
	}
	status, _, raw = call(t, srv, "POST", "/_fake/webhook-deliveries/"+d.ID+"/resend", admin(srv), "")
	if status != http.StatusConflict || errorCode(t, raw) != "conflict" || hits.Load() != 2 {
		t.Fatalf("disabled: %d %s, %d hits", status, raw, hits.Load())
	}
}
