package graphqlclient_test

import (
	"testing"

	"github.com/podqa/podqa-go/graphqlclient"
	"github.com/podqa/podqa-go/internal/errval/errvaltest"
)

// TestErrorValuesPrint holds every exported error value of the package to printing its meaning
// with %v, %+v and %#v; the table is checked against the package's declarations.
func TestErrorValuesPrint(t *testing.T) {
	t.Parallel()
	errvaltest.Check(t, ".", "graphqlclient", map[string]error{
		"ErrNoReport": graphqlclient.ErrNoReport,
	})
}
