package fakeserver

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBehaviourDocNamesTests keeps BEHAVIOUR.md in step with the code: every section ends with a
// "Shown by:" line naming tests, and every test it names exists in the fake's packages.
func TestBehaviourDocNamesTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("BEHAVIOUR.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	testFunc := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Example)\w*)\(`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(doc), "\n## ")[1:]
	if len(sections) < 15 {
		t.Fatalf("BEHAVIOUR.md has %d sections", len(sections))
	}
	name := regexp.MustCompile("`([A-Za-z0-9_]+)`")
	for _, sec := range sections {
		title, _, _ := strings.Cut(sec, "\n")
		_, shown, ok := strings.Cut(sec, "\nShown by: ")
		if !ok {
			t.Errorf("section %q names no test (a line \"Shown by: `TestX`, ...\")", title)
			continue
		}
		shown, _, _ = strings.Cut(shown, "\n")
		names := name.FindAllStringSubmatch(shown, -1)
		if len(names) == 0 {
			t.Errorf("section %q: the Shown by line names nothing", title)
		}
		for _, n := range names {
			if !defined[n[1]] {
				t.Errorf("section %q names %s, which is no test of the fake", title, n[1])
			}
		}
	}
}
