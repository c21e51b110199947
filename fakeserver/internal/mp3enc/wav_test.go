package mp3enc

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// wavOf writes pcm as a 32-bit float WAV.
func wavOf(t testing.TB, o Options, pcm []float64) []byte {
	t.Helper()
	var b bytes.Buffer
	data := 4 * len(pcm)
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + data))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(3)) // IEEE float
	w(uint16(o.Channels))
	w(uint32(o.SampleRate))
	w(uint32(o.SampleRate * o.Channels * 4))
	w(uint16(o.Channels * 4))
	w(uint16(32))
	b.WriteString("data")
	w(uint32(data))
	for _, v := range pcm {
		w(math.Float32bits(float32(v)))
	}
	return b.Bytes()
}
