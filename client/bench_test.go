package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/podqa/podqa-go/client/internal/api"
)

// reportServer serves completedReportJSON as GET /reports/{id} would.
func reportServer(b *testing.B) *httptest.Server {
	body := []byte(completedReportJSON)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkGetReport is a full client round trip: request building, the retrying transport,
// the content-type check and decoding into Report.
func BenchmarkGetReport(b *testing.B) {
	srv := reportServer(b)
	c, err := New(testKey, WithBaseURL(srv.URL), WithHTTPClient(srv.Client()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.GetReport(ctx, reportID1)
		if err != nil || len(r.Results) != 14 {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkRawGetReport is the floor: a plain net/http GET with the same headers, decoded with
// encoding/json into the generated model of the same schema (api.Report).
func BenchmarkRawGetReport(b *testing.B) {
	srv := reportServer(b)
	hc := srv.Client()
	url := srv.URL + "/api/rest/v1/reports/" + reportID1
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var r api.Report
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || r.Results == nil || len(*r.Results) != 14 {
			b.Fatal(err)
		}
	}
}
