package drift

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Class says what a difference means for a v1 client.
type Class string

const (
	// Additive is the service having grown: a new operation, field, optional parameter or enum
	// value. A v1 client keeps working; the fake should learn it.
	Additive Class = "additive"
	// Breaking is a difference that would break a v1 client: something removed, a type
	// changed, a parameter made required, a field missing from an answer.
	Breaking Class = "breaking"
)

// Surfaces and sources of a Difference.
const (
	SurfaceREST    = "rest"
	SurfaceGraphQL = "graphql"
	// SourceContract is a difference between the contract documents (openapi.json,
	// schema.graphql).
	SourceContract = "contract"
	// SourceAnswer is a difference between a live answer and the fake's contract.
	SourceAnswer = "answer"
)

// Difference is one way the service differs from the fake.
type Difference struct {
	Class Class `json:"class"`
	// Surface is SurfaceREST or SurfaceGraphQL; Source is SourceContract or SourceAnswer.
	Surface string `json:"surface"`
	Source  string `json:"source"`
	// Where is the operation (GET /reports/{report_id}) or the GraphQL type or operation.
	Where string `json:"where"`
	// Path is the place inside it: a parameter, a response's JSON path (200 body.stats.passes),
	// a field or enum value; empty for the whole of Where.
	Path string `json:"path,omitempty"`
	// Change says what differs, such as "field added" or "type changed".
	Change string `json:"change"`
	// Detail gives the values, such as "fake integer, live string".
	Detail string `json:"detail,omitempty"`
}

// Report is the outcome of a Check.
type Report struct {
	// BaseURL is the service checked.
	BaseURL string `json:"base_url"`
	// WithKey is true when answers to read-only calls were checked too.
	WithKey bool `json:"with_key"`
	// Checked lists what was compared: the documents and each call made.
	Checked []string `json:"checked"`
	// Differences are every difference found, breaking first.
	Differences []Difference `json:"differences"`
	// Additive and Breaking count Differences by class.
	Additive int `json:"additive"`
	Breaking int `json:"breaking"`
}

// Drifted reports whether the service differs from the fake in any way.
func (r *Report) Drifted() bool { return len(r.Differences) > 0 }

// finish sorts and counts the differences, each once.
func (r *Report) finish() {
	slices.SortFunc(r.Differences, func(a, b Difference) int {
		return cmp.Or(cmp.Compare(classRank(a.Class), classRank(b.Class)), cmp.Compare(a.Surface, b.Surface), cmp.Compare(a.Source, b.Source),
			cmp.Compare(a.Where, b.Where), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Change, b.Change), cmp.Compare(a.Detail, b.Detail))
	})
	r.Differences = slices.Compact(r.Differences)
	if r.Differences == nil {
		r.Differences = []Difference{}
	}
	r.Additive, r.Breaking = 0, 0
	for _, d := range r.Differences {
		if d.Class == Breaking {
			r.Breaking++
		} else {
			r.Additive++
		}
	}
}

func classRank(c Class) int {
	if c == Breaking {
		return 0
	}
	return 1
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the report as a table a person reads: a line per difference, then the
// counts.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "drift of %s against the fake's contracts", r.BaseURL)
	if r.WithKey {
		b.WriteString(" (contracts and answers)")
	} else {
		b.WriteString(" (contracts only; give -api-key to check answers too)")
	}
	b.WriteString("\n\n")
	if len(r.Differences) == 0 {
		b.WriteString("no differences: the fake is still the service\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tSURFACE\tSOURCE\tWHERE\tPATH\tCHANGE\tDETAIL")
	for _, d := range r.Differences {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Class, d.Surface, d.Source, d.Where, orDash(d.Path), d.Change, orDash(d.Detail))
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "\n%d breaking, %d additive\n", r.Breaking, r.Additive)
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
