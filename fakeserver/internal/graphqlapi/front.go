package graphqlapi

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// The bounds of the GraphQL validation front. gqlgen's validation rules cost more than the
// document's length (merging same-named fields compares every pair of them, walking fragments
// enters each one once per operation and per fragment, the cost limit expands every spread), so
// the front checks these first, in work linear in the document and never beyond the bounds.
// The figures leave every query an integration needs far inside them (the SDK's largest
// operation has 60 selections).
const (
	// gqlMaxDocument bounds the query text in bytes.
	gqlMaxDocument = 128 << 10
	// gqlMaxTokens bounds the query's lexical tokens, so that the parsed document stays small.
	gqlMaxTokens = 15_000
	// MaxDepth bounds the nesting of brackets in the text and of selection sets with every
	// fragment spread expanded.
	MaxDepth = 32
	// gqlMaxSelections bounds the selections visited with every fragment spread expanded, over
	// the operations and the fragment definitions (the validator walks each of them).
	gqlMaxSelections = 5_000
	// gqlMaxSpreads bounds the fragment spreads expanded over the whole document.
	gqlMaxSpreads = 1_000
	// gqlMaxComparisons bounds the field-merge comparisons: pairs of fields with the same
	// response name in one selection set (merged sets included) and pairs of fragment spreads.
	gqlMaxComparisons = 10_000
	// MaxErrors bounds the errors entries of an answer; the rest are counted in one more.
	MaxErrors = 20
	// gqlCacheBytes bounds the query text held by the cache of validated documents.
	gqlCacheBytes = 512 << 10
	// gqlCacheEntryBytes is the largest query the cache holds.
	gqlCacheEntryBytes = 16 << 10
)

// validationFront refuses a document past the bounds above before gqlgen parses and validates
// it, caps the errors entries of every answer, and keeps validated documents (so a query sent
// again is neither checked nor validated again).
type validationFront struct {
	cache *documentCache
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.ResponseInterceptor
} = (*validationFront)(nil)

func newValidationFront() *validationFront {
	return &validationFront{cache: newDocumentCache(gqlCacheBytes, gqlCacheEntryBytes)}
}

// useValidationFront puts a validation front before srv's parser and validator.
func useValidationFront(srv *handler.Server) {
	front := newValidationFront()
	srv.SetQueryCache(front.cache)
	srv.SetParserTokenLimit(gqlMaxTokens)
	srv.Use(front)
}

// ExtensionName names the front among gqlgen's extensions.
func (*validationFront) ExtensionName() string { return "ValidationFront" }

// Validate accepts any schema.
func (*validationFront) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters checks the query against the bounds; it changes nothing.
func (f *validationFront) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if _, ok := f.cache.Get(ctx, params.Query); ok {
		return nil
	}
	return checkDocument(ctx, params.Query)
}

// InterceptResponse keeps the first MaxErrors errors entries and counts the rest in one more.
func (*validationFront) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil && len(resp.Errors) > MaxErrors {
		more := len(resp.Errors) - MaxErrors
		last := gqlerror.Errorf("%d more errors are not shown; this API answers at most %d.", more, MaxErrors)
		last.Extensions = map[string]any{"code": errcode.ValidationFailed}
		if code, ok := resp.Errors[0].Extensions["code"]; ok {
			last.Extensions = map[string]any{"code": code}
		}
		resp.Errors = append(resp.Errors[:MaxErrors:MaxErrors], last)
	}
	return resp
}

// checkDocument parses query and measures what validating it would cost, stopping at the first
// bound passed or when ctx ends. A nil answer means gqlgen may parse and validate it.
func checkDocument(ctx context.Context, query string) *gqlerror.Error {
	if err := ctx.Err(); err != nil {
		return frontRefusal("The request was abandoned before its query was checked.")
	}
	if len(query) > gqlMaxDocument {
		return frontRefusal("The query is %d bytes, more than %d, the limit of this API.", len(query), gqlMaxDocument)
	}
	if depthOfBrackets(query) > MaxDepth {
		return frontRefusal("The query nests more than %d levels, the limit of this API.", MaxDepth)
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, gqlMaxTokens)
	if err != nil {
		gerr, ok := err.(*gqlerror.Error)
		if !ok {
			gerr = gqlerror.Wrap(err)
		}
		if strings.HasPrefix(gerr.Message, "exceeded token limit") {
			return frontRefusal("The query has more than %d tokens, the limit of this API.", gqlMaxTokens)
		}
		errcode.Set(gerr, errcode.ParseFailed)
		return gerr
	}
	m := newMergeMeter(ctx, doc)
	for _, op := range doc.Operations {
		m.level([]ast.SelectionSet{op.SelectionSet}, 1)
	}
	for _, frag := range doc.Fragments {
		m.level([]ast.SelectionSet{frag.SelectionSet}, 1)
	}
	return m.refusal
}

func frontRefusal(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, errcode.ValidationFailed) // refused before it runs: 422, as gqlgen's own
	return err
}

