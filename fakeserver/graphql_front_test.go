package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/podqa/podqa-go/fakeserver/internal/graphql/exec"
	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi"
)

// repeatedWithArguments is D1 of issue 32: one field repeated with different arguments and no
// aliases, which the field-merging rule compares pairwise.
func repeatedWithArguments(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, ` report(id:"a%d"){id}`, i)
	}
	b.WriteString(" }")
	return b.String()
}

// doublingFragments is D2: a chain of fragments where each spreads the next twice.
func doublingFragments(levels int) string {
	var b strings.Builder
	b.WriteString("query { ...F0 }")
	for i := range levels {
		fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ...F%d }", i, i+1, i+1)
	}
	fmt.Fprintf(&b, " fragment F%d on Query { user { id } }", levels)
	return b.String()
}

// repeatedField is D3: one field repeated n times under report(id).
func repeatedField(n int) string {
	return `{ report(id:"7f1d2c3b-0000-4000-8000-000000000001"){` + strings.Repeat(" id", n) + ` } }`
}

// hostileDocuments are D1 to D3 at the sizes issue 32 measured.
var hostileDocuments = []struct {
	name, query, refusal string
}{
	{"D1 1,000 fields", repeatedWithArguments(1_000), "comparisons"},
	{"D1 4,000 fields", repeatedWithArguments(4_000), "tokens"},
	{"D1 10,400 fields", repeatedWithArguments(10_400), "bytes"},
	{"D2 40 levels", doublingFragments(40), "fragment spreads"},
	{"D2 80 levels", doublingFragments(80), "fragment spreads"},
	{"D3 2,000 fields", repeatedField(2_000), "comparisons"},
	{"D3 10,000 fields", repeatedField(10_000), "selections"},
	{"D3 100,000 fields", repeatedField(100_000), "bytes"},
	{"a field list past the token limit", `{ user {` + strings.Repeat(" id", 20_000) + ` } }`, "tokens"},
	{"nesting past the depth", strings.Repeat("{ a ", 40) + strings.Repeat("}", 40), "nests"},
	{"nesting through fragments", deepFragments(40), "nests"},
	{"many spreads of distinct fragments", distinctSpreads(200), "comparisons"},
	{"selections past the bound", distinctFields(6_000), "selections"},
}

func deepFragments(n int) string {
	var b strings.Builder
	b.WriteString("query { ...F0 }")
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Query { user { ...F%d } }", i, i+1)
	}
	fmt.Fprintf(&b, " fragment F%d on Query { user { id } }", n)
	return b.String()
}

func distinctSpreads(n int) string {
	var b strings.Builder
	b.WriteString("query {")
	for i := range n {
		fmt.Fprintf(&b, " ...F%d", i)
	}
	b.WriteString(" }")
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Query { f%d: user { id } }", i, i)
	}
	return b.String()
}

func distinctFields(n int) string {
	var b strings.Builder
	b.WriteString("{ user {")
	for i := range n {
		fmt.Fprintf(&b, " f%d", i)
	}
	b.WriteString(" } }")
	return b.String()
}

// TestGraphQLFrontRefusesD1ToD3: each hostile document of issue 32 is refused over HTTP,
// keyless, with one errors entry in a few hundred bytes (200 under application/json).
func TestGraphQLFrontRefusesD1ToD3(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t, WithoutRateLimits())
	for _, tt := range hostileDocuments {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, a := gql(t, srv, "", tt.query, nil)
			if status != http.StatusOK || len(a.Errors) != 1 || a.Data != nil ||
				!strings.Contains(a.Errors[0].Message, tt.refusal) {
				t.Fatalf("%d %+v, want 200 with one errors entry about %q", status, a.Errors, tt.refusal)
			}
			if n := len(a.Errors[0].Message); n > 300 {
				t.Fatalf("a %d-byte message", n)
			}
		})
	}
}

