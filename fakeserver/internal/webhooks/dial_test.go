package webhooks

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"syscall"
	"testing"
)

// TestDialContextChecksEveryDialledAddress: the dial function refuses internal addresses
// before connecting (no packet leaves: a refused address is never dialled), accepts the one
// self names, and checks again on every redirect.
func TestDialContextChecksEveryDialledAddress(t *testing.T) {
	t.Parallel()
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, "http://metadata.example/latest", http.StatusFound)
		case "/to-mapped":
			http.Redirect(w, r, "http://[::ffff:10.1.2.3]/feed", http.StatusFound)
		default:
			_, _ = w.Write([]byte("ok"))
		}
	}))
	defer feed.Close()
	own := netip.MustParseAddrPort(feed.Listener.Addr().String())
	policy := Policy{Resolver: fakeResolver{
		"metadata.example": {"169.254.169.254"},
		"rebound.example":  {"192.168.7.7", "10.0.0.9"},
	}}
	var dialled []string // ControlContext runs before connect
	dialer := &net.Dialer{ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
		dialled = append(dialled, address)
		if address != own.String() {
			return errors.New("test dialer: only the test's own server") // before connect: no packet leaves
		}
		return nil
	}}
	policy.Dialer = dialer
	self := func(ap netip.AddrPort) bool { return ap == own }
	client := &http.Client{Transport: &http.Transport{DialContext: policy.DialContext(0, self)}}

	tests := []struct {
		name     string
		url      string
		wantOK   bool
		wantAddr string
	}{
		{"the listener self names", feed.URL + "/", true, ""},
		{"a redirect to a name resolving to link-local", feed.URL + "/to-private", false, "169.254.169.254"},
		{"a redirect to an IPv4-mapped private address", feed.URL + "/to-mapped", false, "10.1.2.3"},
		{"a name resolving only to private addresses", "http://rebound.example/feed", false, "192.168.7.7"},
		{"loopback that is not self", "http://127.0.0.2:" + strconv.Itoa(int(own.Port())) + "/", false, "127.0.0.2"},
	}
	for _, tt := range tests {
		dialled = nil
		resp, err := client.Get(tt.url)
		if tt.wantOK {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			resp.Body.Close()
			continue
		}
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: fetched, want a refusal", tt.name)
			continue
		}
		var refused *RefusedAddressError
		if !errors.As(err, &refused) || refused.Addr.String() != tt.wantAddr {
			t.Errorf("%s: error %v, want a refusal of %s", tt.name, err, tt.wantAddr)
		}
		for _, d := range dialled {
			if d != own.String() {
				t.Errorf("%s: dialled %s", tt.name, d)
			}
		}
	}
}
