package fakeserver

import (
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// Error is a refusal by the fake: what a Go API method returns, and what an HTTP answer of the
// fake carries in its error envelope. Read it with errors.As.
type Error struct {
	// Status is the HTTP status the refusal is answered with over HTTP (400, 404, 409, 429...).
	Status int
	// Code is the error code of the REST envelope, such as "validation_error", "not_found" or
	// "conflict" (the values of client.ErrorCode), or the fake's own "insufficient_storage".
	Code string
	// Message is the human-readable text the service would send.
	Message string
	// RetryAfter is how long a rate-limited caller must wait (whole seconds); 0 otherwise.
	RetryAfter time.Duration
}

// Error returns the code and the message.
func (e *Error) Error() string { return "fakeserver: " + e.Code + ": " + e.Message }

// The surfaces below the facade answer refusals as httpmw.Error, which has Error's fields: the
// facade converts between the two, so that a Go API method returns an *Error and an *Error a
// facade handler answers is written in its envelope.

// answerOf is err as the HTTP answers below the facade read it: a facade *Error as the
// httpmw.Error it is field for field, anything else as it is.
func answerOf(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return (*httpmw.Error)(e)
	}
	return err
}

// asError is err as the fake answers it: an *Error as it is, a refusal of the core mapped by
// the REST error table, anything else an internal error.
func asError(err error) *Error { return (*Error)(httpmw.AsError(answerOf(err))) }

// apiError turns a refusal of the core (or of a surface below the facade) returned through a Go
// API method into an *Error; nil and any other error stay as they are. Exported methods defer
// it on their named error.
func apiError(errp *error) {
	var ce *core.Error
	var he *httpmw.Error
	if *errp != nil && (errors.As(*errp, &ce) || errors.As(*errp, &he)) {
		*errp = asError(*errp)
	}
}

// writeError answers err in the REST envelope (httpmw.WriteError), a facade *Error included.
func writeError(w http.ResponseWriter, err error) { httpmw.WriteError(w, answerOf(err)) }

// jsonProblem describes a JSON decoding failure (httpmw.JSONProblem).
func jsonProblem(err error) string { return httpmw.JSONProblem(err) }

// finite is v, or nil (null) when it is not a finite number (the loudness of silence is -Inf),
// for the run report's gathering (api_runreport.go); internal/control has its own.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
