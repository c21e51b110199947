package graphqlclient

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/podqa/podqa-go/client"
)

// Error is a GraphQL answer that carried an errors array: the service ran (or refused to run)
// the query and said why per entry. HTTP failures are not Errors but the *client.APIError of
// package client. Read it with errors.As; errors.Is matches the client.Err* sentinels of the
// codes its entries carry (client.ErrInvalidAPIKey, client.ErrNotFound, client.ErrValidation,
// client.ErrInternal).
type Error struct {
	// Op is the operation, such as "GetReport".
	Op string
	// StatusCode is the HTTP status of the answer: 200 when the query ran, and also when the
	// server refused it before running (a query that does not validate) and answered
	// application/json as GraphQL over HTTP has it; 4xx for such a refusal answered as
	// application/graphql-response+json, or by servers that answer 422. Read the entries'
	// codes rather than the status.
	StatusCode int
	// Errors are the entries of the errors array, in order.
	Errors []ErrorEntry
}

// ErrorEntry is one entry of a GraphQL errors array.
type ErrorEntry struct {
	// Message is the human-readable explanation. It can change; do not branch on it.
	Message string `json:"message"`
	// Path names the field that failed, such as ["report"]; empty for a whole-query problem.
	Path []any `json:"path,omitempty"`
	// Code is extensions.code when the service gave one, such as "not_found".
	Code string `json:"-"`
	// Extensions holds the entry's extensions as sent.
	Extensions map[string]any `json:"extensions,omitempty"`
}

// UnmarshalJSON reads an entry and lifts extensions.code into Code.
func (e *ErrorEntry) UnmarshalJSON(b []byte) error {
	type plain ErrorEntry
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = ErrorEntry(p)
	if code, ok := e.Extensions["code"].(string); ok {
		e.Code = code
	}
	return nil
}

// Error describes the failure: the operation and every entry's message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("podqa: GraphQL ")
	b.WriteString(e.Op)
	if e.StatusCode != 0 && e.StatusCode != 200 {
		b.WriteString(" (HTTP " + strconv.Itoa(e.StatusCode) + ")")
	}
	b.WriteString(":")
	for i, entry := range e.Errors {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteByte(' ')
		if len(entry.Path) > 0 {
			var parts []string
			for _, p := range entry.Path {
				switch v := p.(type) {
				case string:
					parts = append(parts, v)
				case float64:
					parts = append(parts, strconv.FormatFloat(v, 'f', -1, 64))
				}
			}
			b.WriteString(strings.Join(parts, ".") + ": ")
		}
		b.WriteString(entry.Message)
		if entry.Code != "" {
			b.WriteString(" (" + entry.Code + ")")
		}
	}
	return b.String()
}

// HasCode reports whether any entry carries code.
func (e *Error) HasCode(code client.ErrorCode) bool {
	for _, entry := range e.Errors {
		if entry.Code == string(code) {
			return true
		}
	}
	return false
}

// sentinelCodes maps the client sentinels an Error can match to the code they stand for.
var sentinelCodes = []struct {
	target error
	code   client.ErrorCode
}{
	{client.ErrInvalidAPIKey, client.CodeInvalidAPIKey},
	{client.ErrNotFound, client.CodeNotFound},
	{client.ErrValidation, client.CodeValidationError},
	{client.ErrInternal, client.CodeInternalError},
}

// Is lets errors.Is match an Error against the client.Err* sentinels of its entries' codes.
func (e *Error) Is(target error) bool {
	for _, s := range sentinelCodes {
		if s.target == target && e.HasCode(s.code) {
			return true
		}
	}
	return false
}