// depthOfBrackets is the deepest nesting of {, ( and [ in a GraphQL text, strings and comments
// skipped; the parser recurses once per level, so this is checked before it runs.
func depthOfBrackets(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '(', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ')', ']':
			depth--
		case '#':
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		case '"':
			if strings.HasPrefix(s[i:], `"""`) {
				end := strings.Index(s[i+3:], `"""`)
				for end >= 0 && strings.HasSuffix(s[:i+3+end], `\`) {
					next := strings.Index(s[i+3+end+3:], `"""`)
					if next < 0 {
						end = -1
						break
					}
					end += 3 + next
				}
				if end < 0 {
					return deepest
				}
				i += 3 + end + 2
				continue
			}
			for i++; i < len(s) && s[i] != '"' && s[i] != '\n'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return deepest
}

// mergeMeter counts, over the fragment-expanded document, what gqlgen's validation visits and
// compares, and stops at the first bound passed. Its own work is at most gqlMaxSelections
// visits, each with at most one map update.
type mergeMeter struct {
	ctx         context.Context
	fragments   map[string]*ast.FragmentDefinition
	expanding   map[string]bool
	selections  int
	spreads     int
	comparisons int
	refusal     *gqlerror.Error
}

func newMergeMeter(ctx context.Context, doc *ast.QueryDocument) *mergeMeter {
	m := &mergeMeter{ctx: ctx, fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)), expanding: map[string]bool{}}
	for _, f := range doc.Fragments {
		m.fragments[f.Name] = f
	}
	return m
}

// level measures one selection set as the validator merges it: sets are the selection sets
// whose fields share the parent's response name, flattened across fragments.
func (m *mergeMeter) level(sets []ast.SelectionSet, depth int) {
	if m.refusal != nil {
		return
	}
	if depth > MaxDepth {
		m.refusal = frontRefusal("The query nests more than %d levels with its fragments expanded, the limit of this API.", MaxDepth)
		return
	}
	var (
		groups  = map[string][]*ast.Field{}
		order   []string
		spreads int
	)
	var collect func(ast.SelectionSet)
	collect = func(set ast.SelectionSet) {
		for _, sel := range set {
			if m.refusal != nil || !m.visit() {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				name := s.Alias
				if name == "" {
					name = s.Name
				}
				if _, seen := groups[name]; !seen {
					order = append(order, name)
				}
				groups[name] = append(groups[name], s)
			case *ast.InlineFragment:
				// Its fields merge with the parent's; the validator's check of the fragment's
				// own set compares a subset of these pairs.
				collect(s.SelectionSet)
			case *ast.FragmentSpread:
				spreads++
				m.spreads++
				if m.spreads > gqlMaxSpreads {
					m.refusal = frontRefusal("The query expands more than %d fragment spreads, the limit of this API.", gqlMaxSpreads)
					return
				}
				def := m.fragments[s.Name]
				if def == nil || m.expanding[s.Name] {
					continue // unknown or cyclic: the validator reports it
				}
				m.expanding[s.Name] = true
				collect(def.SelectionSet)
				delete(m.expanding, s.Name)
			}
		}
	}
	for _, set := range sets {
		collect(set)
	}
	m.compare(spreads)
	for _, name := range order {
		fields := groups[name]
		m.compare(len(fields))
		var subs []ast.SelectionSet
		for _, f := range fields {
			if len(f.SelectionSet) > 0 {
				subs = append(subs, f.SelectionSet)
			}
		}
		if len(subs) > 0 {
			m.level(subs, depth+1)
		}
		if m.refusal != nil {
			return
		}
	}
}

// visit counts one selection; false once a bound is passed or the request is gone.
func (m *mergeMeter) visit() bool {
	m.selections++
	if m.selections > gqlMaxSelections {
		m.refusal = frontRefusal("The query has more than %d selections with its fragments expanded, the limit of this API.", gqlMaxSelections)
		return false
	}
	if m.selections%1024 == 0 && m.ctx.Err() != nil {
		m.refusal = frontRefusal("The request was abandoned while its query was checked.")
		return false
	}
	return true
}

// compare counts the pairwise comparisons of n items that must merge.
func (m *mergeMeter) compare(n int) {
	if m.refusal != nil || n < 2 {
		return
	}
	m.comparisons += min(n*(n-1)/2, gqlMaxComparisons+1)
	if m.comparisons > gqlMaxComparisons {
		m.refusal = frontRefusal("The query repeats fields or fragments under one name so often that merging them needs more than %d comparisons, the limit of this API; ask for each field once.", gqlMaxComparisons)
	}
}

// documentCache holds validated documents by their query text, least recently used dropped
// first, within a budget of query bytes (a document's memory follows its text's length).
type documentCache struct {
	mu       sync.Mutex
	budget   int
	maxEntry int
	used     int
	order    *list.List // of *cachedDocument, most recent first
	byQuery  map[string]*list.Element
}

type cachedDocument struct {
	query string
	doc   *ast.QueryDocument
}

var _ graphql.Cache[*ast.QueryDocument] = (*documentCache)(nil)

func newDocumentCache(budget, maxEntry int) *documentCache {
	return &documentCache{budget: budget, maxEntry: maxEntry, order: list.New(), byQuery: map[string]*list.Element{}}
}

// Get returns the validated document of query, if held.
func (c *documentCache) Get(_ context.Context, query string) (*ast.QueryDocument, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byQuery[query]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedDocument).doc, true
}

// Add holds the validated document of query, dropping the least recently used past the budget.
func (c *documentCache) Add(_ context.Context, query string, doc *ast.QueryDocument) {
	if len(query) > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byQuery[query]; ok {
		return
	}
	c.byQuery[query] = c.order.PushFront(&cachedDocument{query: query, doc: doc})
	c.used += len(query)
	for c.used > c.budget {
		oldest := c.order.Back()
		held := oldest.Value.(*cachedDocument)
		c.order.Remove(oldest)
		delete(c.byQuery, held.query)
		c.used -= len(held.query)
	}
}

// String describes the cache's use, for tests' messages.
func (c *documentCache) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("%d documents, %d of %d bytes", len(c.byQuery), c.used, c.budget)
}
