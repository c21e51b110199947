package client_test

import (
	"testing"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/errval/errvaltest"
)

// TestErrorValuesPrint holds every exported error value of the package to printing its meaning
// with %v, %+v and %#v; the table is checked against the package's declarations, so a new value
// cannot be forgotten.
func TestErrorValuesPrint(t *testing.T) {
	t.Parallel()
	errvaltest.Check(t, ".", "client", map[string]error{
		"ErrValidation":          client.ErrValidation,
		"ErrInvalidAPIKey":       client.ErrInvalidAPIKey,
		"ErrInsufficientCredits": client.ErrInsufficientCredits,
		"ErrForbidden":           client.ErrForbidden,
		"ErrPlanLimitReached":    client.ErrPlanLimitReached,
		"ErrNotFound":            client.ErrNotFound,
		"ErrMethodNotAllowed":    client.ErrMethodNotAllowed,
		"ErrConflict":            client.ErrConflict,
		"ErrInternal":            client.ErrInternal,
		"ErrRateLimited":         client.ErrRateLimited,
		"ErrUnavailable":         client.ErrUnavailable,
		"ErrUnexpectedResponse":  client.ErrUnexpectedResponse,
		"ErrInvalidArgument":     client.ErrInvalidArgument,
		"ErrResponseTooLarge":    client.ErrResponseTooLarge,
		"ErrUnknownDuration":     client.ErrUnknownDuration,
		"ErrLimitFormat":         client.ErrLimitFormat,
		"ErrWaitTimeout":         client.ErrWaitTimeout,
	})
}
