package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

// fakeResolver answers from a table and fails every other name, so nothing reaches the network.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

var testResolver = fakeResolver{
	"hooks.example.com":   {"93.184.216.34"},
	"v6.example.com":      {"2606:2800:220:1:248:1893:25c8:1946"},
	"loop.example.com":    {"127.0.0.1"},
	"private.example.com": {"10.1.2.3"},
	"mixed.example.com":   {"93.184.216.34", "192.168.1.10"},
	"metadata.internal":   {"169.254.169.254"},
	"aws6.example.com":    {"fd00:ec2::254"},
	"alibaba.example.com": {"100.100.100.200"},
	"mapped.example.com":  {"::ffff:10.0.0.1"},
	"linklocal6.example":  {"fe80::1"},
	"empty.example.com":   {},
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url          string
		ok, okLocals bool
	}{
		{"https://hooks.example.com/podqa", true, true},
		{"http://hooks.example.com:8443/p?x=1", true, true},
		{"https://v6.example.com/", true, true},
		{"https://93.184.216.34/p", true, true},
		{"https://[2606:2800:220:1:248:1893:25c8:1946]/p", true, true},
		// Internal addresses, literal and behind names.
		{"http://127.0.0.1:8080/", false, true},
		{"http://[::1]/", false, true},
		{"http://loop.example.com/", false, true},
		{"http://private.example.com/", false, true},
		{"http://mixed.example.com/", false, true},
		{"http://metadata.internal/latest/meta-data", false, true},
		{"http://169.254.169.254/latest/meta-data", false, true},
		{"http://aws6.example.com/", false, true},
		{"http://alibaba.example.com/", false, true},
		{"http://mapped.example.com/", false, true},
		{"http://linklocal6.example/", false, true},
		{"http://10.0.0.1/", false, true},
		{"http://172.16.5.4/", false, true},
		{"http://192.168.0.1/", false, true},
		{"http://0.0.0.0/", false, true},
		{"http://[::ffff:127.0.0.1]/", false, true},
		{"http://224.0.0.1/", false, true},
		{"http://255.255.255.255/", false, true},
		// Never acceptable.
		{"ftp://hooks.example.com/", false, false},
		{"hooks.example.com/p", false, false},
		{"https://", false, false},
		{"https://user:pw@hooks.example.com/", false, false},
		{"https://hooks.example.com/#frag", false, false},
		{"https://hooks.example.com:0/", false, false},
		{"https://hooks.example.com:99999/", false, false},
		{"https://hooks.example.com:/", false, false},
		{" https://hooks.example.com/", false, false},
		{"https://nowhere.example.com/", false, false},
		{"https://empty.example.com/", false, false},
		{"https://[fe80::1%25eth0]/", false, false},
		{"javascript:alert(1)", false, false},
		{"", false, false},
	}
	strict := Policy{Resolver: testResolver}
	lax := Policy{Resolver: testResolver, AllowPrivate: true}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			err := strict.CheckURL(context.Background(), tt.url)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidURL)) {
				t.Errorf("strict: %v, want ok=%v", err, tt.ok)
			}
			if err := lax.CheckURL(context.Background(), tt.url); (err == nil) != tt.okLocals {
				t.Errorf("allowing private: %v, want ok=%v", err, tt.okLocals)
			}
		})
	}
}

// FuzzCheckURL: any text gets an answer, never a panic, and an accepted URL is http(s) with a
// host that resolves (here, only through the table) to public addresses.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/p", "http://127.0.0.1/", "http://[::1]:80/", "ftp://x", "%", "http://a:b@c/", "https://metadata.internal"} {
		f.Add(s)
	}
	p := Policy{Resolver: testResolver}
	f.Fuzz(func(t *testing.T, raw string) {
		err := p.CheckURL(context.Background(), raw)
		if err == nil {
			u, perr := ParseURL(raw)
			if perr != nil || (u.Scheme != "http" && u.Scheme != "https") {
				t.Fatalf("accepted %q", raw)
			}
			if a, aerr := netip.ParseAddr(u.Hostname()); aerr == nil && Internal(a) {
				t.Fatalf("accepted internal %q", raw)
			}
		} else if !errors.Is(err, ErrInvalidURL) {
			t.Fatalf("%q: %v", raw, err)
		}
	})
}
