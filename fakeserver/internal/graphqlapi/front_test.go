package graphqlapi

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/podqa/podqa-go/fakeserver/internal/graphqlapi/hostile"
)

// TestGraphQLFrontWorkIsBounded: checking a hostile document visits at most gqlMaxSelections
// selections and allocates a bounded number of bytes, whatever the document's own cost.
func TestGraphQLFrontWorkIsBounded(t *testing.T) {
	// Not parallel: it reads the process's allocation counter.
	const maxAllocated = 16 << 20
	for _, tt := range hostile.Documents() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := checkDocument(context.Background(), tt.Query)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Message, tt.Refusal) {
			t.Fatalf("%s: %v, want a refusal about %q", tt.Name, err, tt.Refusal)
		}
		got := after.TotalAlloc - before.TotalAlloc
		if got > maxAllocated {
			t.Errorf("%s: %d bytes allocated, want at most %d", tt.Name, got, maxAllocated)
		}
		t.Logf("%s (%d bytes): %d bytes allocated", tt.Name, len(tt.Query), got)
		doc, perr := gqlparserParse(tt.Query)
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
			t.Errorf("%s: %d selections, %d spreads visited, refusal %v", tt.Name, m.selections, m.spreads, m.refusal)
		}
	}
}

func gqlparserParse(q string) (*ast.QueryDocument, error) {
	if len(q) > gqlMaxDocument || depthOfBrackets(q) > MaxDepth {
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
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: Complexity()})
	files, err := filepath.Glob("../../../graphqlclient/internal/operations/*.graphql")
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
		{"a field 141 times (9,870 comparisons)", hostile.RepeatedField(141), false},
		{"a field 142 times (10,011 comparisons)", hostile.RepeatedField(142), true},
		{"32 levels", strings.Repeat("{ a ", 32) + strings.Repeat("}", 32), false},
		{"33 levels", strings.Repeat("{ a ", 33) + strings.Repeat("}", 33), true},
		{"brackets in strings and comments do not nest", `{ report(id: "{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{") { id } # {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{
 user { id } }`, false},
		{"brackets in block strings do not nest", `{ report(id: """{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{ \""" {{{{""") { id } }`, false},
		{"5,000 selections", hostile.DistinctFields(gqlMaxSelections - 1), false},
		{"5,001 selections", hostile.DistinctFields(gqlMaxSelections), true},
		{"cyclic fragments are left to the validator", `query { ...A } fragment A on Query { ...B } fragment B on Query { ...A user { id } }`, false},
	}
	for _, tt := range tests {
		if err := checkDocument(context.Background(), tt.query); (err != nil) != tt.refused {
			t.Errorf("%s: %v, refused %v", tt.name, err, tt.refused)
		}
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
	doc, err := parseOnly(hostile.DistinctFields(4_000))
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
		"{ user { id } }", hostile.RepeatedField(200), hostile.DoublingFragments(12), hostile.DeepFragments(5), hostile.DistinctSpreads(20),
		`query Q($id: String!) { report(id: $id) { id ... on ReportType { name } } }`,
		`{ a: report(id: "x") { id } a: report(id: "y") { id } } # "{`, `{ report(id: """a\"""b""") { id } }`,
		`query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`,
	} {
		f.Add(q)
	}
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: Complexity()})
	f.Fuzz(func(t *testing.T, q string) {
		first := checkDocument(context.Background(), q)
		second := checkDocument(context.Background(), q)
		if (first == nil) != (second == nil) || (first != nil && first.Message != second.Message) {
			t.Fatalf("two answers: %v, %v", first, second)
		}
		if first != nil {
			return
		}
		if len(q) > gqlMaxDocument || depthOfBrackets(q) > MaxDepth {
			t.Fatalf("let through past the textual bounds")
		}
		_, _ = gqlparser.LoadQueryWithRules(es.Schema(), q, nil)
	})
}

// BenchmarkGraphQLValidationFront is the front's cost on the SDK's GetReport operation when the
// document is not cached (the first time a query is seen), and on each hostile document.
func BenchmarkGraphQLValidationFront(b *testing.B) {
	src, err := os.ReadFile("../../../graphqlclient/internal/operations/reports.graphql")
	if err != nil {
		b.Fatal(err)
	}
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: Complexity()})
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
	for _, h := range hostile.Documents() {
		docs = append(docs, struct{ name, query string }{h.Name, h.Query})
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
