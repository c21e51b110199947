package core

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestCanonicalID(t *testing.T) {
	t.Parallel()
	const id = "9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4"
	tests := []struct {
		in string
		ok bool
	}{
		{id, true},
		{"00000000-0000-0000-0000-000000000000", true},
		{strings.ToUpper(id), false},
		{"9B2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4", false},
		{strings.Replace(id, "-", "%2D", 1), false},
		{"{" + id + "}", false},
		{"urn:uuid:" + id, false},
		{strings.ReplaceAll(id, "-", ""), false},
		{strings.Replace(id, "9", "g", 1), false},
		{strings.Replace(id, "-", "_", 1), false},
		{id[:35], false},
		{id + "0", false},
		{"", false},
	}
	for _, tt := range tests {
		got, ok := CanonicalID(tt.in)
		if ok != tt.ok || IsCanonicalID(tt.in) != tt.ok {
			t.Errorf("CanonicalID(%q) ok = %v, IsCanonicalID %v, want %v", tt.in, ok, IsCanonicalID(tt.in), tt.ok)
		}
		if ok && got.String() != tt.in {
			t.Errorf("CanonicalID(%q) = %v", tt.in, got)
		}
		if !ok && got != NoID {
			t.Errorf("CanonicalID(%q) refused it but returned %v, not NoID", tt.in, got)
		}
	}
}

// FuzzCanonicalID holds the rule to its definition: s is taken exactly when it is the string the
// uuid package writes for the UUID it reads.
func FuzzCanonicalID(f *testing.F) {
	f.Add("9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4")
	f.Add("9B2C1F0E-3D4A-4B5C-8D6E-7F8091A2B3C4")
	f.Add("{9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4}")
	f.Add("9b2c1f0e%2D3d4a-4b5c-8d6e-7f8091a2b3c4")
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := CanonicalID(s)
		parsed, err := uuid.Parse(s)
		want := err == nil && parsed.String() == s
		if ok != want {
			t.Fatalf("CanonicalID(%q) ok = %v, want %v", s, ok, want)
		}
		if ok && id != parsed {
			t.Fatalf("CanonicalID(%q) = %v, want %v", s, id, parsed)
		}
	})
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Bearer ", "", true},
		{"Basic abc", "", false},
		{"Bearerabc", "", false},
		{"abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		token, ok := BearerToken(tt.header)
		if token != tt.token || ok != tt.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.header, token, ok, tt.token, tt.ok)
		}
	}
}
