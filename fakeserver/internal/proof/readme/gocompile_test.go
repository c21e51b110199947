package readmetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// freeNames are the variables the README's Go blocks use without declaring them, with their types;
// each block becomes a function taking those it uses and does not declare itself.
var freeNames = []struct{ name, typ string }{
	{"ctx", "context.Context"},
	{"t", "*testing.T"},
	{"c", "*client.Client"},
	{"feedURL", "string"},
	{"secret", "string"},
}

var snippetImports = []string{
	"context", "fmt", "os", "testing", "time",
	"github.com/podqa/podqa-go/client",
	"github.com/podqa/podqa-go/fakeserver",
	"github.com/podqa/podqa-go/webhook",
}

// TestReadmeGoBlocksCompile compiles each Go block of the README. A block that begins with a
// package clause is a whole file (a test a reader copies as it is) and is compiled as one, in
// this package; any other is compiled as the body of a function (its "..." elided), with the
// names of freeNames it uses as parameters. Only "declared and not used" and "imported and not
// used" are forgiven, as the blocks are excerpts; everything else (a renamed function, a
// changed signature, a wrong type, an import path that moved) fails.
func TestReadmeGoBlocksCompile(t *testing.T) {
	t.Parallel()
	var src strings.Builder
	src.WriteString("package readmetest\n\nimport (\n")
	for _, imp := range snippetImports {
		fmt.Fprintf(&src, "\t%q\n", imp)
	}
	src.WriteString(")\n")
	var files []string // the whole-file blocks
	n := 0
	for _, b := range markedBlocks(t, "README.md", "") {
		if b.lang != "go" {
			continue
		}
		n++
		if len(b.body) > 0 && strings.HasPrefix(b.body[0], "package ") {
			body := slices.Concat([]string{"package readmetest"}, b.body[1:])
			files = append(files, fmt.Sprintf("//line README.md:%d\n%s\n", b.line+1, strings.Join(body, "\n")))
			continue
		}
		body := strings.ReplaceAll(strings.Join(b.body, "\n"), "...", "")
		var params []string
		for _, f := range freeNames {
			uses := regexp.MustCompile(`\b` + f.name + `\b`).MatchString(body)
			declares := regexp.MustCompile(`(?m)^\s*(\w+, )*` + f.name + `\b[\w, ]*:=`).MatchString(body)
			if uses && !declares {
				params = append(params, f.name+" "+f.typ)
			}
		}
		fmt.Fprintf(&src, "\n//line README.md:%d\nfunc snippet%d(%s) {\n%s\n}\n", b.line+1, n, strings.Join(params, ", "), body)
	}
	if n < 4 || len(files) < 1 {
		t.Fatalf("found %d Go blocks in the README, %d of them whole files; want at least 4 and 1", n, len(files))
	}
	dir := t.TempDir()
	// The snippets join this package through an overlay, so nothing is written into the tree.
	replace := make(map[string]string)
	for i, content := range append([]string{src.String()}, files...) {
		file := filepath.Join(dir, fmt.Sprintf("snippets%d.go", i))
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		self, err := filepath.Abs(fmt.Sprintf("zz_snippets%d.go", i))
		if err != nil {
			t.Fatal(err)
		}
		replace[self] = file
	}
	overlay := filepath.Join(dir, "overlay.json")
	raw, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("go", "build", "-overlay", overlay, "-gcflags=-e", ".").CombinedOutput()
	var errs []string
	for _, l := range strings.Split(string(out), "\n") {
		if l == "" || strings.HasPrefix(l, "#") || strings.Contains(l, "declared and not used") || strings.Contains(l, "imported and not used") {
			continue
		}
		errs = append(errs, l)
	}
	if len(errs) > 0 {
		t.Fatalf("the README's Go blocks do not compile:\n%s\n\nas compiled:\n%s\n%s", strings.Join(errs, "\n"), src.String(), strings.Join(files, "\n"))
	}
}
