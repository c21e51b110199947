package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podqa/podqa-go/internal/apitime"
	"github.com/podqa/podqa-go/internal/errval"
)

// FormatTime writes t in the service's fixed form, `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` (UTC,
// microseconds). Timestamps in that form compare correctly as strings, which is what a polling
// watermark needs.
func FormatTime(t time.Time) string { return apitime.Format(t) }

var jsonNull = []byte("null")

// Date is a calendar date without a time of day, such as an episode's published_on. The zero
// Date stands for null.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// IsZero reports whether d is the zero Date (null in JSON).
func (d Date) IsZero() bool { return d == Date{} }

// String writes d as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Time().Format(time.DateOnly)
}

// Time returns midnight UTC of d.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return jsonNull, nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// UnmarshalJSON reads "YYYY-MM-DD" or null.
func (d *Date) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, jsonNull) {
		*d = Date{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("podqa: date %s is not a JSON string", b)
	}
	t, err := time.Parse(time.DateOnly, string(b[1:len(b)-1]))
	if err != nil {
		return fmt.Errorf("podqa: date %s: %w", b, err)
	}
	*d = Date{t.Year(), t.Month(), t.Day()}
	return nil
}

// Decimal is a decimal number kept exactly as the service wrote it, such as a report's
// credits_charged ("370.00"). The empty Decimal stands for null.
type Decimal string

// Rat returns the exact value of d. It fails for the empty Decimal and for text that is not a
// decimal number.
func (d Decimal) Rat() (*big.Rat, error) {
	if d == "" {
		return nil, errors.New("podqa: empty decimal")
	}
	r, ok := new(big.Rat).SetString(string(d))
	if !ok {
		return nil, fmt.Errorf("podqa: %q is not a decimal number", string(d))
	}
	return r, nil
}

// Int64 returns d as an integer when it is one exactly ("370.00" is 370).
func (d Decimal) Int64() (int64, bool) {
	r, err := d.Rat()
	if err != nil || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// Float64 returns the nearest float64 to d; ok is false when d is empty or not a number.
func (d Decimal) Float64() (f float64, ok bool) {
	r, err := d.Rat()
	if err != nil {
		return 0, false
	}
	f, _ = r.Float64()
	return f, true
}

// MarshalJSON writes d as a JSON string, or null when empty.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return jsonNull, nil
	}
	return json.Marshal(string(d))
}

// UnmarshalJSON reads a JSON string, a JSON number (kept as written) or null.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	switch {
	case bytes.Equal(b, jsonNull):
		*d = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*d = Decimal(s)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("podqa: decimal %s: %w", b, err)
		}
		*d = Decimal(n)
	}
	return nil
}

// JSONValue is a JSON value whose type the service does not specify (the keys of file_info,
// metadata and cover_image). It keeps the raw JSON and offers typed readings.
type JSONValue struct {
	raw json.RawMessage
}

// Raw returns the value as JSON; nil when the key was absent.
func (v JSONValue) Raw() json.RawMessage { return v.raw }

// IsNull reports whether the value was JSON null or absent.
func (v JSONValue) IsNull() bool { return len(v.raw) == 0 || bytes.Equal(v.raw, jsonNull) }

// Text returns the value when it is a JSON string.
func (v JSONValue) Text() (string, bool) {
	if len(v.raw) == 0 || v.raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v.raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Float returns the value when it is a JSON number, or a JSON string holding a number.
func (v JSONValue) Float() (float64, bool) {
	if s, ok := v.Text(); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, err == nil
	}
	if len(v.raw) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v.raw), 64)
	return f, err == nil
}

// Int returns the value when it is an integral number (or a string holding one).
func (v JSONValue) Int() (int64, bool) {
	f, ok := v.Float()
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// MarshalJSON writes the raw value (null when absent).
func (v JSONValue) MarshalJSON() ([]byte, error) {
	if len(v.raw) == 0 {
		return jsonNull, nil
	}
	return v.raw, nil
}

// UnmarshalJSON keeps a copy of b.
func (v *JSONValue) UnmarshalJSON(b []byte) error {
	v.raw = bytes.Clone(b)
	return nil
}

// Limit is a check's limit read from its words (see ParseLimit). Bounds are inclusive.
type Limit struct {
	// Min and Max are the bounds; HasMin and HasMax say which exist.
	Min, Max       float64
	HasMin, HasMax bool
	// Unit is the unit that followed the number, such as "LUFS"; may be empty.
	Unit string
}

// Contains reports whether v is within l.
func (l Limit) Contains(v float64) bool {
	return (!l.HasMin || v >= l.Min) && (!l.HasMax || v <= l.Max)
}

// ErrLimitFormat is returned by ParseLimit for words it cannot read.
var ErrLimitFormat = errval.New("client.ErrLimitFormat", "podqa: limit not in a recognised form")

// ParseLimit reads the words of a result's limit, such as "between −17 and −15 LUFS" or
// "at most −1 dBTP". Negative numbers may use the Unicode minus sign U+2212, as the service
// writes them, or an ASCII hyphen. Recognised forms: "between A and B", "from A to B", "at
// most A", "up to A", "no more than A", "below A", "under A", "at least A", "no less than A",
// "above A", "over A", each optionally followed by a unit. Anything else is ErrLimitFormat:
// the service does not promise the wording, so treat a failure as "not machine-readable".
func ParseLimit(s string) (Limit, error) {
	words := strings.Fields(strings.ReplaceAll(s, "\u2212", "-"))
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(w)
	}
	fail := func() (Limit, error) { return Limit{}, fmt.Errorf("%w: %q", ErrLimitFormat, s) }
	unit := func(rest []string) (string, bool) {
		if len(rest) > 1 {
			return "", false
		}
		if len(rest) == 1 {
			return rest[0], true
		}
		return "", true
	}
	num := func(w string) (float64, bool) {
		f, err := strconv.ParseFloat(w, 64)
		return f, err == nil
	}
	prefixes := []struct {
		words []string
		isMax bool
	}{
		{[]string{"at", "most"}, true}, {[]string{"no", "more", "than"}, true}, {[]string{"up", "to"}, true},
		{[]string{"below"}, true}, {[]string{"under"}, true},
		{[]string{"at", "least"}, false}, {[]string{"no", "less", "than"}, false},
		{[]string{"above"}, false}, {[]string{"over"}, false},
	}
	if len(lower) >= 4 && (lower[0] == "between" && lower[2] == "and" || lower[0] == "from" && lower[2] == "to") {
		lo, ok1 := num(lower[1])
		hi, ok2 := num(lower[3])
		// "between -17 LUFS and -15 LUFS" is not accepted; the service writes the unit once.
		u, ok3 := unit(words[4:])
		if !ok1 || !ok2 || !ok3 {
			return fail()
		}
		return Limit{Min: min(lo, hi), Max: max(lo, hi), HasMin: true, HasMax: true, Unit: u}, nil
	}
	for _, p := range prefixes {
		n := len(p.words)
		if len(lower) <= n || !slices.Equal(lower[:n], p.words) {
			continue
		}
		v, ok := num(lower[n])
		u, ok2 := unit(words[n+1:])
		if !ok || !ok2 {
			return fail()
		}
		if p.isMax {
			return Limit{Max: v, HasMax: true, Unit: u}, nil
		}
		return Limit{Min: v, HasMin: true, Unit: u}, nil
	}
	return fail()
}
