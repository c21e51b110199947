package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     string
		opts    []Option
		wantErr bool
	}{
		{"defaults", testKey, nil, false},
		{"empty key", "", nil, true},
		{"blank key", "  \t", nil, true},
		{"key with a line break", "abc\r\nX-Evil: 1", nil, true},
		{"base URL", testKey, []Option{WithBaseURL("http://127.0.0.1:8080/")}, false},
		{"base URL with a path prefix", testKey, []Option{WithBaseURL("https://example.org/podqa")}, false},
		{"base URL without a scheme", testKey, []Option{WithBaseURL("podqa.io")}, true},
		{"base URL ftp", testKey, []Option{WithBaseURL("ftp://podqa.io")}, true},
		{"base URL with a query", testKey, []Option{WithBaseURL("https://podqa.io?x=1")}, true},
		{"base URL with credentials", testKey, []Option{WithBaseURL("https://u:p@podqa.io")}, true},
		{"nil HTTP client", testKey, []Option{WithHTTPClient(nil)}, true},
		{"user agent with a line break", testKey, []Option{WithUserAgent("x\ny")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(tt.key, tt.opts...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalidArgument) {
					t.Errorf("err %v does not wrap ErrInvalidArgument", err)
				}
				if k := strings.TrimSpace(tt.key); k != "" && strings.Contains(err.Error(), k) {
					t.Errorf("err %q shows the key", err)
				}
				return
			}
			if c == nil {
				t.Fatal("nil client")
			}
		})
	}
	c, _ := New(testKey)
	if c.BaseURL() != DefaultBaseURL || c.restServer != DefaultBaseURL+"/api/rest/v1/" || c.rootServer != DefaultBaseURL+"/" {
		t.Fatalf("default URLs %q %q %q", c.BaseURL(), c.restServer, c.rootServer)
	}
	if c.policy != DefaultRetryPolicy() {
		t.Fatalf("policy %+v", c.policy)
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	t.Parallel()
	d := DefaultRetryPolicy()
	tests := []struct {
		in, want RetryPolicy
	}{
		{RetryPolicy{}, d},
		{RetryPolicy{MaxAttempts: 1}, RetryPolicy{1, d.MinBackoff, d.MaxBackoff, d.MaxRetryAfter}},
		{RetryPolicy{MinBackoff: time.Minute}, RetryPolicy{d.MaxAttempts, time.Minute, time.Minute, d.MaxRetryAfter}},
		{RetryPolicy{MinBackoff: time.Second, MaxBackoff: time.Millisecond}, RetryPolicy{d.MaxAttempts, time.Second, time.Second, d.MaxRetryAfter}},
		{RetryPolicy{MaxRetryAfter: -1}, RetryPolicy{d.MaxAttempts, d.MinBackoff, d.MaxBackoff, -1}},
	}
	for _, tt := range tests {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, jsonReply(200, meJSON))
	c, _ := newTestClient(t, srv.URL, WithUserAgent("my-integration/1.2"))
	if _, err := c.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.auth != "Bearer "+testKey || r.userAgent != "podqa-go/"+Version+" my-integration/1.2" || r.path != "/api/rest/v1/me" {
		t.Fatalf("request %+v", r)
	}
}

