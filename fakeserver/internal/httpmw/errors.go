package httpmw

import (
	"errors"
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Error is a refusal as an HTTP answer carries it: the status, and the code and message of the
// error envelope. Its fields are those of the facade's fakeserver.Error, which converts to it.
type Error struct {
	// Status is the HTTP status the refusal is answered with.
	Status int
	// Code is the error code of the REST envelope.
	Code string
	// Message is the human-readable text the service would send.
	Message string
	// RetryAfter is how long a rate-limited caller must wait (whole seconds); 0 otherwise.
	RetryAfter time.Duration
}

// Error returns the code and the message.
func (e *Error) Error() string { return "fakeserver: " + e.Code + ": " + e.Message }

// CodeMethodNotAllowed is the code of a route called with a method it does not take: a refusal
// of the HTTP adapters, never of the core.
const CodeMethodNotAllowed = "method_not_allowed"

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

// StatusTable is a copy of the status every code of the core is answered with.
func StatusTable() map[string]int { return maps.Clone(statusOfCode) }

// ErrInternal is what a caller sees of a failure inside the fake; the detail goes to the log.
func ErrInternal() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "Internal error."}
}

// ErrMethodNotAllowed answers a route called with a method it does not take.
func ErrMethodNotAllowed(message string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Message: message}
}

// AsError is err as the fake answers it: an *Error as it is, a refusal of the core mapped by
// the REST error table, anything else an internal error.
func AsError(err error) *Error {
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
	return ErrInternal()
}

// SetRetryAfter writes e's Retry-After header, in whole seconds, when it has one.
func SetRetryAfter(w http.ResponseWriter, e *Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
}
