package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
)

// BenchmarkFaultMiddleware is the fault check's cost per request, on 16 goroutines, with no
// fault armed ("none"), with one armed that the request does not match ("other path"), and
// without the middleware ("bare").
func BenchmarkFaultMiddleware(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for _, tt := range []struct {
		name  string
		arm   bool
		inner func(*Server) http.Handler
	}{
		{"bare", false, func(*Server) http.Handler { return next }},
		{"none", false, func(s *Server) http.Handler { return s.injectFaults(next) }},
		{"other path", true, func(s *Server) http.Handler { return s.injectFaults(next) }},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := &Server{faults: newFaults(options{}, uuid.New)}
			if tt.arm {
				if _, err := s.InjectFault(Fault{PathPrefix: "/elsewhere", Status: 500}); err != nil {
					b.Fatal(err)
				}
			}
			h := tt.inner(s)
			b.SetParallelism(8)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := httptest.NewRequest("GET", "/api/rest/v1/me", nil)
				w := httptest.NewRecorder()
				for pb.Next() {
					h.ServeHTTP(w, r)
				}
			})
		})
	}
}
