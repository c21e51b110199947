package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Resolver looks host names up; *net.Resolver satisfies it, and tests inject their own so that
// nothing reaches the network.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrInvalidURL wraps every refusal of CheckURL.
var ErrInvalidURL = errors.New("invalid webhook URL")

// Policy decides which receiver URLs and addresses are acceptable.
type Policy struct {
	// Resolver looks host names up (default net.DefaultResolver).
	Resolver Resolver
	// Dialer connects to an address the policy allowed (default a net.Dialer); tests inject one
	// that refuses everything but loopback.
	Dialer Dialer
	// AllowPrivate accepts loopback, private and other internal addresses, which the service
	// refuses; tests with a local receiver set it.
	AllowPrivate bool
}

// Dialer connects to a network address; *net.Dialer satisfies it.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

func (p Policy) resolver() Resolver {
	if p.Resolver == nil {
		return net.DefaultResolver
	}
	return p.Resolver
}

// maxURLLength bounds a receiver URL.
const maxURLLength = 2048

// CheckURL accepts an absolute http or https URL whose host resolves, with every address it
// resolves to public unless the policy allows private ones. Its refusals wrap ErrInvalidURL and
// say why in words for logs.
func (p Policy) CheckURL(ctx context.Context, raw string) error {
	u, err := ParseURL(raw)
	if err != nil {
		return err
	}
	addrs, err := p.Resolve(ctx, u.Hostname())
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if !p.Allowed(a) {
			return fmt.Errorf("%w: %w", ErrInvalidURL, &RefusedAddressError{Host: u.Hostname(), Addr: a})
		}
	}
	return nil
}

// ParseURL parses a receiver URL: absolute, http or https, with a host, no credentials and no
// fragment.
func ParseURL(raw string) (*url.URL, error) {
	if len(raw) > maxURLLength || strings.TrimSpace(raw) != raw || raw == "" {
		return nil, fmt.Errorf("%w: malformed", ErrInvalidURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: malformed", ErrInvalidURL)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: the scheme must be http or https", ErrInvalidURL)
	case u.Opaque != "" || u.Hostname() == "":
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	case u.User != nil:
		return nil, fmt.Errorf("%w: credentials in the URL", ErrInvalidURL)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, fmt.Errorf("%w: a fragment", ErrInvalidURL)
	}
	if port := u.Port(); port != "" {
		var n int
		if _, err := fmt.Sscanf(port, "%d", &n); err != nil || n < 1 || n > 65535 || fmt.Sprint(n) != port {
			return nil, fmt.Errorf("%w: bad port", ErrInvalidURL)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, fmt.Errorf("%w: bad port", ErrInvalidURL)
	}
	return u, nil
}

// Resolve returns the addresses of host, an IP literal or a name; a name that does not resolve
// is refused.
func (p Policy) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return nil, fmt.Errorf("%w: a zoned address", ErrInvalidURL)
		}
		return []netip.Addr{a.Unmap()}, nil
	}
	addrs, err := p.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Errorf("%w: %s does not resolve", ErrInvalidURL, host)
	}
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = a.Unmap()
	}
	return out, nil
}

// RefusedAddressError is the error of a dial that the policy refused: the host resolved only
// to internal addresses. Nothing was sent to any of them.
type RefusedAddressError struct {
	Host string
	Addr netip.Addr
}

func (e *RefusedAddressError) Error() string {
	if e.Host == e.Addr.String() {
		return fmt.Sprintf("%s is an internal address; %s", e.Host, PrivateURLsHint)
	}
	return fmt.Sprintf("%s resolves to %s, an internal address; %s", e.Host, e.Addr, PrivateURLsHint)
}

// PrivateURLsHint names the way out of a refusal by address, for every message that reports one.
const PrivateURLsHint = "the fake accepts loopback and private addresses when started with -allow-private-urls (in Go: fakeserver.WithPrivateURLs(true))"

// Refused marks the error as a refusal by policy, for callers that only know the interface.
func (e *RefusedAddressError) Refused() bool { return true }

// DialContext returns a dial function for an http.Transport that resolves the host through the
// policy and connects only to addresses the policy allows, or to one that self accepts (the
// fake's own listener, which hosts its feeds). The check is on the address actually dialled,
// so a name that resolves, or starts resolving, to an internal address is refused before any
// packet is sent to it.
// Connecting gives up after timeout unless the policy's own Dialer decides.
func (p Policy) DialContext(timeout time.Duration, self func(netip.AddrPort) bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var dialer Dialer = &net.Dialer{Timeout: timeout}
	if p.Dialer != nil {
		dialer = p.Dialer
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, portText, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		port, err := strconv.ParseUint(portText, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("bad port %q", portText)
		}
		addrs, err := p.Resolve(ctx, host)
		if err != nil {
			return nil, &net.DNSError{Err: "does not resolve", Name: host, IsNotFound: true}
		}
		var lastErr error
		for _, a := range addrs {
			target := netip.AddrPortFrom(a, uint16(port))
			if !p.Allowed(a) && (self == nil || !self(target)) {
				if lastErr == nil {
					lastErr = &RefusedAddressError{Host: host, Addr: a}
				}
				continue
			}
			conn, err := dialer.DialContext(ctx, network, target.String())
			if err == nil {
				return conn, nil
			}
			lastErr = err
		}
		return nil, lastErr
	}
}

// Allowed reports whether the policy lets a receiver live at a.
func (p Policy) Allowed(a netip.Addr) bool {
	return a.IsValid() && (p.AllowPrivate || !Internal(a))
}

// internalPrefixes are the special-purpose ranges beyond what netip's predicates name: this
// network, shared address space (carrier NAT, and Alibaba's metadata 100.100.100.200),
// IETF protocol assignments, documentation, benchmarking, reserved, NAT64 and 6to4 (which can
// carry an internal IPv4 address), discard and documentation IPv6.
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
}

// Internal reports whether a is an address no public receiver has: loopback, private (RFC 1918
// and unique-local IPv6, which holds AWS's fd00:ec2::254), link-local (which holds the cloud
// metadata address 169.254.169.254), unspecified, multicast, broadcast, or another
// special-purpose range.
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsValid() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