// TestGraphQLFrontWorkIsBounded: checking a hostile document visits at most gqlMaxSelections
// selections and allocates a bounded number of bytes, whatever the document's own cost.
func TestGraphQLFrontWorkIsBounded(t *testing.T) {
	// Not parallel: it reads the process's allocation counter.
	const maxAllocated = 16 << 20
	for _, tt := range hostileDocuments {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := checkDocument(context.Background(), tt.query)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Message, tt.refusal) {
			t.Fatalf("%s: %v, want a refusal about %q", tt.name, err, tt.refusal)
		}
		got := after.TotalAlloc - before.TotalAlloc
		if got > maxAllocated {
			t.Errorf("%s: %d bytes allocated, want at most %d", tt.name, got, maxAllocated)
		}
		t.Logf("%s (%d bytes): %d bytes allocated", tt.name, len(tt.query), got)
		doc, perr := gqlparserParse(tt.query)
		if perr != nil {
			continue // refused before parsing (size, depth, tokens)
		}
		m := newMergeMeter(context.Background(), doc)
		for _, op := range doc.Operations {
			m.level([]ast.SelectionSet{op.SelectionSet}, 1)
		}
		for _, f := range doc.Fragments {
			m.level([]ast.SelectionSet{f.SelectionSet}, 1)
		}
		if m.refusal == nil || m.selections > gqlMaxSelections+1 || m.spreads > gqlMaxSpreads+1 {
			t.Errorf("%s: %d selections, %d spreads visited, refusal %v", tt.name, m.selections, m.spreads, m.refusal)
		}
	}
}

func gqlparserParse(q string) (*ast.QueryDocument, error) {
	if len(q) > gqlMaxDocument || depthOfBrackets(q) > gqlMaxDepth {
		return nil, errors.New("refused before parsing")
	}
	return parseOnly(q)
}

func parseOnly(q string) (*ast.QueryDocument, error) {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: q}, gqlMaxTokens)
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// TestGraphQLFrontPassesTheSDKOperations: every operation the SDK sends passes the front and
// validates, and a query passes the front exactly when it is inside every bound.
func TestGraphQLFrontPassesTheSDKOperations(t *testing.T) {
	t.Parallel()
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: graphqlapi.Complexity()})
	files, err := filepath.Glob("../graphqlclient/internal/operations/*.graphql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no operations: %v", err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkDocument(context.Background(), string(src)); err != nil {
			t.Errorf("%s refused: %v", file, err)
		}
		if _, err := gqlparser.LoadQueryWithRules(es.Schema(), string(src), nil); err != nil {
			t.Errorf("%s does not validate: %v", file, err)
		}
	}
	tests := []struct {
		name, query string
		refused     bool
	}{
		{"a field 141 times (9,870 comparisons)", repeatedField(141), false},
		{"a field 142 times (10,011 comparisons)", repeatedField(142), true},
		{"32 levels", strings.Repeat("{ a ", 32) + strings.Repeat("}", 32), false},
		{"33 levels", strings.Repeat("{ a ", 33) + strings.Repeat("}", 33), true},
		{"brackets in strings and comments do not nest", `{ report(id: "{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{") { id } # {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{
 user { id } }`, false},
		{"brackets in block strings do not nest", `{ report(id: """{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{ \""" {{{{""") { id } }`, false},
		{"5,000 selections", distinctFields(gqlMaxSelections - 1), false},
		{"5,001 selections", distinctFields(gqlMaxSelections), true},
		{"cyclic fragments are left to the validator", `query { ...A } fragment A on Query { ...B } fragment B on Query { ...A user { id } }`, false},
	}
	for _, tt := range tests {
		if err := checkDocument(context.Background(), tt.query); (err != nil) != tt.refused {
			t.Errorf("%s: %v, refused %v", tt.name, err, tt.refused)
		}
	}
}

// TestGraphQLErrorListCapped: a document with many validation errors answers gqlMaxErrors of
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
	if status != http.StatusOK || len(a.Errors) != gqlMaxErrors+1 ||
		!strings.Contains(a.Errors[gqlMaxErrors].Message, fmt.Sprintf("%d more errors", 500-gqlMaxErrors)) {
		t.Fatalf("%d, %d errors entries, last %+v", status, len(a.Errors), a.Errors[len(a.Errors)-1])
	}
}

