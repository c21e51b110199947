package dashboard

import (
	"net/http"
	"strings"
	"testing"
)

// TestRoutesUnderTheDashboard: every row of the table is a GET or a POST under Path, none
// twice, and a nil front lists them (the facade's route checks read the patterns so).
func TestRoutesUnderTheDashboard(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	rows := (*UI)(nil).Routes()
	for _, r := range rows {
		method, path, ok := strings.Cut(r.Pattern, " ")
		if !ok || (method != http.MethodGet && method != http.MethodPost) || !strings.HasPrefix(path, Path) || r.Handler == nil {
			t.Errorf("row %q", r.Pattern)
		}
		if seen[r.Pattern] {
			t.Errorf("%q twice", r.Pattern)
		}
		seen[r.Pattern] = true
	}
	if len(rows) != 19 {
		t.Errorf("%d rows, want the 19 of the login, the files, the pages and the forms", len(rows))
	}
}
