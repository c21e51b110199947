package fakeserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/rest"
)

// TestMiddlewareOrder holds a REST route with an id to the chain of DESIGN.md, each step shown
// by a request that only it can answer: the route table routes once (ServeMux's own cleaning
// redirects an unclean path), faults fire before the door, the door refuses before the
// contract, the contract refuses malformed text before the id rule, and the id rule answers an
// id in another spelling as an unknown one, after the door has written the principal the
// journal then records.
func TestMiddlewareOrder(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	report := hostedReport(t, srv, seed, HostedEpisode{Title: "Order", Duration: time.Second, Format: "wav"})
	upper := rest.Base + "/reports/" + strings.ToUpper(report)
	key := bearer(seed.APIKey)
	steps := []struct {
		name         string
		path         string
		header       http.Header
		status       int
		bodyContains string
	}{
		{"the table cleans no path itself: ServeMux redirects", rest.Base + "/me/../reports/" + report, key, http.StatusTemporaryRedirect, "/api/rest/v1/reports/"},
		{"the door before the id rule", upper, nil, http.StatusUnauthorized, "invalid_api_key"},
		{"the door before the contract", rest.Base + "/reports/not-a-uuid", nil, http.StatusUnauthorized, "invalid_api_key"},
		{"the contract before the id rule", rest.Base + "/reports/not-a-uuid", key, http.StatusBadRequest, "validation_error"},
		{"the id rule before the handler", upper, key, http.StatusNotFound, `"Report not found."`},
		{"the handler", rest.Base + "/reports/" + report, key, http.StatusOK, `"id":"` + report + `"`},
	}
	for _, st := range steps {
		client := &http.Client{Transport: srv.Client().Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, err := http.NewRequest("GET", srv.URL()+st.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = st.header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != st.status || !strings.Contains(string(body), st.bodyContains) {
			t.Errorf("%s: GET %s: %d %s, want %d with %s", st.name, st.path, resp.StatusCode, body, st.status, st.bodyContains)
		}
	}

	// The journal records the principal the door let the refused-as-unknown request in as.
	entries := srv.Requests(RequestFilter{Limit: 10, PathPrefix: upper})
	if len(entries) != 2 {
		t.Fatalf("the journal holds %d entries of %s, want 2", len(entries), upper)
	}
	if e := entries[0]; e.Status != http.StatusNotFound || e.ErrorCode != "not_found" || e.WorkspaceID != seed.WorkspaceID || e.APIKeyID != seed.APIKeyID {
		t.Errorf("journal entry of the keyed request: %+v", e)
	}
	if e := entries[1]; e.Status != http.StatusUnauthorized || e.WorkspaceID != "" {
		t.Errorf("journal entry of the keyless request: %+v", e)
	}

	// Faults come before the door: an armed fault answers a request with no key at all.
	if _, err := srv.InjectFault(Fault{Method: "GET", PathPrefix: rest.Base + "/reports/", Status: http.StatusServiceUnavailable}); err != nil {
		t.Fatal(err)
	}
	if status, _, body := call(t, srv, "GET", upper, nil, ""); status != http.StatusServiceUnavailable {
		t.Errorf("an armed fault, no key: %d %s, want 503", status, body)
	}
}
