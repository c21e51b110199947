package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseError(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		status     int
		ct         string
		retryAfter string
		body       string
		want       APIError
	}{
		{"REST envelope", 404, "application/json", "", `{"error":{"code":"not_found","message":"Not found."}}`,
			APIError{StatusCode: 404, Code: CodeNotFound, Message: "Not found."}},
		{"REST envelope with charset and extra fields", 400, "application/json; charset=utf-8", "", `{"error":{"code":"validation_error","message":"limit: must be at most 100","param":"limit"},"trace":"x"}`,
			APIError{StatusCode: 400, Code: CodeValidationError, Message: "limit: must be at most 100"}},
		{"unknown code kept", 418, "application/json", "", `{"error":{"code":"teapot","message":"short and stout"}}`,
			APIError{StatusCode: 418, Code: "teapot", Message: "short and stout"}},
		{"rate limited with Retry-After seconds", 429, "application/json", "42", `{"error":{"code":"rate_limited","message":"Rate limit exceeded."}}`,
			APIError{StatusCode: 429, Code: CodeRateLimited, Message: "Rate limit exceeded.", RetryAfter: 42 * time.Second}},
		{"Retry-After as an HTTP date", 429, "application/json", now.Add(90 * time.Second).Format(http.TimeFormat), `{"error":{"code":"rate_limited","message":"x"}}`,
			APIError{StatusCode: 429, Code: CodeRateLimited, Message: "x", RetryAfter: 90 * time.Second}},
		{"unreadable Retry-After ignored", 429, "application/json", "soon", `{"error":{"code":"rate_limited","message":"x"}}`,
			APIError{StatusCode: 429, Code: CodeRateLimited, Message: "x"}},
		{"flat webhook 400", 400, "application/json", "", `{"error":"A url is required"}`,
			APIError{StatusCode: 400, Code: CodeValidationError, Message: "A url is required"}},
		{"flat webhook 401", 401, "application/json", "", `{"error":"Invalid or missing API key."}`,
			APIError{StatusCode: 401, Code: CodeInvalidAPIKey, Message: "Invalid or missing API key."}},
		{"flat webhook 404", 404, "application/json", "", `{"error":"Not found"}`,
			APIError{StatusCode: 404, Code: CodeNotFound, Message: "Not found"}},
		{"flat webhook 405", 405, "application/json", "", `{"error":"Method not allowed"}`,
			APIError{StatusCode: 405, Code: CodeMethodNotAllowed, Message: "Method not allowed"}},
		{"flat webhook 409", 409, "application/json", "", `{"error":"Webhook limit reached (5 per workspace)"}`,
			APIError{StatusCode: 409, Code: CodeConflict, Message: "Webhook limit reached (5 per workspace)"}},
		{"flat webhook 429", 429, "application/json", "3600", `{"error":"Rate limit exceeded: 30 per hour"}`,
			APIError{StatusCode: 429, Code: CodeRateLimited, Message: "Rate limit exceeded: 30 per hour", RetryAfter: time.Hour}},
		{"plain-text 503 of the front", 503, "text/plain; charset=utf-8", "", "Service Unavailable",
			APIError{StatusCode: 503, Message: "Service Unavailable", Body: []byte("Service Unavailable")}},
		{"HTML 502", 502, "text/html", "", "<html><h1>502</h1></html>",
			APIError{StatusCode: 502, Message: "Bad Gateway", Body: []byte("<html><h1>502</h1></html>")}},
		{"JSON content type, body not JSON", 500, "application/json", "", "oops",
			APIError{StatusCode: 500, Message: "Internal Server Error", Body: []byte("oops")}},
		{"JSON without an error object", 500, "application/json", "", `{"detail":"x"}`,
			APIError{StatusCode: 500, Message: "Internal Server Error", Body: []byte(`{"detail":"x"}`)}},
		{"error object without a code", 500, "application/json", "", `{"error":{"message":"x"}}`,
			APIError{StatusCode: 500, Message: "Internal Server Error", Body: []byte(`{"error":{"message":"x"}}`)}},
		{"flat error with an unmapped status", 362, "application/json", "", `{"error":"odd"}`,
			APIError{StatusCode: 362, Message: "odd", Body: []byte(`{"error":"odd"}`)}},
		{"flat error, empty message, unmapped status", 362, "AppliCAtion/json", "0", `{"error":""}`,
			APIError{StatusCode: 362, Message: "HTTP 362", Body: []byte(`{"error":""}`)}},
		{"no content type", 503, "", "", "",
			APIError{StatusCode: 503, Message: "Service Unavailable", Body: []byte{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.ct != "" {
				h.Set("Content-Type", tt.ct)
			}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			got := parseError(tt.status, h, []byte(tt.body), now)
			if got.StatusCode != tt.want.StatusCode || got.Code != tt.want.Code || got.Message != tt.want.Message ||
				got.RetryAfter != tt.want.RetryAfter || string(got.Body) != string(tt.want.Body) || (got.Body == nil) != (tt.want.Body == nil) {
				t.Fatalf("parseError = %+v\nwant         %+v", *got, tt.want)
			}
		})
	}
}

func TestParseErrorTruncatesBody(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"text/html"}}
	got := parseError(502, h, []byte(strings.Repeat("x", maxRawBody+10)), time.Now())
	if len(got.Body) != maxRawBody {
		t.Fatalf("len(Body) = %d", len(got.Body))
	}
}

