package fakeserver

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// specErrorTable is the error table of rest-api.md ("Errors"): code and status.
var specErrorTable = map[string]int{
	"validation_error":     400,
	"invalid_api_key":      401,
	"insufficient_credits": 402,
	"forbidden":            403,
	"plan_limit_reached":   403,
	"not_found":            404,
	"method_not_allowed":   405,
	"conflict":             409,
	"rate_limited":         429,
	"internal_error":       500,
}

// TestSpecErrorTableIsTheSpecs reads the table from the specification beside the module, where
// it is (CI always has it), so that specErrorTable cannot drift from it.
func TestSpecErrorTableIsTheSpecs(t *testing.T) {
	t.Parallel()
	spec, err := os.ReadFile("../../shared/spec/rest-api.md")
	if errors.Is(err, os.ErrNotExist) {
		t.Log("../../shared/spec/rest-api.md is not beside the module; the table in this test stands for it")
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d{3}) \| ([a-z_]+) \|`).FindAllSubmatch(spec, -1) {
		status, _ := strconv.Atoi(string(m[1]))
		got[string(m[2])] = status
	}
	if diff := cmp.Diff(specErrorTable, got); diff != "" {
		t.Errorf("the specification's error table (-this test, +spec):\n%s", diff)
	}
}

// TestEveryCoreCodeHasItsStatus: every Code constant of the core is in statusOfCode, at the
// spec's status when the spec names the code; the fake's own codes at the status they stand for.
func TestEveryCoreCodeHasItsStatus(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir("internal/core")
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{} // constant name → value
	for _, entry := range entries {
		name := entry.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("internal/core", name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if i >= len(vs.Values) || !strings.HasPrefix(name.Name, "Code") {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					codes[name.Name], _ = strconv.Unquote(lit.Value)
				}
			}
			return true
		})
	}
	if len(codes) < 10 {
		t.Fatalf("found only %d Code constants in the core: %v", len(codes), codes)
	}
	own := map[string]int{core.CodeInsufficientStorage: http.StatusInsufficientStorage}
	for name, code := range codes {
		status, ok := httpmw.StatusTable()[code]
		if !ok {
			t.Errorf("core.%s (%q) has no status in statusOfCode", name, code)
			continue
		}
		want, inSpec := specErrorTable[code]
		if !inSpec {
			want, inSpec = own[code]
		}
		if !inSpec {
			t.Errorf("core.%s (%q) is neither in the spec's table nor one of the fake's own codes", name, code)
		} else if status != want {
			t.Errorf("core.%s (%q) answers %d, want %d", name, code, status, want)
		}
	}
	if len(httpmw.StatusTable()) != len(codes) {
		t.Errorf("statusOfCode has %d codes, the core %d", len(httpmw.StatusTable()), len(codes))
	}
}

func TestAsError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"a core refusal", core.ErrNotFound("Series"), &Error{Status: 404, Code: "not_found", Message: "Series not found."}},
		{"a rate limit keeps its wait", &core.Error{Code: core.CodeRateLimited, Message: "slow down", RetryAfter: 30},
			&Error{Status: 429, Code: "rate_limited", Message: "slow down", RetryAfter: 30 * time.Second}},
		{"a wrapped core refusal", errors.Join(errors.New("context"), core.ErrValidation("bad")), &Error{Status: 400, Code: "validation_error", Message: "bad"}},
		{"the adapter's own", httpmw.ErrMethodNotAllowed("no"), &Error{Status: 405, Code: "method_not_allowed", Message: "no"}},
		{"anything else is internal", errors.New("disk on fire"), &Error{Status: 500, Code: "internal_error", Message: "Internal error."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, asError(tt.err)); diff != "" {
				t.Errorf("asError (-want +got):\n%s", diff)
			}
		})
	}
	// The Go API returns the same type.
	srv, _ := NewTest(t)
	err := srv.SetAutomatedReporting("3d6f0a2e-8b41-4c7d-9e15-2f4a6b8c0d1e", true)
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusNotFound || e.Code != core.CodeNotFound {
		t.Errorf("SetAutomatedReporting on no series = %#v, want a 404 *Error", err)
	}
}
