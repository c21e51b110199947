package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFeedURLPolicy: in production mode a feed URL that leads to an address the service cannot
// reach is refused with 400 validation_error saying why, in every spelling; nothing is created.
// The injected resolver answers the names (as the system resolver would for the decimal and
// octal forms), so no test packet goes anywhere: a refused address is never dialled.
func TestFeedURLPolicy(t *testing.T) {
	t.Parallel()
	resolver := staticResolver{
		"167772161":        "10.0.0.1",  // decimal 10.0.0.1
		"0177.0.0.1":       "127.0.0.1", // octal loopback
		"0x7f000001":       "127.0.0.1", // hexadecimal loopback
		"intranet.example": "192.168.1.5",
		"rebind.example":   "fd00:ec2::254",
	}
	guard := &loopbackOnly{}
	srv, seed := NewTest(t, WithPrivateURLs(false), WithResolver(resolver), WithDialer(guard))
	tests := []struct{ name, url, addr string }{
		{"private IPv4", "http://10.1.2.3/feed.rss", "10.1.2.3"},
		{"IPv4-mapped IPv6", "http://[::ffff:10.1.2.3]/feed.rss", "10.1.2.3"},
		{"link-local metadata", "http://169.254.169.254/latest/meta-data", "169.254.169.254"},
		{"unique-local metadata", "http://[fd00:ec2::254]/feed", "fd00:ec2::254"},
		{"unspecified", "http://0.0.0.0:9/feed", "0.0.0.0"},
		{"IPv6 loopback", "http://[::1]:9/feed", "::1"},
		{"decimal form", "http://167772161/feed", "10.0.0.1"},
		{"octal form", "http://0177.0.0.1/feed", "127.0.0.1"},
		{"hexadecimal form", "http://0x7f000001/feed", "127.0.0.1"},
		{"a name resolving to private", "https://intranet.example/feed", "192.168.1.5"},
		{"a name resolving to unique-local", "http://rebind.example/feed", "fd00:ec2::254"},
	}
	for _, tt := range tests {
		status, _, body := call(t, srv, http.MethodPost, "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)),
			fmt.Sprintf(`{"feed_url":%q}`, tt.url))
		if status != http.StatusBadRequest || errorCode(t, body) != "validation_error" {
			t.Errorf("%s: %d %s, want 400 validation_error", tt.name, status, body)
			continue
		}
		var e envelope
		_ = json.Unmarshal(body, &e)
		for _, want := range []string{"could not be read", "cannot reach", tt.addr} {
			if !strings.Contains(e.Error.Message, want) {
				t.Errorf("%s: message %q lacks %q", tt.name, e.Error.Message, want)
			}
		}
	}
	if refused := guard.refusedAddrs(); len(refused) > 0 {
		t.Errorf("the policy let dials to %v through", refused)
	}
	if status, _, body := call(t, srv, http.MethodGet, "/api/rest/v1/series", bearer(seed.APIKey), ""); status != 200 || !strings.Contains(string(body), `"items":[]`) {
		t.Errorf("a refused feed left a series: %d %s", status, body)
	}
}

// TestHostedFeedsWorkInProductionMode: the fake hosts its own feeds, so they are reachable in
// every mode, enclosures included, while a loopback feed server of the test's own is refused
// until private URLs are allowed.
func TestHostedFeedsWorkInProductionMode(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "never", http.StatusTeapot)
	}))
	defer own.Close()

	srv, seed := NewTest(t, WithPrivateURLs(false), WithAnalysisPace(0), WithDialer(&loopbackOnly{}))
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{{Title: "E1", Duration: 5 * time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := call(t, srv, http.MethodPost, "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)),
		fmt.Sprintf(`{"feed_url":%q}`, feed.FeedURL))
	if status != http.StatusCreated {
		t.Fatalf("hosted feed in production mode: %d %s", status, body)
	}
	var created struct{ ID string }
	_ = json.Unmarshal(body, &created)
	srv.Advance(time.Minute)
	_, _, body = call(t, srv, http.MethodGet, "/api/rest/v1/reports/"+created.ID, bearer(seed.APIKey), "")
	if !strings.Contains(string(body), `"status":"COMPLETE"`) {
		t.Fatalf("hosted enclosure in production mode: %s", body)
	}

	status, _, body = call(t, srv, http.MethodPost, "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)),
		fmt.Sprintf(`{"feed_url":%q}`, own.URL+"/feed.rss"))
	if status != http.StatusBadRequest || !strings.Contains(string(body), "cannot reach") || hits.Load() != 0 {
		t.Fatalf("loopback feed in production mode: %d %s, %d requests reached it", status, body, hits.Load())
	}

	allowing, seed2 := NewTest(t, WithDialer(&loopbackOnly{})) // NewTest allows private URLs
	status, _, body = call(t, allowing, http.MethodPost, "/api/rest/v1/reports", jsonHeader(bearer(seed2.APIKey)),
		fmt.Sprintf(`{"feed_url":%q}`, own.URL+"/feed.rss"))
	if status != http.StatusBadRequest || !strings.Contains(string(body), "HTTP 418") || hits.Load() != 1 {
		t.Fatalf("loopback feed with private URLs allowed: %d %s, %d requests reached it", status, body, hits.Load())
	}
}

// loopbackOnly is the dialer of tests: it connects to loopback addresses and refuses (and
// records) every other, so that no test packet leaves the machine even if the policy fails.
type loopbackOnly struct {
	mu      sync.Mutex
	refused []string
}

func (d *loopbackOnly) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		d.mu.Lock()
		d.refused = append(d.refused, address)
		d.mu.Unlock()
		return nil, fmt.Errorf("test dialer: %s is not loopback", address)
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

func (d *loopbackOnly) refusedAddrs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.refused...)
}
