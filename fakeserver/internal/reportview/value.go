// Package reportview formats what a report holds for people: a check's value rounded with its
// unit (its full precision kept apart for a title attribute), an object value as labelled
// values, and a check's "why" that never reads "null dBFS meets the limit". The dashboard uses
// it; so can any other page of the fake that shows a report (the run report).
package reportview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Value is a check's value as a page shows it.
type Value struct {
	// Text is the value rounded (two decimals at most) with its unit, or the labelled values of
	// an object joined by commas.
	Text string
	// Full is the value as measured, unrounded, with its unit: for a title attribute.
	Full string
	// Fields are an object's (or a list's) labelled values, in the value's order; nil for a
	// plain value.
	Fields []Field
}

// Field is one labelled value of an object value.
type Field struct {
	Label string
	Text  string
	Full  string
}

// dBUnits are the units whose null value is −∞: the level of digital silence.
var dBUnits = map[string]bool{"LUFS": true, "dBFS": true, "dBTP": true, "dB": true, "LU": true}

// FormatValue formats a check's JSON value with its unit ("" for none). Malformed JSON is
// shown as it came, never dropped.
func FormatValue(raw json.RawMessage, unit string) Value {
	raw = bytes.TrimSpace(raw)
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(raw) == 0 || decodeOrdered(dec, &v) != nil {
		s := withUnit(string(raw), unit)
		return Value{Text: s, Full: s}
	}
	switch x := v.(type) {
	case nil:
		if dBUnits[unit] {
			s := "\u2212\u221e " + unit + " (digital silence)"
			return Value{Text: s, Full: s}
		}
		return Value{Text: "not measured", Full: "not measured"}
	case json.Number:
		return Value{Text: withUnit(Round(x), unit), Full: withUnit(x.String(), unit)}
	case ordered:
		fields := objectFields(x)
		return Value{Text: joinFields(fields), Full: compact(raw), Fields: fields}
	case []any:
		fields := listFields(x)
		text := "none"
		if len(x) > 0 {
			text = joinFields(fields)
		}
		return Value{Text: text, Full: compact(raw), Fields: fields}
	default:
		s := withUnit(scalar(x), unit)
		return Value{Text: s, Full: s}
	}
}

// Why says why a check passed or failed, in words a person reads: the warning of a failure,
// else the shown value against the limit, else the check's description.
func Why(shown Value, limit string, passed bool, warning, description string) string {
	switch {
	case !passed && warning != "":
		return warning
	case !passed && limit != "":
		return shown.Text + " is outside the limit " + limit + "."
	case !passed:
		return "The check failed."
	case limit != "":
		return shown.Text + " meets the limit " + limit + "."
	default:
		return description
	}
}

// Round is a number to two decimals at most, a whole number without any, and U+2212 for a
// negative sign (as the limits are written).
func Round(n json.Number) string {
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return n.String()
	}
	return Number(f)
}

// Number is f to two decimals at most, as Round.
func Number(f float64) string {
	if math.IsInf(f, -1) {
		return "\u2212\u221e"
	}
	if math.IsInf(f, 1) {
		return "\u221e"
	}
	s := strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
	if s == "-0" {
		s = "0"
	}
	return strings.Replace(s, "-", "\u2212", 1)
}

func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func joinFields(fs []Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		if f.Label == "" {
			parts[i] = f.Text
		} else {
			parts[i] = f.Label + " " + f.Text
		}
	}
	return strings.Join(parts, ", ")
}

// ordered is a JSON object with its keys in the order they came.
type ordered struct {
	keys []string
	vals []any
}

func (o ordered) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// fieldLabels and fieldUnits name the keys of the checks' object values (fakeserver/CHECKS.md).
var fieldLabels = map[string]string{
	"left_rms_db": "left RMS", "right_rms_db": "right RMS", "marked_explicit": "marked explicit",
	"color_model": "colour model", "file_size": "file size",
}

var fieldUnits = map[string]string{
	"left_rms_db": "dBFS", "right_rms_db": "dBFS", "width": "px", "height": "px", "file_size": "bytes",
}

func label(key string) string {
	if l, ok := fieldLabels[key]; ok {
		return l
	}
	return strings.ReplaceAll(key, "_", " ")
}

func objectFields(o ordered) []Field {
	fields := make([]Field, 0, len(o.keys))
	for i, k := range o.keys {
		f := field(label(k), o.vals[i], fieldUnits[k])
		if k == "present" { // whether there is a cover at all reads first
			fields = append([]Field{f}, fields...)
			continue
		}
		fields = append(fields, f)
	}
	return fields
}

func field(lbl string, v any, unit string) Field {
	switch x := v.(type) {
	case nil:
		if dBUnits[unit] {
			return Field{Label: lbl, Text: "\u2212\u221e " + unit, Full: "null"}
		}
		return Field{Label: lbl, Text: "not measured", Full: "null"}
	case json.Number:
		return Field{Label: lbl, Text: withUnit(Round(x), unit), Full: withUnit(x.String(), unit)}
	case ordered:
		fs := objectFields(x)
		return Field{Label: lbl, Text: joinFields(fs), Full: joinFields(fs)}
	case []any:
		fs := listFields(x)
		text := "none"
		if len(x) > 0 {
			text = joinFields(fs)
		}
		return Field{Label: lbl, Text: text, Full: text}
	default:
		s := scalar(x)
		return Field{Label: lbl, Text: s, Full: s}
	}
}

// listFields are a list's items: a word hit as its description and time, an expected phrase
// as the phrase and its count of hits, anything else as its own formatting.
func listFields(items []any) []Field {
	fields := make([]Field, 0, len(items))
	for _, it := range items {
		o, ok := it.(ordered)
		if !ok {
			fields = append(fields, field("", it, ""))
			continue
		}
		if phrase, ok := o.get("phrase"); ok {
			hits, _ := o.get("hits")
			n := 0
			if h, ok := hits.([]any); ok {
				n = len(h)
			}
			fields = append(fields, Field{Label: scalar(phrase), Text: Plural(n, "hit", "hits"), Full: Plural(n, "hit", "hits")})
			continue
		}
		if desc, ok := o.get("description"); ok {
			text := scalar(desc)
			if s, ok := o.get("start"); ok {
				if n, ok := s.(json.Number); ok {
					if ms, err := n.Float64(); err == nil {
						text += " at " + clock(ms)
					}
				}
			}
			fields = append(fields, Field{Text: text, Full: text})
			continue
		}
		fs := objectFields(o)
		fields = append(fields, Field{Text: joinFields(fs), Full: joinFields(fs)})
	}
	return fields
}

// clock is a time in milliseconds as m:ss.s.
func clock(ms float64) string {
	s := ms / 1000
	m := math.Floor(s / 60)
	return fmt.Sprintf("%d:%04.1f", int(m), s-m*60)
}

// Plural is n with the noun that agrees with it: "1 hit", "2 hits".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func scalar(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return x
	case json.Number:
		return Round(x)
	case nil:
		return "not measured"
	}
	return fmt.Sprint(v)
}

// maxDepth bounds the nesting a value may have: the checks' values nest three deep at most.
const maxDepth = 16

// decodeOrdered reads one JSON value, objects as ordered.
func decodeOrdered(dec *json.Decoder, out *any) error {
	v, err := readValue(dec, 0)
	if err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("reportview: trailing data after the value")
	}
	*out = v
	return nil
}

func readValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("reportview: value nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o ordered
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.keys, o.vals = append(o.keys, k), append(o.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("reportview: unexpected %v", t)
	default:
		return t, nil
	}
}
