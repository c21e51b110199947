package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrorCode is the machine-readable code of an API error. Branch on it, never on the message.
// Codes the package does not know are kept as they arrive.
type ErrorCode string

// The error codes the service documents.
const (
	// CodeValidationError means a parameter or body field is missing, malformed, out of range or not an
	// allowed value; also an unreadable feed and an episode index past the end of the feed.
	CodeValidationError ErrorCode = "validation_error"
	// CodeInvalidAPIKey means the key is missing, unknown, disabled, or belongs to an organisation
	// with no owner.
	CodeInvalidAPIKey ErrorCode = "invalid_api_key"
	// CodeInsufficientCredits means the workspace is out of credits or monthly allowance; nothing was
	// created or charged.
	CodeInsufficientCredits ErrorCode = "insufficient_credits"
	// CodeForbidden means a permission refusal on the underlying operation.
	CodeForbidden ErrorCode = "forbidden"
	// CodePlanLimitReached means a plan cap blocks the action, most often adding another podcast.
	CodePlanLimitReached ErrorCode = "plan_limit_reached"
	// CodeNotFound means no such resource in this workspace (a resource of another workspace is
	// reported the same way), or an unknown, foreign or lapsed upload id.
	CodeNotFound ErrorCode = "not_found"
	// CodeMethodNotAllowed means the route exists but not for this method.
	CodeMethodNotAllowed ErrorCode = "method_not_allowed"
	// CodeConflict means the request was already carried out (a used upload id).
	CodeConflict ErrorCode = "conflict"
	// CodeRateLimited means a rate limit was exceeded; APIError.RetryAfter says for how long.
	CodeRateLimited ErrorCode = "rate_limited"
	// CodeInternalError means a server-side fault.
	CodeInternalError ErrorCode = "internal_error"
)

// APIError is an HTTP response that was not a success: an error object of the REST API, a flat
// webhook-subscription error (mapped to the same fields), or a response that did not come from
// the API at all (a plain-text 503 from the service's front, an HTML page). Use errors.As to read
// it and errors.Is with the Err* sentinels to branch on it.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the API's error code; empty when the response carried no error object (a
	// non-JSON 5xx, an unexpected content type). Webhook subscription errors, which carry only
	// a message, get the code their status stands for.
	Code ErrorCode
	// Message is the human-readable explanation. It can change; do not branch on it.
	Message string
	// RetryAfter is the wait the Retry-After header asked for, 0 when there was none.
	RetryAfter time.Duration
	// Body is the raw response body (at most 64 KiB) when it was not a JSON error object.
	Body []byte

	// op names the request, such as "GET /api/rest/v1/me", for Error.
	op string
}

