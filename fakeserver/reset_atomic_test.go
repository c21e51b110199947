package fakeserver

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// atomicResetFixtures is a workspace with a fixture key, a few standards (so that a reset has
// something to rebuild between emptying the core and the key's return) and a hosted feed.
func atomicResetFixtures(t *testing.T) Fixtures {
	t.Helper()
	f, err := LoadFixtures(strings.NewReader(goodFixtures))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		f.Workspaces[0].Standards = append(f.Workspaces[0].Standards, FixtureStandard{Ref: "s" + string(rune('a'+i)),
			StandardSpec: StandardSpec{Name: "Standard " + string(rune('A'+i)), BasedOn: "EBU R128"}})
	}
	return f
}

// TestResetIsAtomic is D12 of issue 32: pollers hammering a fixture key and a fixture's hosted
// feed across many resets never see the gap between the old state and the new (a 401 for the
// key, a 404 for the feed). A barrier makes each reset wait for an answer to every poller after
// the previous one, so polls and resets interleave whatever the scheduler does; nothing sleeps.
func TestResetIsAtomic(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithFixtures(atomicResetFixtures(t)), WithPrivateURLs(true), WithoutRateLimits())
	feedURL := srv.Fixtures().Feeds["show"].FeedURL
	const resets = 40
	pollers := []struct {
		url  string
		auth bool
	}{{srv.URL() + "/api/rest/v1/me", true}, {srv.URL() + "/api/rest/v1/reports", true}, {feedURL, false}}
	// polled[i] says poller i answered since the last reset.
	polled := make([]chan struct{}, len(pollers))
	for i := range polled {
		polled[i] = make(chan struct{}, 1)
	}
	done := make(chan struct{})
	type tally struct{ ok, gap, other int }
	poll := func(url string, auth bool, polled chan<- struct{}) tally {
		var n tally
		for {
			select {
			case <-done:
				return n
			default:
			}
			req, err := http.NewRequest(http.MethodGet, url, nil)
			if err != nil {
				t.Error(err)
				return n
			}
			if auth {
				req.Header.Set("Authorization", "Bearer "+goodKey)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return n
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				n.ok++
			case http.StatusUnauthorized, http.StatusNotFound:
				n.gap++
			default:
				n.other++
			}
			select {
			case polled <- struct{}{}:
			default:
			}
		}
	}
	var wg sync.WaitGroup
	tallies := make([]tally, len(pollers))
	for i, p := range pollers {
		wg.Go(func() { tallies[i] = poll(p.url, p.auth, polled[i]) })
	}
	for range resets {
		for _, c := range polled {
			<-c
		}
		if _, err := srv.Reset(); err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	for i, n := range tallies {
		if n.gap != 0 || n.other != 0 || n.ok < resets {
			t.Errorf("poller %d across %d resets: %d answers 200, %d answers 401 or 404, %d others; want only 200s, at least %d", i, resets, n.ok, n.gap, n.other, resets)
		}
	}
}

// blockedWriter is a response writer whose first Write waits until released: a client that
// stops reading, as seen by the handler.
type blockedWriter struct {
	header  http.Header
	status  int
	body    []byte
	writing chan struct{}
	release chan struct{}
	once    sync.Once
}

func (w *blockedWriter) Header() http.Header { return w.header }
func (w *blockedWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *blockedWriter) Write(p []byte) (int, error) {
	w.once.Do(func() {
		close(w.writing)
		<-w.release
	})
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, p...)
	return len(p), nil
}

// TestResetDropsRequestsInFlight: a hosted download and a REST request begun before a reset and
// finished after it record nothing in the new state (its journal keeps only what the new state
// served), and the download ends whole, since the episode it found stays readable.
func TestResetDropsRequestsInFlight(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t, WithFixtures(hostedFixtures()))
	audio := srv.host.AudioURLs(mustUUID(t, srv.Fixtures().Feeds["show"].ID))[0]
	whole := download(t, srv, audio)
	start := func(url string) (*blockedWriter, chan struct{}) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+demo.APIKey)
		w := &blockedWriter{header: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
		served := make(chan struct{})
		go func() {
			defer close(served)
			srv.Handler().ServeHTTP(w, req)
		}()
		<-w.writing
		return w, served
	}
	dl, dlServed := start(audio)
	api, apiServed := start(srv.URL() + "/api/rest/v1/reports")
	if _, err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	close(dl.release)
	close(api.release)
	<-dlServed
	<-apiServed
	if dl.status != http.StatusOK || len(dl.body) != len(whole) {
		t.Fatalf("the download across the reset: %d, %d of %d bytes", dl.status, len(dl.body), len(whole))
	}
	if api.status != http.StatusOK {
		t.Fatalf("the REST request across the reset: %d", api.status)
	}
	// A request after the reset is journaled: the journal works, and the one begun before is
	// absent.
	resp, err := srv.Client().Get(srv.URL() + "/api/rest/v1/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	entries := srv.Requests(RequestFilter{})
	if len(entries) != 1 || entries[0].Path != "/api/rest/v1/me" {
		t.Errorf("the new journal holds %+v, want the probe of /api/rest/v1/me alone", entries)
	}
}
