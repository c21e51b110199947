package runreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"
)

// MaxJSON is the most bytes the JSON document takes, whatever the run: counted after encoding,
// where a control byte costs 6 bytes (\u0001) and a quote 2. Each section has a share of it
// (jsonBudgets); a row that does not fit its section's share is left out and counted in
// Bounds.Omitted, and each long text of a row is cut to its own share with a marker.
const MaxJSON = 64 << 20

// The shares of MaxJSON, in encoded bytes. jsonShell bounds the rest (the run's head, the
// clock's mode, the summary's counts by status and the bounds), which does not grow with the
// run: its maps are keyed by the few statuses there are.
const (
	jsonFailures   = 2 << 20
	jsonEndpointsS = 512 << 10 // the summary's rows of endpoints
	jsonWorkspaces = 1 << 20
	jsonReports    = 32 << 20
	jsonEndpoints  = 6 << 20 // the endpoints with their deliveries
	jsonEmails     = 2 << 20
	jsonJournal    = 16 << 20
	jsonArmed      = 512 << 10
	jsonFired      = 1 << 20
	jsonMoves      = 1 << 20
	jsonShell      = 1 << 20
	jsonBudgeted   = jsonFailures + jsonEndpointsS + jsonWorkspaces + jsonReports + jsonEndpoints + jsonEmails + jsonJournal + jsonArmed + jsonFired + jsonMoves
)

// The shares of one text in the JSON document, in encoded bytes: a request's body as the
// HTML page shows it (the request's own entry, GET /_fake/requests/{id}, keeps what the journal
// kept), paths and queries, reasons and messages, names and values.
const (
	textBody   = 1 << 10
	textPath   = 1 << 10
	textReason = 4 << 10
	textLine   = 1 << 10
	textName   = 512
	textShort  = 256
)

// cutMarker ends a text cut to its share.
const cutMarker = " … [cut by the run report: %d more bytes]"

// encodedLen is how many bytes s takes as a JSON string's content, as encoding/json writes it
// (HTML-safe: <, > and & as \u003c…; invalid UTF-8 as \ufffd). \b and \f are counted at 6
// bytes, the most any Go release writes them in.
func encodedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := runeCost(s, i)
		n += w
		i += size
	}
	return n
}

