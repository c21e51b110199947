package mp3enc

import (
	"io"
	"testing"
)

// TestLayoutPeriod: the layout repeats after a frame's length times the period of the padding
// slots, and the frame sizes the encoder picks do repeat with it.
func TestLayoutPeriod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		o    Options
		want int
	}{
		{Options{SampleRate: 44100, Channels: 2, BitRate: 128}, 1152 * 49},
		{Options{SampleRate: 44100, Channels: 1, BitRate: 112}, 1152 * 7},
		{Options{SampleRate: 48000, Channels: 2, BitRate: 128}, 1152},
		{Options{SampleRate: 32000, Channels: 2, BitRate: 56}, 1152},
		{Options{SampleRate: 22050, Channels: 1, BitRate: 64}, 576 * 49},
		{Options{SampleRate: 8000, Channels: 1, BitRate: 24}, 576},
	}
	for _, tt := range tests {
		got, err := LayoutPeriod(tt.o)
		if err != nil || got != tt.want {
			t.Errorf("LayoutPeriod(%+v) = %d, %v; want %d", tt.o, got, err, tt.want)
			continue
		}
		e, err := New(io.Discard, tt.o, 0)
		if err != nil {
			t.Fatal(err)
		}
		frames := got / e.frameLen
		sizes := make([]int, 3*frames)
		for i := range sizes {
			sizes[i], _ = e.frameBytes()
		}
		for i := frames; i < len(sizes); i++ {
			if sizes[i] != sizes[i-frames] {
				t.Errorf("%+v: frame %d has %d bytes, frame %d %d", tt.o, i, sizes[i], i-frames, sizes[i-frames])
				break
			}
		}
	}
	if _, err := LayoutPeriod(Options{SampleRate: 44100, Channels: 2, BitRate: 7}); err == nil {
		t.Error("a bit rate the encoder does not take was accepted")
	}
}
