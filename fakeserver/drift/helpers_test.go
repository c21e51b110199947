package drift_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// liveFake plays the live service: a fake on a manual clock whose Demo workspace holds a
// hosted show of three episodes (one with a transcript, one whose audio fails) and a report of
// each, all finished, plus one seeded upload report.
func liveFake(t testing.TB, opts ...fakeserver.Option) (*fakeserver.Server, fakeserver.DemoWorkspace) {
	t.Helper()
	srv, seed := fakeserver.NewTest(t, opts...)
	speaker := "host"
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Live Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Newest", Duration: 3 * time.Second, Transcript: []fakeserver.TranscriptLine{
			{Start: 0, End: time.Second, Text: "hello and welcome", Speaker: &speaker},
			{Start: time.Second, End: 2 * time.Second, Text: "to the show"},
		}},
		{Title: "Broken audio", Duration: 2 * time.Second, FailAnalysis: true},
		{Title: "Oldest", Duration: 2 * time.Second, BareAudio: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := sdk(t, srv, seed.APIKey)
	ctx := context.Background()
	for i := 2; i >= 0; i-- {
		if _, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{EpisodeIndex: i}); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Advance(time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.SeedReports(seed.WorkspaceID, []fakeserver.SeededReport{{FileName: "upload.wav", Duration: 90 * time.Second, CompleteAfter: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Advance(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	return srv, seed
}

func sdk(t testing.TB, srv *fakeserver.Server, key string) *client.Client {
	t.Helper()
	c, err := client.New(key, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()), client.WithClock(srv.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// getJSON is the decoded JSON answer of a keyed GET at base+path.
func getJSON(t testing.TB, hc *http.Client, base, key, path string) any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	return doJSON(t, hc, req)
}

// graphQL is the decoded data of a GraphQL query.
func graphQL(t testing.TB, hc *http.Client, base, key, query string, vars map[string]any) any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	out := doJSON(t, hc, req).(map[string]any)
	if out["errors"] != nil {
		t.Fatalf("%s: %v", query, out["errors"])
	}
	return out["data"]
}

func doJSON(t testing.TB, hc *http.Client, req *http.Request) any {
	t.Helper()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, b)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", req.URL.Path, err)
	}
	return v
}
