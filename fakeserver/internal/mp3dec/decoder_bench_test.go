package mp3dec

import (
	"bytes"
	"os"
	"testing"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// splitFrames cuts an MP3 file (ID3v2 tag and Xing frame included) into its layer III frames,
// skipping bytes that do not start a frame.
func splitFrames(tb testing.TB, data []byte) [][]byte {
	tb.Helper()
	var frames [][]byte
	for i := 0; i+4 <= len(data); {
		if bytes.HasPrefix(data[i:], []byte("ID3")) && i+10 <= len(data) {
			n := int(data[i+6])<<21 | int(data[i+7])<<14 | int(data[i+8])<<7 | int(data[i+9])
			i += 10 + n
			continue
		}
		h, ok := mpegaudio.ParseHeader(data[i:])
		if !ok || h.Layer != 3 || i+h.Size > len(data) {
			i++
			continue
		}
		frames = append(frames, data[i:i+h.Size])
		i += h.Size
	}
	if len(frames) == 0 {
		tb.Fatal("no frames")
	}
	return frames
}

// BenchmarkDecode decodes a 3-second 128 kbit/s stereo file (speech-like, 44.1 kHz) frame by
// frame.
func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile("../audio/testdata/formats/speech_s44.mp3")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("mp3dec", func(b *testing.B) {
		frames := splitFrames(b, data)
		d := NewDecoder()
		pcm := make([]float64, 0, 2304)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			d.Reset()
			for _, f := range frames {
				pcm, _ = d.DecodeFrame(pcm[:0], f)
			}
		}
	})
}
