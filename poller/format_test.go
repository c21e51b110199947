package poller_test

import (
	"testing"

	"github.com/podqa/podqa-go/internal/errval/errvaltest"
	"github.com/podqa/podqa-go/poller"
)

// TestErrorValuesPrint holds every exported error value of the package to printing its meaning
// with %v, %+v and %#v; the table is checked against the package's declarations.
func TestErrorValuesPrint(t *testing.T) {
	t.Parallel()
	errvaltest.Check(t, ".", "poller", map[string]error{
		"ErrCorruptState":     poller.ErrCorruptState,
		"ErrInvalidOption":    poller.ErrInvalidOption,
		"ErrNoWatermark":      poller.ErrNoWatermark,
		"ErrInvalidWatermark": poller.ErrInvalidWatermark,
		"ErrLeaseHeld":        poller.ErrLeaseHeld,
		"ErrLeaseLost":        poller.ErrLeaseLost,
	})
}
