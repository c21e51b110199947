package readmetest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxReadmeLines bounds the README, which is for a newcomer: reference material (every flag and
// control call, figures, benchmarks) lives in the pages it links.
const maxReadmeLines = 300

func TestReadmeIsShort(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, []byte("\n")); n > maxReadmeLines {
		t.Errorf("README.md has %d lines; at most %d: move reference material to docs/ or CONTRIBUTING.md", n, maxReadmeLines)
	}
}
