package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/webhook"
)

// The endpoint's signing secret, as POST /webhook/subscribe returned it.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// sign plays the service: it signs body with the standard-webhooks library and returns the
// headers of the delivery.
func sign(id string, at time.Time, body string) http.Header {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		log.Fatal(err)
	}
	sig, err := wh.Sign(id, at, []byte(body))
	if err != nil {
		log.Fatal(err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(webhook.HeaderID, id)
	h.Set(webhook.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	h.Set(webhook.HeaderSignature, sig)
	return h
}

func ExampleVerifier_Verify() {
	sent := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	body := `{"type":"report.failed","timestamp":"2026-01-05T09:00:00.000000+00:00","data":{"report":{"id":"r1","status":"failed"}}}`
	header := sign("msg_2bqKyYJq0WFB", sent, body)

	// The clock is fixed here so the output does not depend on today's date; in production
	// leave the default, time.Now.
	v, err := webhook.NewVerifier(secret, webhook.WithClock(client.NewManualClock(sent.Add(90*time.Second))))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("authentic:", v.Verify(header, []byte(body)))

	tampered := strings.Replace(body, "failed", "complete", 1)
	fmt.Println("tampered:", errors.Is(v.Verify(header, []byte(tampered)), webhook.ErrInvalidSignature))

	late, _ := webhook.NewVerifier(secret, webhook.WithClock(client.NewManualClock(sent.Add(time.Hour))))
	fmt.Println("replayed an hour later:", errors.Is(late.Verify(header, []byte(body)), webhook.ErrTimestampTooOld))
	// Output:
	// authentic: <nil>
	// tampered: true
	// replayed an hour later: true
}

func ExampleParse() {
	body := []byte(`{
	  "type": "report.completed",
	  "timestamp": "2026-01-05T09:07:30.000000+00:00",
	  "data": {"report": {
	    "id": "7d0c6f1e", "url": "https://app.example.com/reports/7d0c6f1e", "status": "complete",
	    "passed": true, "score": 83, "passes": 5, "failures": 1, "total": 6,
	    "filename": "episode-42.mp3", "client_reference": "", "created_at": "2026-01-05T09:00:00.000000+00:00",
	    "series": {"id": "s1", "title": "Morning Show", "feed_url": "https://feeds.example.com/morning.xml"},
	    "episode": {"id": "e1", "title": "Episode 42", "guid": "ep-42", "pub_date": "2026-01-04"},
	    "issues": [
	      {"name": "loudness_lufs", "verbose_name": "Loudness", "status": "PASS", "value": -16.0,
	       "measurement_unit": "LUFS", "description": "", "warning_message": null, "link": "",
	       "severity": "required", "limit": "between -17 and -15 LUFS"},
	      {"name": "intro_music", "verbose_name": "Intro music", "status": "FAIL", "value": 31.5,
	       "measurement_unit": "s", "description": "", "warning_message": "Intro longer than 30 s", "link": "",
	       "severity": "info", "limit": "at most 30 s"}
	    ]}}}`)
	e, err := webhook.Parse(body) // after Verify
	if err != nil {
		log.Fatal(err)
	}
	switch e.Type {
	case client.EventReportCompleted, client.EventReportFailed, client.EventReportOutOfQuota:
		r := e.Report
		fmt.Printf("%s %s: status %s (REST %s)\n", e.Type, r.ID, r.Status, r.Status.ClientStatus())
		if r.Passed != nil {
			fmt.Printf("passed %v, score %d, %d of %d checks failed\n", *r.Passed, *r.Score, *r.Failures, *r.Total)
		}
		for _, issue := range r.Issues {
			if issue.Failed() {
				fmt.Printf("  %s (%s): %s\n", issue.Name, issue.Severity, issue.WarningMessage)
			}
		}
	case client.EventEpisodeCreated:
		fmt.Println("new episode:", e.EpisodeCreated.Episode.Title)
	case client.EventSeriesFeedBroken:
		fmt.Println("feed broken:", e.FeedBroken.Series.FeedURL)
	default:
		fmt.Println("not handled:", e.Type) // a type added after this code was written
	}
	// Output:
	// report.completed 7d0c6f1e: status complete (REST COMPLETE)
	// passed true, score 83, 1 of 6 checks failed
	//   intro_music (info): Intro longer than 30 s
}

func ExampleNewHandler() {
	sent := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	now := client.NewManualClock(sent.Add(2 * time.Second)) // fixed for the example

	h, err := webhook.NewHandler(secret,
		func(ctx context.Context, e webhook.Event) error {
			d, _ := webhook.DeliveryFromContext(ctx)
			// Keep this short: the sender waits 10 seconds. Enqueue, then return.
			fmt.Printf("handling %s (%s): %s\n", e.Type, d.ID, e.EpisodeCreated.Episode.Title)
			return nil
		},
		webhook.WithIgnoreTestEvents(),
		webhook.WithTimeout(8*time.Second),
		webhook.WithVerifierOptions(webhook.WithClock(now)),
	)
	if err != nil {
		log.Fatal(err)
	}
	// In production: http.Handle("POST /hooks/podqa", h)

	body := `{"type":"episode.created","timestamp":"2026-01-05T12:00:00.000000+00:00","data":{
	  "series":{"id":"s1","title":"Morning Show","feed_url":"https://feeds.example.com/morning.xml"},
	  "episode":{"id":"e2","title":"Episode 44","guid":"ep-44","pub_date":"2026-01-05","audio_url":"https://cdn.example.com/ep44.mp3"}}}`
	send := func(id, body string) {
		req := httptest.NewRequest(http.MethodPost, "/hooks/podqa", strings.NewReader(body))
		req.Header = sign(id, sent, body)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	send("msg_1", body)
	send("msg_1", body) // the same delivery again: acknowledged, not handled twice
	send("msg_2", strings.Replace(body, `"data"`, `"test":true,"data"`, 1))
	// Output:
	// handling episode.created (msg_1): Episode 44
	// 200 ok
	// 200 duplicate delivery
	// 200 ignored test event
}

func ExampleNewMemoryStore() {
	// A smaller, shorter-lived store than the default, on a clock the example controls.
	clk := client.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	store, err := webhook.NewMemoryStore(
		webhook.WithDedupTTL(time.Hour),
		webhook.WithDedupMaxEntries(10_000),
		webhook.WithDedupClock(clk),
	)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	status, _, _ := store.Claim(ctx, "msg_1", time.Minute)
	fmt.Println("first delivery:", status)
	status, _, _ = store.Claim(ctx, "msg_1", time.Minute)
	fmt.Println("a copy meanwhile:", status)
	_ = store.Complete(ctx, "msg_1") // the callback succeeded
	status, _, _ = store.Claim(ctx, "msg_1", time.Minute)
	fmt.Println("a redelivery:", status)
	clk.Advance(time.Hour)
	status, _, _ = store.Claim(ctx, "msg_1", time.Minute)
	fmt.Println("an hour later:", status)

	// Hand it to a Handler with WithDedupStore(store).
	_, err = webhook.NewHandler(secret, func(context.Context, webhook.Event) error { return nil }, webhook.WithDedupStore(store))
	fmt.Println(err)
	// Output:
	// first delivery: claimed
	// a copy meanwhile: in progress elsewhere
	// a redelivery: already done
	// an hour later: claimed
	// <nil>
}
