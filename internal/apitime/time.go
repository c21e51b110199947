package apitime

import (
	"bytes"
	"encoding/json"
	"time"
)

// Time is an instant that reads and writes itself in the service's forms: JSON in the fixed
// form, query parameters leniently (see ParseLenient). The fake's generated models use it for
// every date-time so that no response can carry another form.
type Time struct {
	time.Time
}

// At wraps t.
func At(t time.Time) Time { return Time{t.UTC()} }

// Ptr wraps t and returns a pointer, for optional fields; the zero time gives nil.
func Ptr(t time.Time) *Time {
	if t.IsZero() {
		return nil
	}
	v := At(t)
	return &v
}

// MarshalJSON writes the fixed form.
func (t Time) MarshalJSON() ([]byte, error) {
	// The fixed form holds no character JSON escapes, so quoting is enough.
	b := make([]byte, 0, len(Layout)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, Layout)
	return append(b, '"'), nil
}

// UnmarshalJSON reads any RFC 3339 instant.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// MarshalText writes the fixed form.
func (t Time) MarshalText() ([]byte, error) { return []byte(Format(t.Time)), nil }

// UnmarshalText reads a date-time leniently, as query parameters may carry it.
func (t *Time) UnmarshalText(b []byte) error {
	v, err := ParseLenient(string(b))
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// Bind reads a query or path parameter leniently; the generated server's parameter binding
// calls it.
func (t *Time) Bind(s string) error { return t.UnmarshalText([]byte(s)) }

// String returns the fixed form.
func (t Time) String() string { return Format(t.Time) }
