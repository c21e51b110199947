package runreport

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLabel(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"TestUpload", "TestUpload"},
		{"TestUpload/too_large#01", "TestUpload-too_large_01"},
		{"TestX/a b/../c", "TestX-a_b-..-c"},
		{"Test/é", "Test-__"}, // two bytes, two marks
		{"", ""},
		{strings.Repeat("x", 300), strings.Repeat("x", MaxLabel)},
	}
	for _, tt := range tests {
		if got := Label(tt.name); got != tt.want {
			t.Errorf("Label(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	started := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	id := NewLabelledRunID("TestA/b", started)
	if !regexp.MustCompile(`^TestA-b-20260105T090000Z-[0-9a-f]{8}$`).MatchString(id) {
		t.Errorf("labelled run id %q", id)
	}
	if id := NewLabelledRunID("", started); !regexp.MustCompile(`^20260105T090000Z-[0-9a-f]{8}$`).MatchString(id) {
		t.Errorf("unlabelled run id %q", id)
	}
}

// FuzzLabel: whatever the name, the label is at most MaxLabel bytes of the allowed set, so the
// file name it makes stays inside the report dir.
func FuzzLabel(f *testing.F) {
	for _, s := range []string{"TestA/b", "../../etc/passwd", "a\x00b", "\\x/y", strings.Repeat("é", 80)} {
		f.Add(s)
	}
	allowed := regexp.MustCompile(`^[A-Za-z0-9._-]*$`)
	f.Fuzz(func(t *testing.T, name string) {
		label := Label(name)
		if len(label) > MaxLabel || !allowed.MatchString(label) || (len(name) > 0 && label == "") {
			t.Fatalf("Label(%q) = %q", name, label)
		}
		files := FilesFor("/reports", NewLabelledRunID(name, time.Unix(0, 0)))
		if filepath.Dir(files.JSON) != "/reports" || filepath.Dir(files.HTML) != "/reports" {
			t.Fatalf("%q escapes the dir: %+v", name, files)
		}
	})
}