// TestKeyNeverShown makes the client log at Debug through every path (success, retries, API
// errors, a non-JSON body, transport errors) and checks that the key appears in no log line,
// no error, and no printed form of the client.
func TestKeyNeverShown(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, _ := serve(t, plain503(), rateLimited("1"), jsonReply(200, meJSON), apiErr(401, CodeInvalidAPIKey),
		reply{status: 200, ct: "text/html", body: "<html>login</html>"}, reply{hangUp: true})
	c, _ := newTestClient(t, srv.URL, WithLogger(logger))
	var errs []error
	for range 5 {
		if _, err := c.Me(context.Background()); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := c.CreateReportFromFeed(context.Background(), "https://feeds.example.org/x.rss", CreateReportParams{}); err != nil {
		errs = append(errs, err)
	}
	tr, _ := dialFailures(100)
	c2, _ := newTestClient(t, srv.URL, WithLogger(logger), WithHTTPClient(&http.Client{Transport: tr}))
	if _, err := c2.Me(context.Background()); err != nil {
		errs = append(errs, err)
	}
	if len(errs) < 4 {
		t.Fatalf("only %d errors: %v", len(errs), errs)
	}
	var all strings.Builder
	all.WriteString(logs.String())
	for _, err := range errs {
		fmt.Fprintf(&all, "%v\n%+v\n%#v\n", err, err, err)
	}
	fmt.Fprintf(&all, "%v %+v %#v %v %s", c, c, c, *c, c.cred)
	secret := strings.TrimPrefix(testKey, "podqa_api_")
	if strings.Contains(all.String(), secret) {
		t.Fatalf("the key leaked:\n%s", all.String())
	}
	if !strings.Contains(logs.String(), "podqa: retrying") || !strings.Contains(logs.String(), "status=503") {
		t.Fatalf("logs lack the retry lines:\n%s", logs.String())
	}
}

// TestContentTypeChecked: a success that is not JSON (a login page, a captive portal) is an
// error, never parsed.
func TestContentTypeChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rep  reply
		ok   bool
	}{
		{"HTML 200", reply{status: 200, ct: "text/html; charset=utf-8", body: "<html><body>Sign in</body></html>"}, false},
		{"no content type", reply{status: 200, body: meJSON}, false},
		{"text/plain JSON-looking", reply{status: 200, ct: "text/plain", body: meJSON}, false},
		{"JSON with charset", reply{status: 200, ct: "application/json; charset=utf-8", body: meJSON}, true},
		{"vendor +json", reply{status: 200, ct: "application/vnd.podqa+json", body: meJSON}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, tt.rep)
			c, _ := newTestClient(t, srv.URL)
			me, err := c.Me(context.Background())
			if tt.ok {
				if err != nil || me.Workspace.Name != "Acme Audio" {
					t.Fatalf("Me = %+v, %v", me, err)
				}
				return
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != 200 || ae.Code != "" || string(ae.Body) != tt.rep.body || !errors.Is(err, ErrUnexpectedResponse) {
				t.Fatalf("err = %#v", err)
			}
			if n := len(s.Requests()); n != 1 {
				t.Fatalf("attempts = %d", n)
			}
		})
	}
}

func TestMalformedJSONSuccess(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonReply(200, `{"workspace":`))
	c, _ := newTestClient(t, srv.URL)
	_, err := c.Me(context.Background())
	if err == nil || !strings.Contains(err.Error(), "decoding the response") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnknownFieldsAndValues: fields the package does not know are ignored, enum values it does
