package fakeserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi/hostile"
)

// TestGraphQLFrontRefusesD1ToD3: each hostile document of issue 32 is refused over HTTP,
// keyless, with one errors entry in a few hundred bytes (200 under application/json).
func TestGraphQLFrontRefusesD1ToD3(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithoutRateLimits())
	for _, tt := range hostile.Documents() {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			status, a := gql(t, srv, "", tt.Query, nil)
			if status != http.StatusOK || len(a.Errors) != 1 || a.Data != nil ||
				!strings.Contains(a.Errors[0].Message, tt.Refusal) {
				t.Fatalf("%d %+v, want 200 with one errors entry about %q", status, a.Errors, tt.Refusal)
			}
			if n := len(a.Errors[0].Message); n > 300 {
				t.Fatalf("a %d-byte message", n)
			}
		})
	}
}

// TestGraphQLErrorListCapped: a document with many validation errors answers graphqlapi.MaxErrors of
// them and one entry counting the rest.
func TestGraphQLErrorListCapped(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithoutRateLimits())
	var b strings.Builder
	b.WriteString("{")
	for i := range 500 {
		fmt.Fprintf(&b, " unknown%d", i)
	}
	b.WriteString(" }")
	status, a := gql(t, srv, "", b.String(), nil)
	if status != http.StatusOK || len(a.Errors) != graphqlapi.MaxErrors+1 ||
		!strings.Contains(a.Errors[graphqlapi.MaxErrors].Message, fmt.Sprintf("%d more errors", 500-graphqlapi.MaxErrors)) {
		t.Fatalf("%d, %d errors entries, last %+v", status, len(a.Errors), a.Errors[len(a.Errors)-1])
	}
}
