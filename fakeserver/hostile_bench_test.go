package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// BenchmarkRESTGuards is what the hostile-input guards add to a REST read such as the 16-client
// benchmark's GET /reports/{id}: the nosniff header on every answer and the body check, which
// returns at once for a GET. "bare" is the same handler without them. Compare the difference
// with BenchmarkGetCompletedReport16Clients, the whole request.
func BenchmarkRESTGuards(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	guarded := httpmw.SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := httpmw.BufferJSONBody(r, httpmw.MaxAPIBody); err != nil {
			b.Error(err)
		}
		next(w, r)
	}))
	for _, tt := range []struct {
		name string
		h    http.Handler
	}{{"bare", next}, {"guarded", guarded}} {
		b.Run(tt.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/api/rest/v1/reports/7f1d2c3b-0000-4000-8000-000000000001", nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				tt.h.ServeHTTP(w, r)
			}
		})
	}
}
