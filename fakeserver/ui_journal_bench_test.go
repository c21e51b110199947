package fakeserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// BenchmarkDashboardJournalPage renders the journal's page over 200 keyed requests that each
// sent the largest body the journal keeps, made of characters the page escapes to five bytes:
// the attack of issue 41's fourth point. It reports the page's size.
func BenchmarkDashboardJournalPage(b *testing.B) {
	srv, seed := NewTest(b)
	body := `{"feed_url":"` + strings.Repeat("'", MaxJournalBody-16) + `"}`
	header := http.Header{"Authorization": {"Bearer " + seed.APIKey}, "Content-Type": {"application/json"}}
	for i := range dashboard.MaxList {
		if i%90 == 89 {
			if _, err := srv.Advance(time.Minute); err != nil {
				b.Fatal(err)
			}
		}
		r, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", strings.NewReader(body))
		r.Header = header.Clone()
		res, err := srv.Client().Do(r)
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
	}
	admin := http.Header{"Authorization": {"Bearer " + srv.AdminToken()}, "Accept": {"text/html"}}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		r, _ := http.NewRequest("GET", srv.URL()+"/_fake/ui/requests", nil)
		r.Header = admin.Clone()
		res, err := srv.Client().Do(r)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		size = int(n)
	}
	b.ReportMetric(float64(size), "page-bytes")
}
