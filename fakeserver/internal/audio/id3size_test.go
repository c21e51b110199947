package audio

import "testing"

// TestID3Size: the tag's size is the header's 10 bytes plus the syncsafe body size, whatever
// bits the two share (10 | size once dropped the overlap and cut covers short by 10 bytes).
func TestID3Size(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []byte
		want   int
		ok     bool
	}{
		{"body of 2", []byte{'I', 'D', '3', 4, 0, 0, 0, 0, 0, 2}, 12, true},
		{"body of 10", []byte{'I', 'D', '3', 4, 0, 0, 0, 0, 0, 10}, 20, true},
		{"body of 0x7f", []byte{'I', 'D', '3', 4, 0, 0, 0, 0, 0, 0x7f}, 137, true},
		{"a body over 16 KiB", []byte{'I', 'D', '3', 4, 0, 0, 0, 1, 0x7f, 0x7f}, 10 + 1<<14 + 0x7f<<7 + 0x7f, true},
		{"with a footer", []byte{'I', 'D', '3', 4, 0, 0x10, 0, 0, 0, 2}, 22, true},
		{"not syncsafe", []byte{'I', 'D', '3', 4, 0, 0, 0, 0, 0, 0x80}, 0, false},
		{"not a tag", []byte("RIFF\x00\x00\x00\x00WAVE"), 0, false},
	}
	for _, tt := range tests {
		if n, ok := id3Size(tt.header); n != tt.want || ok != tt.ok {
			t.Errorf("%s: %d %v, want %d %v", tt.name, n, ok, tt.want, tt.ok)
		}
	}
}
