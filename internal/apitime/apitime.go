// Package apitime formats and parses the service's timestamps.
//
// The service writes every instant in one fixed form, `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` (UTC,
// microseconds, explicit +00:00), so that timestamps compare correctly as strings. Query
// parameters are more lenient: any RFC 3339 offset, `Z`, or no offset at all (read as UTC).
package apitime

import (
	"errors"
	"time"
)

// Layout is the fixed form of every timestamp the service writes.
const Layout = "2006-01-02T15:04:05.000000+00:00"

// DateLayout is the form of plain dates such as published_on.
const DateLayout = time.DateOnly

// Format writes t in the fixed form, in UTC, truncated to microseconds.
func Format(t time.Time) string {
	return t.UTC().Format(Layout)
}

// ErrInvalid is returned for a timestamp in none of the accepted forms.
var ErrInvalid = errors.New("not an ISO-8601 date-time")

// lenientLayouts are tried in order by ParseLenient.
var lenientLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
}

// ParseLenient reads a date-time as query parameters may carry it: with an offset, with `Z`, or
// with none (then UTC). The result is in UTC.
func ParseLenient(s string) (time.Time, error) {
	for _, layout := range lenientLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, ErrInvalid
}

// Parse reads a timestamp the service wrote; it accepts any RFC 3339 form, the fixed form
// included.
func Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, ErrInvalid
	}
	return t.UTC(), nil
}