// Error describes the failure. It never contains the API key.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("podqa: ")
	if e.op != "" {
		b.WriteString(e.op)
		b.WriteString(": ")
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Code != "" {
		b.WriteByte(' ')
		b.WriteString(string(e.Code))
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Code == "" && len(e.Body) > 0 {
		fmt.Fprintf(&b, " (%d-byte non-API body)", len(e.Body))
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}

// Is reports whether e matches one of the package's sentinel errors, so that
// errors.Is(err, ErrNotFound) works on any error wrapping an *APIError.
func (e *APIError) Is(target error) bool {
	s, ok := target.(*sentinel)
	if !ok {
		return false
	}
	return s.match(e)
}

// sentinel is a class of APIError, matched by APIError.Is.
type sentinel struct {
	name  string // the exported variable, for GoString
	msg   string
	match func(*APIError) bool
}

func (s *sentinel) Error() string { return s.msg }

func codeSentinel(name string, code ErrorCode) *sentinel {
	return &sentinel{name: name, msg: "podqa: " + string(code), match: func(e *APIError) bool { return e.Code == code }}
}

// Sentinels for errors.Is. Each matches an *APIError by its code, except where stated, so
// that callers branch on the stable code and never on the message.
var (
	// ErrValidation matches validation_error (400): the request is malformed; fix it.
	ErrValidation error = codeSentinel("client.ErrValidation", CodeValidationError)
	// ErrInvalidAPIKey matches invalid_api_key (401): the key is missing, unknown or disabled.
	ErrInvalidAPIKey error = codeSentinel("client.ErrInvalidAPIKey", CodeInvalidAPIKey)
	// ErrInsufficientCredits matches insufficient_credits (402): nothing was created or charged.
	ErrInsufficientCredits error = codeSentinel("client.ErrInsufficientCredits", CodeInsufficientCredits)
	// ErrForbidden matches forbidden (403).
	ErrForbidden error = codeSentinel("client.ErrForbidden", CodeForbidden)
	// ErrPlanLimitReached matches plan_limit_reached (403): a plan cap blocks the action.
	ErrPlanLimitReached error = codeSentinel("client.ErrPlanLimitReached", CodePlanLimitReached)
	// ErrNotFound matches not_found (404): no such resource in this workspace.
	ErrNotFound error = codeSentinel("client.ErrNotFound", CodeNotFound)
	// ErrMethodNotAllowed matches method_not_allowed (405).
	ErrMethodNotAllowed error = codeSentinel("client.ErrMethodNotAllowed", CodeMethodNotAllowed)
	// ErrConflict matches conflict (409): the request was already carried out.
	ErrConflict error = codeSentinel("client.ErrConflict", CodeConflict)
	// ErrInternal matches internal_error (500).
	ErrInternal error = codeSentinel("client.ErrInternal", CodeInternalError)
	// ErrRateLimited matches the code rate_limited and any 429 response.
	ErrRateLimited error = &sentinel{name: "client.ErrRateLimited", msg: "podqa: rate_limited", match: func(e *APIError) bool {
		return e.Code == CodeRateLimited || e.StatusCode == http.StatusTooManyRequests
	}}
	// ErrUnavailable matches any 503 response, such as the plain-text refusal of the service's
	// front when a worker is at capacity (nothing was created or charged).
	ErrUnavailable error = &sentinel{name: "client.ErrUnavailable", msg: "podqa: service unavailable", match: func(e *APIError) bool {
		return e.StatusCode == http.StatusServiceUnavailable
	}}
	// ErrUnexpectedResponse matches an APIError without a code: a response that did not carry
	// the API's error object, such as a non-JSON 5xx or a success with the wrong content type.
	ErrUnexpectedResponse error = &sentinel{name: "client.ErrUnexpectedResponse", msg: "podqa: unexpected response", match: func(e *APIError) bool {
		return e.Code == ""
	}}
)

// maxRawBody bounds APIError.Body; maxErrorRead bounds what is read of an error response.
const (
	maxRawBody   = 64 << 10
	maxErrorRead = 1 << 20
)

// isJSON reports whether a Content-Type header names JSON (application/json or a +json type).
func isJSON(contentType string) bool {
	if contentType == "" {
		return false
	}
	// Fast path for the service's own header.
	if contentType == "application/json" || strings.HasPrefix(contentType, "application/json;") {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// codeForStatus is the code a flat webhook-subscription error stands for.
func codeForStatus(status int) ErrorCode {
	switch status {
	case http.StatusBadRequest:
		return CodeValidationError
	case http.StatusUnauthorized:
		return CodeInvalidAPIKey
	case http.StatusPaymentRequired:
		return CodeInsufficientCredits
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusConflict:
		return CodeConflict
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusInternalServerError:
		return CodeInternalError
	}
	return ""
}

// errorEnvelope reads both error forms: {"error": {"code", "message"}} from the REST API and
// {"error": "message"} from the webhook subscription calls.
type errorEnvelope struct {
	Error json.RawMessage `json:"error"`
}

type errorDetail struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
}

// parseError turns an error response into an *APIError. It never fails: whatever cannot be read
// as an error object is kept raw in Body.
func parseError(status int, header http.Header, body []byte, now time.Time) *APIError {
	e := &APIError{StatusCode: status, RetryAfter: parseRetryAfter(header.Get("Retry-After"), now)}
	if isJSON(header.Get("Content-Type")) {
		var env errorEnvelope
		if json.Unmarshal(body, &env) == nil {
			raw := bytes.TrimSpace(env.Error)
			switch {
			case len(raw) > 0 && raw[0] == '{':
				var d errorDetail
				if json.Unmarshal(raw, &d) == nil && d.Code != "" {
					e.Code, e.Message = d.Code, d.Message
					return e
				}
			case len(raw) > 0 && raw[0] == '"':
				var msg string
				if json.Unmarshal(raw, &msg) == nil {
					e.Code, e.Message = codeForStatus(status), msg
					if e.Code != "" {
						return e
					}
					// A flat error with a status that stands for no code: keep it raw too.
				}
			}
		}
	}
	e.Body = append([]byte{}, body[:min(len(body), maxRawBody)]...)
	if e.Message == "" {
		e.Message = plainMessage(status, header.Get("Content-Type"), body)
	}
	return e
}

// plainMessage is the message of a response without an error object: a short plain-text body
// such as "Service Unavailable" as it is, else the status text.
func plainMessage(status int, contentType string, body []byte) string {
	text := bytes.TrimSpace(body)
	if strings.HasPrefix(contentType, "text/plain") && len(text) > 0 && len(text) <= 200 && utf8.Valid(text) && !bytes.ContainsAny(text, "\r\n") {
		return string(text)
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "HTTP " + strconv.Itoa(status)
}

// parseRetryAfter reads a Retry-After header: whole seconds, or an HTTP date (relative to now).
// It returns 0 for an absent, negative or unreadable value.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Cap absurd values rather than overflowing time.Duration.
		return time.Duration(min(secs, int64(365*24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