// not know are kept.
func TestUnknownFieldsAndValues(t *testing.T) {
	t.Parallel()
	body := `{"id":"` + reportID1 + `","status":"REVIEWING","brand_new":{"nested":[1,2,3]},"original_filename":"x.mp3",
		"stats":{"passed":false,"time_remaining":-1500,"future_metric":7},
		"results":[{"name":"future_check","verbose_name":"Future","status":"WARN","severity":"blocking","value":{"k":"v"},"limit":null,"extra":true}],
		"series":{"id":"` + seriesID1 + `","title":null,"feed_url":null,"kind":"RADIO"},
		"standard":{"id":"b6d8a0f2-3c4e-5a6b-8c7d-9e0f1a2b3c4d","name":"Custom","builtin":false,"version":3}}`
	srv, _ := serve(t, jsonReply(200, body))
	c, _ := newTestClient(t, srv.URL)
	r, err := c.GetReport(context.Background(), reportID1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "REVIEWING" || r.Status.IsKnown() || r.Status.IsFinal() {
		t.Errorf("status %q", r.Status)
	}
	if len(r.Results) != 1 || r.Results[0].Status != "WARN" || r.Results[0].Severity != "blocking" || string(r.Results[0].Value) != `{"k":"v"}` {
		t.Errorf("results %+v", r.Results)
	}
	if r.Stats.Remaining() != -1500*time.Millisecond || r.Passed() {
		t.Errorf("stats %+v", r.Stats)
	}
	if r.Series.Title != "" || r.Series.FeedURL != "" || r.Standard.Name != "Custom" {
		t.Errorf("series %+v standard %+v", r.Series, r.Standard)
	}
}

func TestDecodeCompletedReport(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonReply(200, completedReportJSON))
	c, _ := newTestClient(t, srv.URL)
	r, err := c.GetReport(context.Background(), reportID1)
	if err != nil {
		t.Fatal(err)
	}
	want := struct {
		ID, Name, Standard, Series, Episode, PublishedOn string
		Status                                           Status
		Results, Chapters                                int
		Charged                                          int64
		Updated                                          string
	}{reportID1, "Episode 42: The one about loudness", "Podcast", "The Show", "the-show-42", "2025-03-01", StatusComplete, 14, 3, 370, "2025-03-01T06:18:40.771003+00:00"}
	charged, _ := r.CreditsCharged.Int64()
	got := want
	got.ID, got.Name, got.Standard, got.Series, got.Episode, got.PublishedOn = r.ID, r.Name, r.Standard.Name, r.Series.Title, r.Episode.GUID, r.Episode.PublishedOn.String()
	got.Status, got.Results, got.Chapters, got.Charged, got.Updated = r.Status, len(r.Results), len(r.Metadata.Chapters), charged, FormatTime(r.UpdatedAt)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("report (-want +got):\n%s", diff)
	}
	if w, ok := r.CoverImage.Width.Int(); !ok || w != 3000 {
		t.Errorf("cover width %v %v", w, ok)
	}
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, jsonReply(200, meJSON))
	c, _ := newTestClient(t, srv.URL)
	ctx := context.Background()
	calls := map[string]func() error{
		"GetReport":          func() error { _, err := c.GetReport(ctx, "42"); return err },
		"GetTranscript":      func() error { _, err := c.GetTranscript(ctx, "../me"); return err },
		"GetSeries":          func() error { _, err := c.GetSeries(ctx, ""); return err },
		"ListEpisodes":       func() error { _, err := c.ListEpisodes(ctx, "x", ListParams{}); return err },
		"ListReports limit":  func() error { _, err := c.ListReports(ctx, ListReportsParams{Limit: -1}); return err },
		"ListReports series": func() error { _, err := c.ListReports(ctx, ListReportsParams{SeriesID: "nope"}); return err },
		"ListSeries offset":  func() error { _, err := c.ListSeries(ctx, ListParams{Offset: 1 << 40}); return err },
		"feed URL":           func() error { _, err := c.CreateReportFromFeed(ctx, "", CreateReportParams{}); return err },
		"episode index": func() error {
			_, err := c.CreateReportFromFeed(ctx, "https://x/y", CreateReportParams{EpisodeIndex: -1})
			return err
		},
		"series report": func() error { _, err := c.CreateReportFromSeries(ctx, "x", CreateReportParams{}); return err },
		"upload duration": func() error {
			_, err := c.CreateReportFromUpload(ctx, reportID1, "a.mp3", -5*time.Millisecond)
			return err
		},
		"upload filename": func() error { _, err := c.CreateReportFromUpload(ctx, reportID1, "", 5*time.Millisecond); return err },
		"reserve":         func() error { _, err := c.ReserveUpload(ctx, "a.mp3", "", 5*time.Millisecond); return err },
		"reserve too long": func() error {
			_, err := c.ReserveUpload(ctx, "a.mp3", "audio/mpeg", 25*24*time.Hour)
			return err
		},
		"webhook series":        func() error { _, err := c.SubscribeWebhook(ctx, WebhookSubscribeParams{SeriesID: "x"}); return err },
		"unsubscribe":           func() error { return c.UnsubscribeWebhook(ctx, "x") },
		"WaitForReport":         func() error { _, err := c.WaitForReport(ctx, "x"); return err },
		"GetReport braces UUID": func() error { _, err := c.GetReport(ctx, "{"+reportID1+"}"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", name, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests sent for invalid arguments", n)
	}
}

