package ids

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	t.Parallel()
	const id = "9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4"
	tests := []struct {
		in string
		ok bool
	}{
		{id, true},
		{strings.ToUpper(id), true},
		{"{" + id + "}", false},
		{"urn:uuid:" + id, false},
		{strings.ReplaceAll(id, "-", ""), false},
		{"", false},
		{strings.Replace(id, "9", "g", 1), false},
	}
	for _, tt := range tests {
		u, ok := Canonical(tt.in)
		if ok != tt.ok {
			t.Fatalf("Canonical(%q) ok = %v, want %v", tt.in, ok, tt.ok)
		}
		if ok && u.String() != id {
			t.Fatalf("Canonical(%q) = %v", tt.in, u)
		}
	}
}

func TestParseNamesTheArgument(t *testing.T) {
	t.Parallel()
	invalid := errors.New("invalid argument")
	_, err := Parse("reportID", "nope", invalid)
	if !errors.Is(err, invalid) || !strings.Contains(err.Error(), `reportID "nope" is not a UUID`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Parse("reportID", "9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4", invalid); err != nil {
		t.Fatal(err)
	}
}

func FuzzCanonical(f *testing.F) {
	f.Add("9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4")
	f.Add("{9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4}")
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := Canonical(s)
		if ok && !strings.EqualFold(u.String(), s) {
			t.Fatalf("Canonical(%q) = %v, not the same id", s, u)
		}
	})
}
