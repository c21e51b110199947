package webhook_test

import (
	"testing"

	"github.com/podqa/podqa-go/internal/errval/errvaltest"
	"github.com/podqa/podqa-go/webhook"
)

// TestErrorValuesPrint holds every exported error value of the package to printing its meaning
// with %v, %+v and %#v; the table is checked against the package's declarations.
func TestErrorValuesPrint(t *testing.T) {
	t.Parallel()
	errvaltest.Check(t, ".", "webhook", map[string]error{
		"ErrMalformedPayload": webhook.ErrMalformedPayload,
		"ErrBodyTooLarge":     webhook.ErrBodyTooLarge,
		"ErrMethodNotAllowed": webhook.ErrMethodNotAllowed,
		"ErrInFlight":         webhook.ErrInFlight,
		"ErrCallback":         webhook.ErrCallback,
		"ErrDedupStore":       webhook.ErrDedupStore,
		"ErrInvalidSecret":    webhook.ErrInvalidSecret,
		"ErrInvalidOption":    webhook.ErrInvalidOption,
		"ErrMissingHeaders":   webhook.ErrMissingHeaders,
		"ErrInvalidTimestamp": webhook.ErrInvalidTimestamp,
		"ErrTimestampTooOld":  webhook.ErrTimestampTooOld,
		"ErrTimestampTooNew":  webhook.ErrTimestampTooNew,
		"ErrInvalidSignature": webhook.ErrInvalidSignature,
	})
}
