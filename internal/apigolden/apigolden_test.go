package apigolden_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podqa/podqa-go/internal/apigolden"
)

// writeTree writes files (path: content) under a new temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const lib = `package lib

import "context"

type Kind int

const (
	KindA Kind = iota
	KindB
	kindHidden
	KindC
)

const Name, other = "n", 2

var ErrX = errorString("x")

type errorString string

func (e errorString) Error() string { return string(e) }

type Opts struct {
	Limit    int
	hidden   bool
	A, B     string
	*Embedded
	embedded
}

type Embedded struct{ X int }

type embedded struct{ Y int }

func (embedded) Promoted() int { return 0 }

func (Embedded) Own() {}

type Getter interface {
	Get(ctx context.Context, key string) (value []byte, err error)
	Closer
	unexported()
}

type Closer interface{ Close() error }

type List[T comparable] struct{ items []T }

func (l *List[T]) Push(v T, more ...T) {}

func NewList[T comparable](n int) *List[T] { return nil }

func Map[K comparable, V any](m map[K]V, f func(K, V) bool) (keys []K, n int) { return nil, 0 }

type Alias = Opts

func unexportedFunc() {}
`

func TestModule(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"go.mod":                  "module example.com/m\n",
		"lib/lib.go":              lib,
		"lib/lib_test.go":         "package lib\n\nfunc TestOnly() {}\n",
		"lib/other_windows.go":    "package lib\n\nfunc WindowsOnly() {}\n",
		"lib/tagged.go":           "//go:build never\n\npackage lib\n\nfunc Tagged() {}\n",
		"internal/x/x.go":         "package x\n\nfunc Internal() {}\n",
		"cmd/tool/main.go":        "package main\n\nfunc Exported() {}\n\nfunc main() {}\n",
		"nested/go.mod":           "module example.com/m/nested\n",
		"nested/n.go":             "package nested\n\nfunc Nested() {}\n",
		"lib/testdata/t/t.go":     "package t\n\nfunc Data() {}\n",
		"top.go":                  "package m\n\n// Version is the version.\nconst Version = \"1\"\n",
		"lib/sub/sub.go":          "package sub\n\nvar V, w int\n",
		"lib/sub/sub_unix.go":     "package sub\n",
		"lib/.hidden/hidden.go":   "package hidden\n\nfunc Hidden() {}\n",
		"lib/_skipped/skipped.go": "package skipped\n\nfunc Skipped() {}\n",
	})
	got, err := apigolden.Module(dir, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	p := "pkg example.com/m/lib, "
	want := []string{
		"pkg example.com/m, const Version = \"1\"",
		p + "const KindA Kind = iota // iota = 0",
		p + "const KindB Kind = iota // iota = 1",
		p + "const KindC Kind = iota // iota = 3",
		p + "const Name = \"n\"",
		p + "func Map[K comparable, V any](map[K]V, func(K, V) bool) ([]K, int)",
		p + "func NewList[T comparable](int) *List[T]",
		p + "method (*List[T]) Push(T, ...T)",
		p + "method (Embedded) Own()",
		p + "method (Opts) Promoted() int",
		p + "type Alias = Opts",
		p + "type Closer interface { Close }",
		p + "type Closer interface, Close() error",
		p + "type Embedded struct",
		p + "type Embedded struct, X int",
		p + "type Getter interface { Closer, Get, unexported methods }",
		p + "type Getter interface, Get(context.Context, string) ([]byte, error)",
		p + "type Getter interface, embedded Closer",
		p + "type Kind int",
		p + "type List[T comparable] struct",
		p + "type Opts struct",
		p + "type Opts struct, A string",
		p + "type Opts struct, B string",
		p + "type Opts struct, Limit int",
		p + "type Opts struct, embedded *Embedded",
		p + "var ErrX = errorString(\"x\")",
		"pkg example.com/m/lib/sub, var V int",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Module (-want +got):\n%s", diff)
	}
}

func TestWorkModulesAndNames(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"go.work":    "go 1.25.0\n\nuse (\n\t.\n\t./a/b // the store\n\t\"./c\"\n)\n\nuse ./d\n",
		"a/b/go.mod": "// a comment\nmodule \"example.com/m/a/b\"\n\ngo 1.25.0\n",
	})
	dirs, err := apigolden.WorkModules(filepath.Join(dir, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".", "./a/b", "./c", "./d"}, dirs); diff != "" {
		t.Errorf("WorkModules (-want +got):\n%s", diff)
	}
	mod, err := apigolden.ModulePath(filepath.Join(dir, "a", "b"))
	if err != nil || mod != "example.com/m/a/b" {
		t.Errorf("ModulePath = %q, %v; want example.com/m/a/b", mod, err)
	}
	if _, err := apigolden.ModulePath(dir); err == nil {
		t.Error("ModulePath of a directory without go.mod: no error")
	}
	names := map[string]string{".": "podqa-go.txt", "./": "podqa-go.txt", "./webhook/webhookpg": "webhook-webhookpg.txt", "fakeserver": "fakeserver.txt"}
	for rel, want := range names {
		if got := apigolden.GoldenName(rel); got != want {
			t.Errorf("GoldenName(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestPackageErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]map[string]string{
		"syntax error": {"a.go": "package a\n\nfunc {\n"},
		"two packages": {"a.go": "package a\n", "b.go": "package b\n"},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, files)
			if lines, err := apigolden.Package(dir, "example.com/a"); err == nil {
				t.Errorf("Package = %s, want an error", strings.Join(lines, "; "))
			}
		})
	}
}
