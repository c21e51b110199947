package graphqlapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/graphql/exec"
)

// The GraphQL cost limits. The specification is silent; these are the fake's choices, set so
// that any query an integration needs fits (a page of 2,000 reports with their stats, results
// and file info costs about 62,000) while a query that multiplies work (50 aliases of such a
// page, 2,000 aliases of report(id)) is refused before any resolver runs.
const (
	// MaxCost bounds an operation's complexity: each field costs 1, a JSON field (stats,
	// results, fileInfo, metadata, coverImage) 10, a transcript 50, and a list costs its page
	// size (limit, default included) times its items' cost.
	MaxCost = 100_000
	// MaxAliases bounds the aliased fields of an operation, fragments included.
	MaxAliases = 100
	// MaxAnswer bounds the size of an answer; past it the whole answer is replaced by one
	// errors entry. It stays under the SDK's 64 MiB client.MaxResponseBody.
	MaxAnswer = 32 << 20
)

// Page sizes of the GraphQL listings when the query names none; the cost of a listing counts
// the same default.
const (
	SeriesLimit  = 20
	ReportsLimit = 10
)

// Costs of the fields whose value is a JSON document rather than a scalar.
const (
	gqlJSONCost       = 10
	gqlTranscriptCost = 50
	// gqlHistoryCost is what a series' historicScores list is taken to hold.
	gqlHistoryCost = 20
)

// costSaturation keeps the arithmetic of hostile page sizes (limit: 2147483647 nested twice)
// from overflowing: anything above it is refused anyway.
const costSaturation = 1 << 40

func mulCost(n, child int) int {
	if n <= 0 {
		n = 1
	}
	if child <= 0 {
		child = 1
	}
	if n > costSaturation/child {
		return costSaturation
	}
	return n * child
}

func pageCost(limit *int, def, child int) int {
	n := def
	if limit != nil {
		n = *limit
	}
	return 1 + mulCost(n, child)
}

// Complexity counts list sizes (their limit argument) and the heavy JSON fields.
func Complexity() exec.ComplexityRoot {
	var c exec.ComplexityRoot
	c.Query.Reports = func(child int, _ *string, limit, _ *int, _, _, _, _, _, _ *string) int {
		return pageCost(limit, ReportsLimit, child)
	}
	c.Query.SeriesList = func(child int, limit, _ *int, _ *string) int { return pageCost(limit, SeriesLimit, child) }
	c.Query.Podcasts = c.Query.SeriesList
	c.SeriesType.HistoricScores = func(child int) int { return 1 + mulCost(gqlHistoryCost, child) }
	jsonField := func(int) int { return gqlJSONCost }
	c.ReportType.Stats = jsonField
	c.ReportType.Results = jsonField
	c.ReportType.FileInfo = jsonField
	c.ReportType.Metadata = jsonField
	c.ReportType.CoverImage = jsonField
	c.ReportType.Transcript = func(int) int { return gqlTranscriptCost }
	return c
}

// CostLimits is the gqlgen extension that refuses an operation over MaxAliases aliases or MaxCost before it runs, as
// gqlgen refuses a query that does not validate: 422 with one errors entry.
type CostLimits struct{ es graphql.ExecutableSchema }

var _ interface {
	graphql.OperationContextMutator
	graphql.HandlerExtension
} = (*CostLimits)(nil)

// ExtensionName names the extension to gqlgen.
func (*CostLimits) ExtensionName() string { return "CostLimits" }

// Validate keeps the schema the extension computes costs over.
func (c *CostLimits) Validate(es graphql.ExecutableSchema) error {
	c.es = es
	return nil
}

// MutateOperationContext refuses the operation over a limit, before it runs.
func (c *CostLimits) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	if n := countAliases(op.SelectionSet, MaxAliases); n > MaxAliases {
		return costRefusal("The query has more than %d aliased fields, the limit of this API; ask for fewer at once.", MaxAliases)
	}
	if cost := complexity.Calculate(ctx, c.es, op, opCtx.Variables); cost > MaxCost {
		return costRefusal("The query's cost %d exceeds the limit of %d: each field costs 1, stats, results, fileInfo, metadata and coverImage 10, transcript 50, and a list its limit times its items' cost; ask for smaller pages or fewer fields.", cost, MaxCost)
	}
	return nil
}

func costRefusal(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, errcode.ValidationFailed) // a query refused before it runs: 422
	return err
}

// countAliases counts the aliased fields under set, fragments included, and stops counting
// once the count exceeds limit (so that nested fragment spreads cannot make it costly).
func countAliases(set ast.SelectionSet, limit int) int {
	n := 0
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			if n > limit {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				if s.Alias != "" && s.Alias != s.Name {
					n++
				}
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				if s.Definition != nil {
					walk(s.Definition.SelectionSet)
				}
			}
		}
	}
	walk(set)
	return n
}

// CapAnswer is a ResponseWriter that holds back a GraphQL answer and replaces it by one errors entry when it exceeds
// MaxAnswer bytes. gqlgen writes an answer in one Write, so nothing is sent twice.
type CapAnswer struct {
	http.ResponseWriter
	status int
}

// WriteHeader holds the status back until the answer's size is known.
func (w *CapAnswer) WriteHeader(code int) { w.status = code }

// Write sends b, or the errors entry in its place when b is over MaxAnswer.
func (w *CapAnswer) Write(b []byte) (int, error) {
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	if len(b) > MaxAnswer {
		body, _ := json.Marshal(map[string]any{
			"errors": []map[string]any{{
				"message":    "The answer would exceed " + strconv.Itoa(MaxAnswer) + " bytes, the limit of this API; ask for smaller pages or fewer fields.",
				"extensions": map[string]any{"code": core.CodeValidation},
			}},
			"data": nil,
		})
		w.ResponseWriter.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
		w.ResponseWriter.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.ResponseWriter.Write(append(body, '\n'))
		return len(b), nil
	}
	if w.status != -1 {
		w.ResponseWriter.WriteHeader(status)
		w.status = -1
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *CapAnswer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
