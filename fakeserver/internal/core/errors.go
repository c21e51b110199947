package core

import "fmt"

// Error codes of the REST error envelope. The adapters write them as they are and map each to
// its HTTP status in one table of their own.
const (
	CodeValidation          = "validation_error"
	CodeInvalidAPIKey       = "invalid_api_key"
	CodeInsufficientCredits = "insufficient_credits"
	CodeForbidden           = "forbidden"
	CodePlanLimitReached    = "plan_limit_reached"
	CodeNotFound            = "not_found"
	CodeConflict            = "conflict"
	CodeRateLimited         = "rate_limited"
	CodeInternal            = "internal_error"
)

// Error is a refusal of the domain core: a code, a message for the caller, and what a limit
// needs. It knows no transport; each adapter maps the code to its own answer.
type Error struct {
	Code    string
	Message string
	// RetryAfter is the whole number of seconds a rate-limited caller must wait; 0 otherwise.
	RetryAfter int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrInvalidAPIKey answers any refused credential: missing, unknown, disabled, or an owner-less
// organisation's. The message is the same for all so that it reveals nothing.
func ErrInvalidAPIKey() *Error {
	return errorf(CodeInvalidAPIKey, "Invalid or missing API key.")
}

// ErrNotFound answers a resource this workspace does not hold.
func ErrNotFound(what string) *Error {
	return errorf(CodeNotFound, "%s not found.", what)
}

// ErrValidation answers a malformed request.
func ErrValidation(format string, args ...any) *Error {
	return errorf(CodeValidation, format, args...)
}