// runeCost is the encoded bytes and the length in s of the character at s[i].
func runeCost(s string, i int) (w, size int) {
	c := s[i]
	if c < utf8.RuneSelf {
		switch {
		case c == '"', c == '\\', c == '\n', c == '\r', c == '\t':
			return 2, 1
		case c < 0x20, c == '<', c == '>', c == '&':
			return 6, 1
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
		return 6, size
	}
	return size, size
}

// cutText shortens s so that it takes at most limit bytes as JSON, marker included, at a
// character boundary; it says whether it cut. It reads at most about limit bytes of s.
func cutText(s string, limit int) (string, bool) {
	if len(s) <= limit/6 {
		return s, false // even at 6 bytes a byte it fits
	}
	room := limit - len(cutMarker) - 8 // the marker with its count, ASCII
	n, cutAt := 0, -1
	for i := 0; i < len(s); {
		w, size := runeCost(s, i)
		if cutAt < 0 && n+w > room {
			cutAt = i
		}
		if n += w; n > limit {
			return s[:cutAt] + fmt.Sprintf(cutMarker, len(s)-cutAt), true
		}
		i += size
	}
	return s, false
}

// cutter cuts the texts of rows to their shares and counts what it cut.
type cutter struct{ cut int }

func (c *cutter) text(s *string, limit int) {
	var did bool
	if *s, did = cutText(*s, limit); did {
		c.cut++
	}
}

func (c *cutter) event(e Event) Event {
	c.text(&e.Message, textLine)
	c.text(&e.Kind, textShort)
	attrs := make([]Attr, len(e.Attrs))
	for i, a := range e.Attrs {
		c.text(&a.Key, textShort)
		c.text(&a.Value, textLine)
		attrs[i] = a
	}
	e.Attrs = attrs
	return e
}

func (c *cutter) report(r Report) Report {
	c.text(&r.Name, textName)
	c.text(&r.Failure, textReason)
	c.text(&r.Source, textShort)
	r.Timeline = slices.Clone(r.Timeline)
	for i := range r.Timeline {
		c.text(&r.Timeline[i].Reason, textLine)
	}
	r.Checks = slices.Clone(r.Checks)
	for i := range r.Checks {
		ch := &r.Checks[i]
		c.text(&ch.Name, textShort)
		c.text(&ch.Value, textShort)
		c.text(&ch.Limit, textShort)
		c.text(&ch.Why, textLine)
	}
	if r.Measured != nil {
		m := *r.Measured
		c.text(&m.Format, textShort)
		c.text(&m.Codec, textShort)
		r.Measured = &m
	}
	if r.Verdict != nil {
		v := *r.Verdict
		c.text(&v.Standard, textName)
		r.Verdict = &v
	}
	return r
}

func (c *cutter) delivery(d Delivery) Delivery {
	c.text(&d.LastError, textLine)
	c.text(&d.EventType, textShort)
	d.AttemptLog = slices.Clone(d.AttemptLog)
	for i := range d.AttemptLog {
		d.AttemptLog[i] = c.event(d.AttemptLog[i])
	}
	return d
}

func (c *cutter) request(e JournalEntry) JournalEntry {
	c.text(&e.Path, textPath)
	c.text(&e.Query, textPath)
	c.text(&e.RequestContentType, textShort)
	c.text(&e.RequestBody, textBody)
	c.text(&e.ErrorCode, textShort)
	c.text(&e.MaskedKey, textShort)
	return e
}

func (c *cutter) failure(f Failure) Failure {
	c.text(&f.Name, textName)
	c.text(&f.Status, textShort)
	c.text(&f.Reason, textLine)
	return f
}

// rows encodes the items of one section within budget bytes (each row's bytes and its comma):
// it tries them in the order of priority (nil: newest first), keeps each that still fits, and
// returns the kept rows in the items' own order with the number left out.
func rows[T any](items []T, budget int, priority []int, prep func(T) T) ([][]byte, int, error) {
	if priority == nil {
		priority = make([]int, len(items))
		for i := range priority {
			priority[i] = len(items) - 1 - i
		}
	}
	kept := make([][]byte, len(items))
	used, omitted := 0, 0
	for _, i := range priority {
		b, err := json.Marshal(prep(items[i]))
		if err != nil {
			return nil, 0, err
		}
		if used+len(b)+1 > budget {
			omitted++
			continue
		}
		used += len(b) + 1
		kept[i] = b
	}
	out := kept[:0]
	for _, b := range kept {
		if b != nil {
			out = append(out, b)
		}
	}
	return out, omitted, nil
}

// reportPriority is the order in which reports take the reports' share: the failing ones
// (FAILED, OUT_OF_QUOTA, COMPLETE and not passed) first, then the others, newest first.
func reportPriority(reports []Report) []int {
	out := make([]int, 0, len(reports))
	for pass := range 2 {
		for i := len(reports) - 1; i >= 0; i-- {
			if failing(&reports[i]) == (pass == 0) {
				out = append(out, i)
			}
		}
	}
	return out
}

// inOrder is the priority that keeps a section's first rows: the summary's failures, whose
// order is their importance.
func inOrder(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// jsonWriter writes a document of pieces, keeping the first error.
type jsonWriter struct {
	w   io.Writer
	err error
}

func (w *jsonWriter) raw(s string) {
	if w.err == nil {
		_, w.err = io.WriteString(w.w, s)
	}
}

func (w *jsonWriter) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// value writes `"key":value` (with a comma before it unless first).
func (w *jsonWriter) field(first bool, key string, v any) {
	if !first {
		w.raw(",")
	}
	w.raw(`"` + key + `":`)
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return
	}
	w.bytes(b)
}

// array writes `"key":[rows…]` (with a comma before it unless first).
func (w *jsonWriter) array(first bool, key string, rs [][]byte) {
	if !first {
		w.raw(",")
	}
	w.raw(`"` + key + `":[`)
	w.bytes(bytes.Join(rs, []byte(",")))
	w.raw("]")
}

// WriteJSON writes r as the report's JSON document, one object and a newline, in at most
// MaxJSON bytes: each section within its share (the rows left out counted in "bounds"), each
// long text cut to its share with a marker. r itself is not changed.
func WriteJSON(w io.Writer, r *Run) error {
	var c cutter
	var om Omitted
	var err error
	section := func(dst *[][]byte, omitted *int, f func() ([][]byte, int, error)) {
		if err == nil {
			*dst, *omitted, err = f()
		}
	}
	var failures, endpointSums, workspaces, reports, emails, journal, armed, fired, moves [][]byte
	section(&failures, &om.Failures, func() ([][]byte, int, error) {
		return rows(r.Summary.Failures, jsonFailures, inOrder(len(r.Summary.Failures)), c.failure)
	})
	section(&endpointSums, &om.EndpointSums, func() ([][]byte, int, error) {
		return rows(r.Summary.Endpoints, jsonEndpointsS, inOrder(len(r.Summary.Endpoints)), func(e EndpointSummary) EndpointSummary {
			c.text(&e.URL, textPath)
			c.text(&e.CommonError, textLine)
			return e
		})
	})
	section(&workspaces, &om.Workspaces, func() ([][]byte, int, error) {
		return rows(r.Workspaces, jsonWorkspaces, inOrder(len(r.Workspaces)), func(ws Workspace) Workspace {
			c.text(&ws.Name, textName)
			return ws
		})
	})
	section(&reports, &om.Reports, func() ([][]byte, int, error) {
		return rows(r.Reports, jsonReports, reportPriority(r.Reports), c.report)
	})
	section(&emails, &om.Emails, func() ([][]byte, int, error) {
		return rows(r.Emails, jsonEmails, nil, func(e Email) Email {
			c.text(&e.Subject, textName)
			c.text(&e.Text, textReason)
			return e
		})
	})
	section(&journal, &om.Journal, func() ([][]byte, int, error) { return rows(r.Journal.Entries, jsonJournal, nil, c.request) })
	section(&armed, &om.FaultsArmed, func() ([][]byte, int, error) {
		return rows(r.Faults.Armed, jsonArmed, nil, func(f ArmedFault) ArmedFault { return f })
	})
	section(&fired, &om.FaultsFired, func() ([][]byte, int, error) { return rows(r.Faults.Fired, jsonFired, nil, c.event) })
	section(&moves, &om.ClockMoves, func() ([][]byte, int, error) { return rows(r.Clock.Moves, jsonMoves, nil, c.event) })
	if err != nil {
		return err
	}
	endpoints, err := endpointRows(r.Endpoints, &c, &om)
	if err != nil {
		return err
	}

	jw := &jsonWriter{w: w}
	jw.raw("{")
	jw.field(true, "format", r.Format)
	jw.field(false, "run_id", r.RunID)
	jw.field(false, "reason", r.Reason)
	jw.field(false, "written_at", r.WrittenAt)
	base := r.BaseURL
	c.text(&base, textPath)
	jw.field(false, "base_url", base)
	jw.raw(`,"clock":{`)
	jw.field(true, "mode", r.Clock.Mode)
	jw.field(false, "now", r.Clock.Now)
	jw.array(false, "moves", moves)
	jw.raw(`},"summary":{`)
	jw.array(true, "failures", failures)
	jw.array(false, "webhook_endpoints", endpointSums)
	s := r.Summary
	jw.field(false, "reports", s.Reports)
	jw.field(false, "reports_by_status", orEmptyMap(s.ReportsByStatus))
	jw.field(false, "deliveries", s.Deliveries)
	jw.field(false, "deliveries_by_status", orEmptyMap(s.DeliveriesByStatus))
	jw.field(false, "requests", s.Requests)
	jw.field(false, "requests_by_status", orEmptyMap(s.RequestsByStatus))
	jw.field(false, "emails", s.Emails)
	jw.field(false, "faults_fired", s.FaultsFired)
	jw.field(false, "clock_moves", s.ClockMoves)
	jw.raw("}")
	jw.array(false, "workspaces", workspaces)
	jw.array(false, "reports", reports)
	jw.array(false, "webhook_endpoints", endpoints)
	jw.array(false, "emails", emails)
	jw.raw(`,"journal":{`)
	jw.field(true, "size", r.Journal.Size)
	jw.field(false, "body_limit", r.Journal.BodyLimit)
	jw.array(false, "entries", journal)
	jw.raw(`},"faults":{`)
	jw.array(true, "armed", armed)
	jw.array(false, "fired", fired)
	jw.raw("}")
	jw.field(false, "bounds", Bounds{MaxBytes: MaxJSON, Omitted: om, TextsCut: c.cut})
	jw.raw("}\n")
	return jw.err
}

// endpointRows encodes the endpoints with their deliveries within the endpoints' share: each
// endpoint's head first (in order, within a quarter of the share), then the deliveries newest
// first across all endpoints as the rest of the share allows.
func endpointRows(eps []Endpoint, c *cutter, om *Omitted) ([][]byte, error) {
	type keptEndpoint struct {
		ep   Endpoint
		head []byte
		ds   [][]byte
	}
	var ks []keptEndpoint
	used := 0
	for _, ep := range eps {
		h := ep
		c.text(&h.URL, textPath)
		h.Deliveries = nil
		b, err := json.Marshal(h)
		if err != nil {
			return nil, err
		}
		if used+len(b)+3 > jsonEndpoints/4 {
			om.Endpoints++
			om.Deliveries += len(ep.Deliveries)
			continue
		}
		used += len(b) + 3
		ks = append(ks, keptEndpoint{ep: ep, head: b, ds: make([][]byte, len(ep.Deliveries))})
	}
	type ref struct{ ep, d int }
	var all []ref
	for i, k := range ks {
		for j := range k.ep.Deliveries {
			all = append(all, ref{i, j})
		}
	}
	at := func(r ref) time.Time { return ks[r.ep].ep.Deliveries[r.d].CreatedAt }
	slices.SortStableFunc(all, func(a, b ref) int { return at(b).Compare(at(a)) }) // newest first
	for _, rf := range all {
		b, err := json.Marshal(c.delivery(ks[rf.ep].ep.Deliveries[rf.d]))
		if err != nil {
			return nil, err
		}
		if used+len(b)+1 > jsonEndpoints {
			om.Deliveries++
			continue
		}
		used += len(b) + 1
		ks[rf.ep].ds[rf.d] = b
	}
	out := make([][]byte, len(ks))
	for i, k := range ks {
		ds := slices.DeleteFunc(k.ds, func(b []byte) bool { return b == nil })
		// The head ends in "deliveries":null}; the kept deliveries go there.
		row := append(slices.Clip(bytes.TrimSuffix(k.head, []byte("null}"))), '[')
		row = append(row, bytes.Join(ds, []byte(","))...)
		out[i] = append(row, "]}"...)
	}
	return out, nil
}

func orEmptyMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}