// TestRequestsOnTheWire checks method, path, query and body of every operation.
func TestRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 1, 5, 10, 0, 0, 123456000, time.FixedZone("CET", 3600))
	tests := []struct {
		name                      string
		rep                       reply
		call                      func(c *Client) error
		method, path, query, body string
	}{
		{"Me", jsonReply(200, meJSON), func(c *Client) error { _, err := c.Me(context.Background()); return err },
			"GET", "/api/rest/v1/me", "", ""},
		{"GetCredits", jsonReply(200, `{"balance":1}`), func(c *Client) error { _, err := c.GetCredits(context.Background()); return err },
			"GET", "/api/rest/v1/credits", "", ""},
		{"ListSeries", jsonReply(200, `{"items":[],"limit":10,"offset":20,"has_more":false}`),
			func(c *Client) error {
				_, err := c.ListSeries(context.Background(), ListParams{Limit: 10, Offset: 20})
				return err
			},
			"GET", "/api/rest/v1/series", "limit=10&offset=20", ""},
		{"GetSeries", jsonReply(200, `{"id":"`+seriesID1+`"}`), func(c *Client) error { _, err := c.GetSeries(context.Background(), seriesID1); return err },
			"GET", "/api/rest/v1/series/" + seriesID1, "", ""},
		{"ListEpisodes", jsonReply(200, `{"items":[],"limit":50,"offset":0,"has_more":false}`),
			func(c *Client) error {
				_, err := c.ListEpisodes(context.Background(), seriesID1, ListParams{})
				return err
			},
			"GET", "/api/rest/v1/series/" + seriesID1 + "/episodes", "", ""},
		{"ListReports", jsonReply(200, `{"items":[],"limit":100,"offset":0,"has_more":false}`),
			func(c *Client) error {
				_, err := c.ListReports(context.Background(), ListReportsParams{SeriesID: seriesID1, Status: StatusComplete, UpdatedSince: since, CreatedSince: since, Limit: 100})
				return err
			},
			"GET", "/api/rest/v1/reports", "series_id=" + seriesID1 + "&status=COMPLETE&created_since=2026-01-05T09%3A00%3A00.123456Z&updated_since=2026-01-05T09%3A00%3A00.123456Z&limit=100", ""},
		{"GetTranscript", jsonReply(200, `{"report_id":"`+reportID1+`","transcript":null}`),
			func(c *Client) error { _, err := c.GetTranscript(context.Background(), reportID1); return err },
			"GET", "/api/rest/v1/reports/" + reportID1 + "/transcript", "", ""},
		{"CreateReportFromSeries", jsonReply(201, createdJSON),
			func(c *Client) error {
				_, err := c.CreateReportFromSeries(context.Background(), seriesID1, CreateReportParams{EpisodeIndex: 2})
				return err
			},
			"POST", "/api/rest/v1/reports", "", `{"episode_index":2,"series_id":"` + seriesID1 + `"}`},
		{"CreateReportFromUpload", jsonReply(201, createdJSON),
			func(c *Client) error {
				_, err := c.CreateReportFromUpload(context.Background(), reportID1, "42.mp3", 37*time.Minute)
				return err
			},
			"POST", "/api/rest/v1/reports", "", `{"duration_ms":2220000,"original_filename":"42.mp3","report_id":"` + reportID1 + `"}`},
		{"ReserveUpload", jsonReply(201, `{"report_id":"`+reportID1+`","upload_url":"https://uploads.example.org/x"}`),
			func(c *Client) error {
				_, err := c.ReserveUpload(context.Background(), "42.mp3", "audio/mpeg", 37*time.Minute)
				return err
			},
			"POST", "/api/rest/v1/uploads", "", `{"duration_ms":2220000,"file_name":"42.mp3","file_type":"audio/mpeg"}`},
		{"ReserveUpload rounds up to whole milliseconds", jsonReply(201, `{"report_id":"`+reportID1+`","upload_url":"https://uploads.example.org/x"}`),
			func(c *Client) error {
				_, err := c.ReserveUpload(context.Background(), "42.mp3", "audio/mpeg", 1500*time.Microsecond)
				return err
			},
			"POST", "/api/rest/v1/uploads", "", `{"duration_ms":2,"file_name":"42.mp3","file_type":"audio/mpeg"}`},
		{"SubscribeWebhook", jsonReply(201, `{"id":"c4b3a291-8f7e-4d6c-9b5a-493827160f5e","secret":"whsec_x"}`),
			func(c *Client) error {
				_, err := c.SubscribeWebhook(context.Background(), WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: []WebhookEvent{EventReportCompleted, EventReportFailed}, SeriesID: seriesID1})
				return err
			},
			"POST", "/webhook/subscribe", "", `{"events":["report.completed","report.failed"],"series_id":"` + seriesID1 + `","url":"https://hooks.example.com/p"}`},
		{"UnsubscribeWebhook", reply{status: 204},
			func(c *Client) error {
				return c.UnsubscribeWebhook(context.Background(), "c4b3a291-8f7e-4d6c-9b5a-493827160f5e")
			},
			"DELETE", "/webhook/subscribe/c4b3a291-8f7e-4d6c-9b5a-493827160f5e", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := serve(t, tt.rep)
			c, _ := newTestClient(t, srv.URL)
			if err := tt.call(c); err != nil {
				t.Fatal(err)
			}
			r := s.Requests()[0]
			got := []string{r.method, r.path, r.query, r.body}
			want := []string{tt.method, tt.path, tt.query, tt.body}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWebhookFlatErrors: the subscription calls' {error: string} bodies map into APIError.
func TestWebhookFlatErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rep      reply
		sentinel error
		code     ErrorCode
		msg      string
		retry    time.Duration
	}{
		{jsonReply(400, `{"error":"Unknown webhook event: report.exploded"}`), ErrValidation, CodeValidationError, "Unknown webhook event: report.exploded", 0},
		{jsonReply(401, `{"error":"Invalid or missing API key."}`), ErrInvalidAPIKey, CodeInvalidAPIKey, "Invalid or missing API key.", 0},
		{jsonReply(409, `{"error":"Webhook limit reached (5 per workspace)"}`), ErrConflict, CodeConflict, "Webhook limit reached (5 per workspace)", 0},
		{reply{status: 429, ct: "application/json", body: `{"error":"Rate limit exceeded: 30 per hour"}`, header: map[string]string{"Retry-After": "1800"}}, ErrRateLimited, CodeRateLimited, "Rate limit exceeded: 30 per hour", 30 * time.Minute},
	}
	for _, tt := range tests {
		srv, s := serve(t, tt.rep)
		c, _ := newTestClient(t, srv.URL)
		_, err := c.SubscribeWebhook(context.Background(), WebhookSubscribeParams{URL: "https://hooks.example.com/p", Events: []WebhookEvent{"report.exploded"}})
		var ae *APIError
		if !errors.As(err, &ae) || !errors.Is(err, tt.sentinel) || ae.Code != tt.code || ae.Message != tt.msg || ae.RetryAfter != tt.retry || ae.Body != nil {
			t.Errorf("%d: err = %#v", tt.rep.status, err)
		}
		if len(s.Requests()) != 1 {
			t.Errorf("%d: %d attempts", tt.rep.status, len(s.Requests()))
		}
	}
	srv, _ := serve(t, jsonReply(404, `{"error":"Not found"}`))
	c, _ := newTestClient(t, srv.URL)
	if err := c.UnsubscribeWebhook(context.Background(), "c4b3a291-8f7e-4d6c-9b5a-493827160f5e"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unsubscribe err = %v", err)
	}
}
