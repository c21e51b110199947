// Package errvaltest checks that every exported error variable of a package prints its meaning.
package errvaltest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ExportedErrVars returns the names of the exported package-level error variables declared in
// the non-test Go files of dir: those named Err…, declared with type error, or made by
// errors.New, fmt.Errorf or errval.New.
func ExportedErrVars(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.IsExported() && (strings.HasPrefix(n.Name, "Err") || isErrorSpec(vs, i)) {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// Check fails t unless vars (name → value) lists exactly the exported Err… variables declared in
// dir, and each prints its message with %v, %s and %+v and its qualified name pkg.Name with %#v,
// with no trace of the carrying type's internals (pointers, functions, struct syntax).
func Check(t *testing.T, dir, pkg string, vars map[string]error) {
	t.Helper()
	declared := ExportedErrVars(t, dir)
	listed := slices.Sorted(maps.Keys(vars))
	if !slices.Equal(declared, listed) {
		t.Fatalf("the table lists %v but the package declares %v: add the new error values to the table", listed, declared)
	}
	for _, name := range listed {
		err := vars[name]
		t.Run(name, func(t *testing.T) {
			msg := err.Error()
			if !strings.Contains(msg, ": ") || len(msg) < 10 {
				t.Errorf("Error() = %q: want a prefixed message that says what went wrong", msg)
			}
			for _, c := range []struct{ verb, want string }{
				{"%v", msg},
				{"%s", msg},
				{"%+v", msg},
				{"%#v", pkg + "." + name},
			} {
				got := fmt.Sprintf(c.verb, err)
				if got != c.want {
					t.Errorf("Sprintf(%q) = %q, want %q", c.verb, got, c.want)
				}
				for _, bad := range []string{"0x", "func", "&", "{", "errorString", "sentinel"} {
					if strings.Contains(got, bad) {
						t.Errorf("Sprintf(%q) = %q shows internals (%q)", c.verb, got, bad)
					}
				}
			}
			// Wrapped, the value still prints its meaning in the chain.
			if got := fmt.Sprintf("%v", fmt.Errorf("doing x: %w", err)); got != "doing x: "+msg {
				t.Errorf("wrapped: %q", got)
			}
		})
	}
}

// isErrorSpec reports whether the i-th name of vs is declared as an error: with type error, or
// initialised by errors.New, fmt.Errorf or errval.New.
func isErrorSpec(vs *ast.ValueSpec, i int) bool {
	if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "error" {
		return true
	}
	if i >= len(vs.Values) {
		return false
	}
	call, ok := vs.Values[i].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name + "." + sel.Sel.Name {
	case "errors.New", "fmt.Errorf", "errval.New":
		return true
	}
	return false
}
