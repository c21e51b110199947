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
