package fakeserver_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// A fault can let the first matches through and then fire a set number of times; the
// listing counts what it matched and what it did. Here the second GET of /me is rate limited,
// as the service's limiter would answer it.
func ExampleServer_Faults() {
	srv, _ := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	defer srv.Close()
	seed, _ := srv.SeedDemo()
	if _, err := srv.InjectFault(fakeserver.Fault{PathPrefix: "/api/rest/v1/me", Status: 429, RetryAfter: 30 * time.Second, After: 1, Count: 1}); err != nil {
		fmt.Println(err)
		return
	}
	// A second fault that never fires counts the GETs of /me the first one lets through.
	if _, err := srv.InjectFault(fakeserver.Fault{Method: "GET", PathPrefix: "/api/rest/v1/me", Latency: time.Millisecond, After: 1000}); err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+seed.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Printf("%d Retry-After: %q\n", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	for _, f := range srv.Faults() {
		fmt.Printf("matched %d, fired %d\n", f.Matches, f.Fired)
	}
	// Output:
	// 200 Retry-After: ""
	// 429 Retry-After: "30"
	// matched 1, fired 0
}
