package fakeserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
)

// amplifyingQuery is the query of issue #19: n aliases of a page of 2,000 reports with their
// heavy fields.
func amplifyingQuery(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: reports(limit: 2000) { stats results fileInfo }", i)
	}
	b.WriteString(" }")
	return b.String()
}

func aliasedReports(n int, id string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, ` r%d: report(id: "%s") { id name stats }`, i, id)
	}
	b.WriteString(" }")
	return b.String()
}

// TestGraphQLCostLimits: an amplifying query is refused with a clear errors entry before it
// runs; the queries an integration needs still run.
func TestGraphQLCostLimits(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	id, _ := feedReport(t, srv, seed.APIKey, "Ep", HostedEpisode{})
	advance(t, srv, 10*time.Minute)
	fragmentBomb := `query { ...A } fragment A on Query { ` + strings.Repeat(`x: report(id: "`+id+`") { id } `, 1) +
		strings.Repeat("...B ", 1) + ` } fragment B on Query { ` + func() string {
		var b strings.Builder
		for i := range 120 {
			fmt.Fprintf(&b, `b%d: user { id } `, i)
		}
		return b.String()
	}() + `}`
	tests := []struct {
		name, key, query string
		refused          bool
		message          string
	}{
		{"50 aliases of 2,000 reports", seed.APIKey, amplifyingQuery(50), true, "cost"},
		{"one page of 2,000 reports with heavy fields", seed.APIKey, amplifyingQuery(1), false, ""},
		{"a page of 4,000 reports with heavy fields", seed.APIKey, `{ reports(limit: 4000) { stats results fileInfo } }`, true, "cost"},
		{"limit at the Int maximum, nested", seed.APIKey, `{ reports(limit: 2147483647) { id } seriesList(limit: 2147483647) { historicScores { reportId } } }`, true, "cost"},
		{"1,000 aliases of report(id), keyless", "", aliasedReports(1000, id), true, "aliased fields"},
		{"100 aliases of report(id), keyless", "", aliasedReports(100, id), false, ""},
		{"aliases hidden in fragments", seed.APIKey, fragmentBomb, true, "aliased fields"},
		{"the default pages", seed.APIKey, `{ user { id } seriesList { id title historicScores { passed } } reports { id name stats results fileInfo metadata transcript } }`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, a := gql(t, srv, tt.key, tt.query, nil)
			if !tt.refused {
				if status != http.StatusOK || len(a.Errors) > 0 {
					t.Fatalf("refused: %d %+v", status, a.Errors)
				}
				return
			}
			if status != http.StatusOK || len(a.Errors) != 1 || a.Data != nil ||
				!strings.Contains(a.Errors[0].Message, tt.message) {
				t.Fatalf("%d %+v, want 200 (application/json) with one errors entry about %q and no data", status, a.Errors, tt.message)
			}
		})
	}
}

// TestGraphQLAnonymousLimitedPerAddress: keyless requests (report(id) needs no key) are limited
// per address, like refused credentials; keyed requests are not counted against it.
func TestGraphQLAnonymousLimitedPerAddress(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	id, _ := feedReport(t, srv, seed.APIKey, "Ep", HostedEpisode{})
	advance(t, srv, time.Minute)
	q := `{ report(id: "` + id + `") { id } }`
	for i := range 100 {
		if status, a := gql(t, srv, "", q, nil); status != 200 || len(a.Errors) > 0 {
			t.Fatalf("request %d: %d %+v", i+1, status, a.Errors)
		}
	}
	status, h, body := call(t, srv, "POST", "/api/graphql", http.Header{"Content-Type": {"application/json"}}, `{"query":"{ report(id: \"`+id+`\") { id } }"}`)
	if status != http.StatusTooManyRequests || h.Get("Retry-After") == "" || errorCode(t, body) != "rate_limited" {
		t.Fatalf("101st keyless request: %d %v %s", status, h, body)
	}
	if status, a := gql(t, srv, seed.APIKey, q, nil); status != 200 || len(a.Errors) > 0 {
		t.Fatalf("a keyed request from the same address: %d %+v", status, a.Errors)
	}
	advance(t, srv, time.Minute)
	if status, a := gql(t, srv, "", q, nil); status != 200 || len(a.Errors) > 0 {
		t.Fatalf("keyless request in the next window: %d %+v", status, a.Errors)
	}
}

// TestGraphQLAnswerCap: an answer over graphqlapi.MaxAnswer is replaced by one errors entry.
func TestGraphQLAnswerCap(t *testing.T) {
	t.Parallel()
	for _, n := range []int{graphqlapi.MaxAnswer, graphqlapi.MaxAnswer + 1} {
		rec := httptest.NewRecorder()
		w := &graphqlapi.CapAnswer{ResponseWriter: rec}
		_, _ = w.Write([]byte(`{"data":"` + strings.Repeat("a", n-11) + `"}`))
		over := n > graphqlapi.MaxAnswer
		if got := rec.Body.Len(); over == (got == n) || (over && (rec.Code != 422 || !strings.Contains(rec.Body.String(), "would exceed"))) {
			t.Fatalf("%d bytes: %d, %d bytes answered", n, rec.Code, got)
		}
	}
}
