package dashboard

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzDashboardBack fuzzes the advance form's return path, which comes from the client: it must
// always lead to a page of the dashboard on the same origin.
func FuzzDashboardBack(f *testing.F) {
	for _, s := range []string{"", "/_fake/ui/", "/_fake/ui/requests?status=401", "//evil.test/_fake/ui/", "https://evil.test/_fake/ui/",
		"/_fake/ui/../../api", "/\\evil.test", "javascript:alert(1)", "/_fake/ui/%2F%2Fevil", "/_fake/uix"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, back string) {
		got := LocalPath(back)
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(got, Path+"/") || strings.HasPrefix(got, "//") || strings.Contains(got, "\\") {
			t.Fatalf("LocalPath(%q) = %q", back, got)
		}
		if strings.Contains(u.Path, "/../") || strings.HasSuffix(u.Path, "/..") {
			t.Fatalf("LocalPath(%q) = %q climbs out of the dashboard", back, got)
		}
	})
}
