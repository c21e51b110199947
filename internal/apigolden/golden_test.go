package apigolden_test

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/internal/apigolden"
)

var update = flag.Bool("update", false, "rewrite the golden files under .ci/api/ from the source")

// TestAPIGolden compares the exported API of every module the repository's go.work uses with
// its golden file .ci/api/<module>.txt, so that a change of a public surface shows in review
// (and comes with a CHANGELOG line). A module without an importable exported package (the
// examples) has none. Run with -update to rewrite them.
func TestAPIGolden(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := apigolden.WorkModules(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range dirs {
		t.Run(apigolden.GoldenName(rel), func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(root, rel)
			modPath, err := apigolden.ModulePath(dir)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := apigolden.Module(dir, modPath)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(root, ".ci", "api", apigolden.GoldenName(rel))
			want := ""
			if len(lines) > 0 {
				want = strings.Join(lines, "\n") + "\n"
			}
			if *update {
				if want == "" {
					if err := os.Remove(golden); err != nil && !errors.Is(err, fs.ErrNotExist) {
						t.Fatal(err)
					}
					return
				}
				if err := os.WriteFile(golden, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			got, err := os.ReadFile(golden)
			if errors.Is(err, fs.ErrNotExist) && want == "" {
				return
			}
			if err != nil {
				t.Fatalf("module %s: %v; write it with go test ./internal/apigolden -update", modPath, err)
			}
			if diff := cmp.Diff(string(got), want); diff != "" {
				t.Errorf("the exported API of module %s differs from %s (-golden +source):\n%s\n"+
					"If the change is meant, run go test ./internal/apigolden -update, commit the file and add a CHANGELOG line.",
					modPath, golden, diff)
			}
		})
	}
}
