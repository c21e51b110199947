package fakeserver

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
)

// routedTo is what a route of a test restRouter saw of a request: its route and the report id
// its handlers read.
type routedTo struct {
	method, path, reportID string
}

// recordingRESTRouter is a restRouter of the generated routes whose fronts record, in *last,
// the route a request reached and its report id as the handlers read it (reportIDOf).
func recordingRESTRouter(last *routedTo) *restRouter {
	router := newRESTRouter(func(method, path string, _ http.Handler) http.Handler {
		return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			id := ""
			if path == reportPattern {
				id = reportIDOf(r, true)
			}
			*last = routedTo{method: method, path: path, reportID: id}
		})
	})
	restserver.HandlerWithOptions(nil, restserver.StdHTTPServerOptions{BaseURL: restBase, BaseRouter: router})
	return router
}

// directAgrees fails t when restRouter's direct route and its ServeMux send r to different
// routes or read a different report id, and reports whether the direct route took r.
func directAgrees(t testing.TB, router *restRouter, last *routedTo, r *http.Request) bool {
	t.Helper()
	*last = routedTo{}
	router.mux.ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context()))
	viaMux := *last
	*last = routedTo{}
	router.ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context()))
	if *last != viaMux {
		t.Errorf("%s %q: ServeMux routes it to %+v, the router to %+v", r.Method, r.URL.EscapedPath(), viaMux, *last)
	}
	return directReportID(r) != ""
}

func TestDirectReportRouteAgreesWithTheMux(t *testing.T) {
	t.Parallel()
	var last routedTo
	router := recordingRESTRouter(&last)
	if router.report == nil {
		t.Fatalf("no route for GET %s", reportPattern)
	}
	const id = "8c5f3b7e-1111-4222-8333-444455556666"
	tests := []struct {
		method, target string
		direct         bool
	}{
		{"GET", restBase + "/reports/" + id, true},
		{"HEAD", restBase + "/reports/" + id, true},
		{"GET", restBase + "/reports/" + id + "?x=1", true},
		{"GET", restBase + "/reports/" + strings.ToUpper(id), true},
		{"POST", restBase + "/reports/" + id, false},
		{"DELETE", restBase + "/reports/" + id, false},
		{"GET", restBase + "/reports/" + id + "/", false},
		{"GET", restBase + "/reports/" + id + "/transcript", false},
		{"GET", restBase + "/reports/" + strings.Replace(id, "-", "%2D", 1), false},
		{"GET", restBase + "/reports/" + strings.Replace(id, "-", "%2d", 1), false},
		{"GET", restBase + "/reports/" + id[:35], false},
		{"GET", restBase + "/reports/not-a-uuid", false},
		{"GET", restBase + "/reports", false},
		{"GET", restBase + "/reports/", false},
		{"GET", restBase + "/me", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		if got := directAgrees(t, router, &last, r); got != tt.direct {
			t.Errorf("%s %s: direct %v, want %v", tt.method, tt.target, got, tt.direct)
		}
		if tt.direct && last.reportID != strings.TrimPrefix(r.URL.Path, restBase+"/reports/") {
			t.Errorf("%s %s: the handler reads report id %q", tt.method, tt.target, last.reportID)
		}
	}
}

func FuzzDirectReportRouteAgreesWithTheMux(f *testing.F) {
	for _, seed := range [][2]string{
		{"GET", restBase + "/reports/8c5f3b7e-1111-4222-8333-444455556666"},
		{"HEAD", restBase + "/reports/8C5F3B7E-1111-4222-8333-444455556666"},
		{"GET", restBase + "/reports/8c5f3b7e%2D1111-4222-8333-444455556666"},
		{"GET", restBase + "/reports/8c5f3b7e-1111-4222-8333-444455556666/transcript"},
	} {
		f.Add(seed[0], seed[1])
	}
	var last routedTo
	router := recordingRESTRouter(&last)
	f.Fuzz(func(t *testing.T, method, target string) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(method + " " + target + " HTTP/1.1\r\nHost: fake\r\n\r\n")))
		if err != nil {
			return
		}
		directAgrees(t, router, &last, r)
	})
}
