package audio

import (
	"bytes"
	"testing"
)

// BenchmarkDecodeMP3 measures a 3 s 128 kbit/s stereo MP3 (decode, loudness, true peak), with
// one decoder goroutine and with the default parallel segments.
func BenchmarkDecodeMP3(b *testing.B) {
	data := readFixture(b, "speech_s44.mp3")
	for _, bc := range []struct {
		name    string
		workers int
	}{{"sequential", 1}, {"parallel", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := []Option{func(o *options) { o.segFrames = 32 }}
			if bc.workers > 0 {
				opts = append(opts, WithWorkers(bc.workers))
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Measure(bytes.NewReader(data), opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