// cancelAfter is a context whose Err turns non-nil after it has been asked n times.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestGraphQLFrontStopsWhenTheClientGoes: the check stops within 1,024 selections of its
// request's end.
func TestGraphQLFrontStopsWhenTheClientGoes(t *testing.T) {
	t.Parallel()
	doc, err := parseOnly(distinctFields(4_000))
	if err != nil {
		t.Fatal(err)
	}
	m := newMergeMeter(&cancelAfter{Context: context.Background(), n: 2}, doc)
	m.level([]ast.SelectionSet{doc.Operations[0].SelectionSet}, 1)
	if m.refusal == nil || !strings.Contains(m.refusal.Message, "abandoned") || m.selections != 3*1024 {
		t.Fatalf("%d selections visited, refusal %v", m.selections, m.refusal)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := checkDocument(ctx, "{ user { id } }"); err == nil || !strings.Contains(err.Message, "abandoned") {
		t.Fatalf("a request already gone: %v", err)
	}
}

// TestDocumentCacheBoundedInBytes: the cache of validated documents never holds more query
// bytes than its budget, drops the least recently used first and never holds a large query.
func TestDocumentCacheBoundedInBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newDocumentCache(100, 40)
	doc := &ast.QueryDocument{}
	c.Add(ctx, strings.Repeat("a", 41), doc)
	if _, ok := c.Get(ctx, strings.Repeat("a", 41)); ok {
		t.Fatal("a query over the entry bound is held")
	}
	for i := range 10 {
		c.Add(ctx, fmt.Sprintf("%030d", i), doc)
		if i == 1 {
			c.Get(ctx, fmt.Sprintf("%030d", 0)) // 0 becomes the most recent
		}
		if c.used > 100 {
			t.Fatalf("after %d adds: %s", i+1, c)
		}
	}
	for i, held := range []bool{false, false, false, false, false, false, false, true, true, true} {
		if _, ok := c.Get(ctx, fmt.Sprintf("%030d", i)); ok != held {
			t.Errorf("query %d held %v, want %v (%s)", i, ok, held, c)
		}
	}
}

// FuzzGraphQLValidationFront: the front never panics, answers the same twice, and whatever it
// lets through is inside its textual bounds and validates against the schema without a panic.
func FuzzGraphQLValidationFront(f *testing.F) {
	for _, q := range []string{
		"{ user { id } }", repeatedField(200), doublingFragments(12), deepFragments(5), distinctSpreads(20),
		`query Q($id: String!) { report(id: $id) { id ... on ReportType { name } } }`,
		`{ a: report(id: "x") { id } a: report(id: "y") { id } } # "{`, `{ report(id: """a\"""b""") { id } }`,
		`query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`,
	} {
		f.Add(q)
	}
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: graphqlapi.Complexity()})
	f.Fuzz(func(t *testing.T, q string) {
		first := checkDocument(context.Background(), q)
		second := checkDocument(context.Background(), q)
		if (first == nil) != (second == nil) || (first != nil && first.Message != second.Message) {
			t.Fatalf("two answers: %v, %v", first, second)
		}
		if first != nil {
			return
		}
		if len(q) > gqlMaxDocument || depthOfBrackets(q) > gqlMaxDepth {
			t.Fatalf("let through past the textual bounds")
		}
		_, _ = gqlparser.LoadQueryWithRules(es.Schema(), q, nil)
	})
}

// BenchmarkGraphQLValidationFront is the front's cost on the SDK's GetReport operation when the
// document is not cached (the first time a query is seen), and on each hostile document.
func BenchmarkGraphQLValidationFront(b *testing.B) {
	src, err := os.ReadFile("../graphqlclient/internal/operations/reports.graphql")
	if err != nil {
		b.Fatal(err)
	}
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: graphqlapi.Complexity()})
	// What the front saves on a query sent again: gqlgen's own parse and validation.
	b.Run("gqlgen parse and validate of SDK reports.graphql", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gqlparser.LoadQueryWithRules(es.Schema(), string(src), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SDK reports.graphql sent again (cached)", func(b *testing.B) {
		front := newValidationFront()
		doc, err := gqlparser.LoadQueryWithRules(es.Schema(), string(src), nil)
		if err != nil {
			b.Fatal(err)
		}
		front.cache.Add(context.Background(), string(src), doc)
		params := &graphql.RawParams{Query: string(src)}
		b.ReportAllocs()
		for b.Loop() {
			if err := front.MutateOperationParameters(context.Background(), params); err != nil {
				b.Fatal(err)
			}
		}
	})
	docs := []struct{ name, query string }{{"SDK reports.graphql first seen", string(src)}}
	for _, h := range hostileDocuments {
		docs = append(docs, struct{ name, query string }{h.name, h.query})
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = checkDocument(context.Background(), d.query)
			}
		})
	}
}