func TestAPIErrorIs(t *testing.T) {
	t.Parallel()
	sentinels := []error{ErrValidation, ErrInvalidAPIKey, ErrInsufficientCredits, ErrForbidden, ErrPlanLimitReached,
		ErrNotFound, ErrMethodNotAllowed, ErrConflict, ErrInternal, ErrRateLimited, ErrUnavailable, ErrUnexpectedResponse}
	tests := []struct {
		err  *APIError
		want []error
	}{
		{&APIError{StatusCode: 400, Code: CodeValidationError}, []error{ErrValidation}},
		{&APIError{StatusCode: 401, Code: CodeInvalidAPIKey}, []error{ErrInvalidAPIKey}},
		{&APIError{StatusCode: 402, Code: CodeInsufficientCredits}, []error{ErrInsufficientCredits}},
		{&APIError{StatusCode: 403, Code: CodeForbidden}, []error{ErrForbidden}},
		{&APIError{StatusCode: 403, Code: CodePlanLimitReached}, []error{ErrPlanLimitReached}},
		{&APIError{StatusCode: 404, Code: CodeNotFound}, []error{ErrNotFound}},
		{&APIError{StatusCode: 405, Code: CodeMethodNotAllowed}, []error{ErrMethodNotAllowed}},
		{&APIError{StatusCode: 409, Code: CodeConflict}, []error{ErrConflict}},
		{&APIError{StatusCode: 429, Code: CodeRateLimited}, []error{ErrRateLimited}},
		{&APIError{StatusCode: 429}, []error{ErrRateLimited, ErrUnexpectedResponse}},
		{&APIError{StatusCode: 500, Code: CodeInternalError}, []error{ErrInternal}},
		{&APIError{StatusCode: 503}, []error{ErrUnavailable, ErrUnexpectedResponse}},
		{&APIError{StatusCode: 200}, []error{ErrUnexpectedResponse}},
	}
	for _, tt := range tests {
		wrapped := errors.Join(errors.New("context"), tt.err)
		for _, s := range sentinels {
			want := false
			for _, w := range tt.want {
				want = want || w == s
			}
			if got := errors.Is(wrapped, s); got != want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, s, got, want)
			}
		}
	}
	if errors.Is(&APIError{StatusCode: 404, Code: CodeNotFound}, context.Canceled) {
		t.Error("an APIError matched context.Canceled")
	}
}

func TestAPIErrorMessage(t *testing.T) {
	t.Parallel()
	e := &APIError{StatusCode: 429, Code: CodeRateLimited, Message: "Rate limit exceeded.", RetryAfter: time.Minute, op: "GET /api/rest/v1/me"}
	if got, want := e.Error(), "podqa: GET /api/rest/v1/me: 429 rate_limited: Rate limit exceeded. (retry after 1m0s)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &APIError{StatusCode: 503, Message: "Service Unavailable", Body: []byte("Service Unavailable")}
	if got, want := e.Error(), "podqa: 503: Service Unavailable (19-byte non-API body)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// FuzzParseError feeds arbitrary statuses, headers and bodies to the error parser: it must never
// panic, and its result must keep its invariants.
func FuzzParseError(f *testing.F) {
	f.Add(404, "application/json", "", []byte(`{"error":{"code":"not_found","message":"Not found."}}`))
	f.Add(400, "application/json", "", []byte(`{"error":"A url is required"}`))
	f.Add(429, "application/json; charset=utf-8", "60", []byte(`{"error":{"code":"rate_limited","message":"x"}}`))
	f.Add(429, "application/json", "Mon, 05 Jan 2026 09:01:00 GMT", []byte(`{"error":"x"}`))
	f.Add(503, "text/plain; charset=utf-8", "", []byte("Service Unavailable"))
	f.Add(502, "text/html", "", []byte("<html></html>"))
	f.Add(500, "application/problem+json", "-1", []byte(`{"error":null}`))
	f.Add(500, "application/json", "99999999999999999999", []byte(`{"error":{"code":7}}`))
	f.Add(0, ";;", "", []byte{0xff, 0xfe})
	// Hostile Retry-After values (issue #19): zero, the most negative, a past date.
	f.Add(429, "application/json", "0", []byte(`{}`))
	f.Add(429, "application/json", "-9223372036854775808", []byte(`{}`))
	f.Add(503, "text/plain", "Wed, 01 Jan 2020 00:00:00 GMT", []byte(`x`))
	now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, status int, contentType, retryAfter string, body []byte) {
		h := http.Header{}
		h.Set("Content-Type", contentType)
		h.Set("Retry-After", retryAfter)
		e := parseError(status, h, body, now)
		if e == nil {
			t.Fatal("nil error")
		}
		if e.StatusCode != status {
			t.Fatalf("StatusCode = %d, want %d", e.StatusCode, status)
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter %v", e.RetryAfter)
		}
		if e.Code != "" && e.Body != nil {
			t.Fatalf("both a code and a raw body: %+v", e)
		}
		if e.Code == "" && (e.Body == nil || len(e.Body) > maxRawBody || string(e.Body) != string(body[:len(e.Body)])) {
			t.Fatalf("raw body not kept: %q", e.Body)
		}
		if e.Code != "" && !isJSON(contentType) {
			t.Fatalf("code %q parsed from a %q body", e.Code, contentType)
		}
		if e.Code == "" && e.Message == "" {
			t.Fatal("no message")
		}
		msg := e.Error()
		if !utf8.ValidString(e.Message) && e.Code == "" {
			t.Fatalf("invalid UTF-8 message %q", e.Message)
		}
		if !strings.HasPrefix(msg, "podqa: ") {
			t.Fatalf("Error() = %q", msg)
		}
		_ = errors.Is(e, ErrNotFound)
	})
}
