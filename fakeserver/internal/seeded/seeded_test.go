package seeded

import (
	"bytes"
	"fmt"
	"testing"
)

func TestSameSeedSameValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b *Source
		same bool
	}{
		{"same seed", New(7), New(7), true},
		{"other seed", New(7), New(8), false},
		{"random", Random(), Random(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ua, ub := tt.a.UUID(), tt.b.UUID()
			ta, tb := tt.a.Token(24), tt.b.Token(24)
			if (ua == ub && ta == tb) != tt.same {
				t.Fatalf("%s %s / %s %s", ua, ta, ub, tb)
			}
			if ua.Version() != 4 || ua.Variant().String() != "RFC4122" {
				t.Fatalf("not a v4 uuid: %s", ua)
			}
		})
	}
}

func TestSaveRestore(t *testing.T) {
	t.Parallel()
	s := New(42)
	s.Hex(3)
	state := s.Save()
	first := s.Bytes(64)
	if err := s.Restore(state); err != nil {
		t.Fatal(err)
	}
	if again := s.Bytes(64); !bytes.Equal(first, again) {
		t.Fatalf("restore did not rewind: %x vs %x", first, again)
	}
	if err := s.Restore([]byte("junk")); err == nil {
		t.Fatal("restore accepted junk")
	}
}

func ExampleNew() {
	a, b := New(1), New(1)
	fmt.Println(a.UUID() == b.UUID(), a.Token(8) == b.Token(8))
	// Output: true true
}
