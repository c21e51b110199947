package fakeserver

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
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

// codeMethodNotAllowed is the code of a route called with a method it does not take: a refusal
// of the HTTP adapters, never of the core.
const codeMethodNotAllowed = "method_not_allowed"

// statusOfCode maps every code of the core to the HTTP status of the REST error table; the
// adapters (REST, GraphQL refusals, the subscription calls, the control API) all answer by it.
var statusOfCode = map[string]int{
	core.CodeValidation:          http.StatusBadRequest,
	core.CodeInvalidAPIKey:       http.StatusUnauthorized,
	core.CodeInsufficientCredits: http.StatusPaymentRequired,
	core.CodeForbidden:           http.StatusForbidden,
	core.CodePlanLimitReached:    http.StatusForbidden,
	core.CodeNotFound:            http.StatusNotFound,
	core.CodeConflict:            http.StatusConflict,
	core.CodeRateLimited:         http.StatusTooManyRequests,
	core.CodeInternal:            http.StatusInternalServerError,
	core.CodeInsufficientStorage: http.StatusInsufficientStorage,
}

// errInternal is what a caller sees of a failure inside the fake; the detail goes to the log.
func errInternal() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "Internal error."}
}

// errMethodNotAllowed answers a route called with a method it does not take.
func errMethodNotAllowed(message string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: codeMethodNotAllowed, Message: message}
}

// asError is err as the fake answers it: an *Error as it is, a refusal of the core mapped by
// statusOfCode, anything else an internal error.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		status, ok := statusOfCode[ce.Code]
		if !ok {
			status = http.StatusInternalServerError
		}
		return &Error{Status: status, Code: ce.Code, Message: ce.Message, RetryAfter: time.Duration(ce.RetryAfter) * time.Second}
	}
	return errInternal()
}

// apiError turns a refusal of the core returned through a Go API method into an *Error; nil
// and any other error stay as they are. Exported methods defer it on their named error.
func apiError(errp *error) {
	var ce *core.Error
	if *errp != nil && errors.As(*errp, &ce) {
		*errp = asError(*errp)
	}
}

// setRetryAfter writes e's Retry-After header, in whole seconds, when it has one.
func setRetryAfter(w http.ResponseWriter, e *Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
}
