package fakeserver

import (
	"io"
	"net/http"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// startAndGet is what a test's fake costs it: NewTest's start (New on a manual clock, the demo
// workspace), one GET /me with the demo key, and the close.
func startAndGet(t *testing.T) {
	srv, err := New(WithManualClock(TestStart()), WithPrivateURLs(true))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("GET", srv.URL()+rest.Base+"/me", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+seed.APIKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /me: %d", resp.StatusCode)
	}
}

// TestStartAllocations: starting and closing a fake, and a test's fake with one request, cost
// a bounded number of allocations, near an httptest server's (about 190 for one with a GET):
// the route tables, the contracts, the templates and the built-in standards are the process's,
// built by the first fake, and the journal, the surfaces a fake serves, its clients and
// transports, the analysis pool and the hosted feeds' maps are made as they are used. The
// bounds sit above the figures measured (113 and 464, 116 and 489 under -race) by a margin for
// what the runtime and -race allocate on their own, so that a part built at the start again
// fails.
func TestStartAllocations(t *testing.T) {
	// Not parallel: AllocsPerRun counts the whole process's allocations.
	for _, tc := range []struct {
		name  string
		bound float64
		run   func()
	}{
		{"New and Close", 140, func() {
			srv, err := New(WithManualClock(TestStart()))
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"NewTest's start, one GET and Close", 560, func() { startAndGet(t) }},
	} {
		// AllocsPerRun's first run, uncounted, is the process's first fake.
		got := testing.AllocsPerRun(20, tc.run)
		t.Logf("%s: %.0f allocations", tc.name, got)
		if got > tc.bound {
			t.Errorf("%s: %.0f allocations, want at most %.0f", tc.name, got, tc.bound)
		}
	}
}
