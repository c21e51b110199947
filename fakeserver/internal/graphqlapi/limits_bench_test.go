package graphqlapi

import (
	"context"
	"os"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"

	"github.com/podqa/podqa-go/fakeserver/internal/graphql/exec"
)

// BenchmarkGraphQLCostGuard is what the cost and alias limits add to each GraphQL operation:
// the guard run on the SDK's own GetReport and ListReports operations, parsed once, as gqlgen
// runs it before executing. Compare with graphqlclient's BenchmarkGetReport, the whole request.
func BenchmarkGraphQLCostGuard(b *testing.B) {
	src, err := os.ReadFile("../../../graphqlclient/internal/operations/reports.graphql")
	if err != nil {
		b.Fatal(err)
	}
	es := exec.NewExecutableSchema(exec.Config{Resolvers: &gqlResolver{}, Complexity: Complexity()})
	doc, gerr := gqlparser.LoadQueryWithRules(es.Schema(), string(src), nil)
	if gerr != nil {
		b.Fatal(gerr)
	}
	guard := &CostLimits{}
	if err := guard.Validate(es); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"GetReport", "ListReports"} {
		if doc.Operations.ForName(name) == nil {
			b.Fatalf("no operation %s in reports.graphql", name)
		}
		b.Run(name, func(b *testing.B) {
			op := &graphql.OperationContext{Doc: doc, OperationName: name, Variables: map[string]any{
				"id": "7f1d2c3b-0000-4000-8000-000000000001", "limit": 100,
			}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := guard.MutateOperationContext(ctx, op); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
