package readmetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// freeNames are the variables the tour's Go blocks use without declaring them, with their types;
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

// TestTourGoBlocksCompile compiles each Go block of the tour as the body of a function (its
// "..." elided), with the names of freeNames it uses as parameters. Only "declared and not used"
// and "imported and not used" are forgiven, as the blocks are excerpts; everything else (a
// renamed function, a changed signature, a wrong type) fails.
func TestTourGoBlocksCompile(t *testing.T) {
	t.Parallel()
	var src strings.Builder
	src.WriteString("package readmetest\n\nimport (\n")
	for _, imp := range snippetImports {
		fmt.Fprintf(&src, "\t%q\n", imp)
	}
	src.WriteString(")\n")
	n := 0
	for _, b := range tourBlocks(t) {
		if b.lang != "go" {
			continue
		}
		n++
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
	if n < 3 {
		t.Fatalf("found %d Go blocks in the tour", n)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "snippets.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// The snippets join this package through an overlay, so nothing is written into the tree.
	self, err := filepath.Abs("zz_snippets.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, fmt.Appendf(nil, `{"Replace":{%q:%q}}`, self, file), 0o600); err != nil {
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
		t.Fatalf("the tour's Go blocks do not compile:\n%s\n\nas compiled:\n%s", strings.Join(errs, "\n"), src.String())
	}
}
