package httpmw

import "testing"

func TestCutText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"aé", 2, "a", true},
		{"aéb", 3, "aé", true},
		{"€€", 4, "€", true},
		{"", 0, "", false},
		{"\xff\xfe\xfd\xfc\xfb\xfa", 4, "\xff\xfe\xfd\xfc", true},
	}
	for _, tt := range tests {
		got, cut := CutText(tt.in, tt.n)
		if got != tt.want || cut != tt.cut {
			t.Errorf("CutText(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, tt.want, tt.cut)
		}
	}
}
