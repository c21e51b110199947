package mp3enc

import (
	"io"
	"testing"
)

// BenchmarkEncode encodes 10 seconds of 44.1 kHz stereo speech at 128 kbit/s; the real-time
// factor is 10 s over the time per operation.
func BenchmarkEncode(b *testing.B) {
	o := Options{SampleRate: 44100, Channels: 2, BitRate: 128}
	pcm := speech(b, o.SampleRate, o.Channels, 10)
	b.SetBytes(int64(len(pcm) * 2)) // as 16-bit PCM
	b.ReportAllocs()
	for b.Loop() {
		e, err := New(io.Discard, o, int64(len(pcm)/2))
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Write(pcm); err != nil {
			b.Fatal(err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
