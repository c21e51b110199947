package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestManyClientsAtOnce runs 16 clients with a mixed workload (reports from a hosted feed and
// from uploads, listing, reading, credits) against one fake while the clock moves, under -race:
// no 5xx, and every report created reaches a final status.
func TestManyClientsAtOnce(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits(), WithAnalysisPace(time.Hour))
	// WAV: the test is about many clients at once, and an MP3 costs a calibration under -race.
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Busy", Episodes: []HostedEpisode{
		{Title: "a", Duration: 1 * time.Second, Format: "wav"}, {Title: "b", Duration: 2 * time.Second, Format: "wav"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var created []string
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	do := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, srv.URL()+path, nil)
		if body != "" {
			req, _ = http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil {
			errs <- err
			return 0, nil
		}
		defer resp.Body.Close()
		var raw json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&raw)
		if resp.StatusCode >= 500 {
			errs <- fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		return resp.StatusCode, raw
	}
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				var id struct{ ID string }
				switch (c + i) % 4 {
				case 0:
					if status, body := do("POST", "/api/rest/v1/reports", `{"feed_url":"`+feed.FeedURL+`","episode_index":`+fmt.Sprint(i%2)+`}`); status == 201 {
						_ = json.Unmarshal(body, &id)
					}
				case 1:
					status, body := do("POST", "/api/rest/v1/uploads", `{"file_name":"x.wav","file_type":"audio/wav","duration_ms":1000}`)
					var res reservation
					if status == 201 && json.Unmarshal(body, &res) == nil {
						if status, body := do("POST", "/api/rest/v1/reports", `{"report_id":"`+res.ReportID+`","original_filename":"x.wav","duration_ms":1000}`); status == 201 {
							_ = json.Unmarshal(body, &id)
						}
					}
				case 2:
					do("GET", "/api/rest/v1/reports?limit=20", "")
					do("GET", "/api/rest/v1/series", "")
				case 3:
					do("GET", "/api/rest/v1/credits", "")
					do("GET", "/api/rest/v1/me", "")
				}
				if id.ID != "" {
					mu.Lock()
					created = append(created, id.ID)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // the clock moves while the clients work
		defer wg.Done()
		for range 20 {
			if _, err := srv.Advance(500 * time.Millisecond); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if len(created) < 40 {
		t.Fatalf("only %d reports created", len(created))
	}
	for _, id := range created {
		r := getReport(t, srv, seed.APIKey, id)
		if r.Status != "COMPLETE" && r.Status != "FAILED" {
			t.Fatalf("report %s still %s", id, r.Status)
		}
	}
}
