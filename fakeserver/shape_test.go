package fakeserver

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSurfacesImportNoSurface holds the packages below the facade to DESIGN.md's shape: no
// package below imports the facade, and no HTTP surface or cross-cutting concern imports another
// (each stands on the core and the packages every surface shares).
func TestSurfacesImportNoSurface(t *testing.T) {
	t.Parallel()
	const module = "github.com/podqa/podqa-go/fakeserver"
	surfaces := []string{"rest", "graphqlapi", "control", "journal", "faults", "dashboard"}
	below := append([]string{"views", "httpmw", "openapicheck"}, surfaces...)
	for _, pkg := range below {
		t.Run(pkg, func(t *testing.T) {
			t.Parallel()
			imports := packageImports(t, filepath.Join("internal", pkg))
			if len(imports) == 0 {
				t.Fatalf("internal/%s imports nothing: the package was not read", pkg)
			}
			for _, path := range imports {
				if path == module {
					t.Errorf("internal/%s imports the facade", pkg)
				}
				for _, other := range surfaces {
					if other != pkg && (path == module+"/internal/"+other || strings.HasPrefix(path, module+"/internal/"+other+"/")) {
						t.Errorf("internal/%s imports the surface internal/%s", pkg, other)
					}
				}
			}
		})
	}
}

// packageImports lists the import paths of dir's non-test Go files.
func packageImports(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, path)
		}
	}
	return out
}

// TestFacadeStaysAFacade holds the top package to DESIGN.md's shape: at most 25 non-test files
// (one per feature of the Go API, doc.go, the Server and its options, the route table and the
// shared surfaces), and no file named for a layer that belongs below it (control_*.go, ui_*.go).
func TestFacadeStaysAFacade(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		files = append(files, name)
		if strings.HasPrefix(name, "control_") || strings.HasPrefix(name, "ui_") {
			t.Errorf("%s: the control API and the dashboard are internal/control and internal/dashboard", name)
		}
	}
	if len(files) == 0 || len(files) > 25 {
		t.Errorf("the facade holds %d non-test files, want 1 to 25: %v", len(files), files)
	}
}
