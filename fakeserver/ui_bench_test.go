package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkDashboardReportsPage renders the first page of a workspace's reports, served in
// process, for workspaces of 1,000 and 100,000 reports: the two should cost the same.
func BenchmarkDashboardReportsPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			srv, _ := NewTest(b)
			ws := seedWorkspace(b, srv, "Bench", n)
			h := srv.Handler()
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("GET", "http://fake.test/_fake/ui/workspaces/"+ws, nil)
				r.Header.Set("Authorization", "Bearer "+srv.AdminToken())
				r.Header.Set("Accept", "text/html")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
