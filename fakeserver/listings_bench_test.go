package fakeserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/apitime"
)

// listingFake is a fake holding n seeded reports in one workspace for the loopback listing
// benchmarks: created in ten batches a minute apart, the first nine COMPLETE, the newest
// batch still IN_PROGRESS; old is an instant after the first batch was created and before it
// completed, so that nine reports in ten were created after it and every report updated after.
type listingFake struct {
	srv *Server
	key string
	old string
}

func newListingFake(b *testing.B, n int) listingFake {
	b.Helper()
	srv, err := New(WithManualClock(TestStart()), WithoutRateLimits())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	off := false
	ws, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Lists", ChargingEnabled: &off})
	if err != nil {
		b.Fatal(err)
	}
	key, err := srv.CreateAPIKey(ws.ID, "")
	if err != nil {
		b.Fatal(err)
	}
	lf := listingFake{srv: srv, key: key.Key}
	for batch := range 10 {
		in := make([]SeededReport, n/10)
		for i := range in {
			in[i] = SeededReport{FileName: "a.wav", Duration: time.Minute, CompleteAfter: 30 * time.Minute}
			if batch == 9 {
				in[i].CompleteAfter = 3 * time.Hour
			}
		}
		if _, err := srv.SeedReports(ws.ID, in); err != nil {
			b.Fatal(err)
		}
		if batch == 0 {
			lf.old = apitime.Format(srv.Now().Add(time.Second))
		}
		if _, err := srv.Advance(time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := srv.Advance(time.Hour); err != nil {
		b.Fatal(err)
	}
	return lf
}

// get answers GET path with the key, and the number of items of its list.
func (lf listingFake) get(b *testing.B, client *http.Client, path string) (items int, hasMore bool) {
	req, _ := http.NewRequest("GET", lf.srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+lf.key)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Items   []json.RawMessage
		HasMore bool `json:"has_more"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return len(page.Items), page.HasMore
}

// graphql answers a GraphQL reports query, and the number of reports it lists.
func (lf listingFake) graphql(b *testing.B, client *http.Client, query string) int {
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", lf.srv.URL()+"/api/graphql", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+lf.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			Reports []json.RawMessage
		}
		Errors []json.RawMessage
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &answer); err != nil || resp.StatusCode != 200 || len(answer.Errors) > 0 {
		b.Fatalf("GraphQL %s: %d %v %s", query, resp.StatusCode, err, raw)
	}
	return len(answer.Data.Reports)
}

// BenchmarkListReportsLoopback is one page of 100 of GET /reports and of GraphQL reports over
// loopback, for each filter, at 1,000 and 100,000 reports, and paging through every report
// updated since an old instant (ns/report). The time per page should not grow with the size.
func BenchmarkListReportsLoopback(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		lf := newListingFake(b, n)
		client := lf.srv.Client()
		old := url.QueryEscape(lf.old)
		for _, c := range []struct{ name, query string }{
			{"none", ""},
			{"status", "&status=COMPLETE"},
			{"status_rare", "&status=IN_PROGRESS"},
			{"created_since", "&created_since=" + old},
			{"updated_since_old", "&updated_since=" + old},
			{"updated_since_old_offset500", "&updated_since=" + old + "&offset=500"},
			{"status_created_since_updated_since", "&status=COMPLETE&created_since=" + old + "&updated_since=" + old},
		} {
			b.Run(fmt.Sprintf("rest/%s/%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if items, _ := lf.get(b, client, "/api/rest/v1/reports?limit=100"+c.query); items != 100 {
						b.Fatalf("%d items", items)
					}
				}
			})
		}
		for _, c := range []struct{ name, args string }{
			{"none", ""},
			{"status", `, status: "complete"`},
			{"updated_since_old", `, updatedSince: "` + lf.old + `"`},
			{"updated_since_old_offset500", `, offset: 500, updatedSince: "` + lf.old + `"`},
		} {
			b.Run(fmt.Sprintf("graphql/%s/%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				query := `{ reports(limit: 100` + c.args + `) { id status createdAt updatedAt } }`
				for b.Loop() {
					if got := lf.graphql(b, client, query); got != 100 {
						b.Fatalf("%d reports", got)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("rest/paging/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				seen := 0
				for offset := 0; ; offset += 100 {
					items, more := lf.get(b, client, fmt.Sprintf("/api/rest/v1/reports?limit=100&offset=%d&updated_since=%s", offset, old))
					seen += items
					if !more {
						break
					}
				}
				if seen != n {
					b.Fatalf("paged through %d of %d", seen, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/report")
		})
	}
}
