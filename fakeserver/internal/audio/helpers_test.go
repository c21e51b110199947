package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// segment is a stretch of a test tone.
type segment struct {
	seconds float64
	dbfs    float64 // peak level of the sine
}

// tone returns interleaved samples of a sine of freq Hz and the given phase (radians) in every
// channel, through segments of different levels.
func tone(rate, channels int, freq, phase float64, segs ...segment) []float64 {
	total := 0.0
	for _, s := range segs {
		total += s.seconds
	}
	out := make([]float64, 0, int(math.Round(total*float64(rate))+1)*channels)
	n := 0
	for _, s := range segs {
		a := math.Pow(10, s.dbfs/20)
		frames := int(math.Round(s.seconds * float64(rate)))
		for i := 0; i < frames; i++ {
			v := a * math.Sin(2*math.Pi*freq*float64(n)/float64(rate)+phase)
			for range channels {
				out = append(out, v)
			}
			n++
		}
	}
	return out
}

// meter runs samples through a new Meter in blocks of an awkward size.
func meter(t testing.TB, rate, channels int, samples []float64) MeterResult {
	t.Helper()
	m, err := NewMeter(rate, channels)
	if err != nil {
		t.Fatal(err)
	}
	for len(samples) > 0 {
		n := min(len(samples), 1237)
		m.Process(samples[:n])
		samples = samples[n:]
	}
	return m.Result()
}

// wavFormat is a WAV encoding for tests.
type wavFormat struct {
	tag        uint16 // wavePCM, waveFloat or waveExtensible
	subtag     uint16 // for waveExtensible
	bits       int
	validBits  int
	mask       uint32
	dataSize   *uint32 // override the data chunk size
	title      string
	titleAfter bool // put the LIST chunk after the data
	extra      bool // an unknown odd-sized chunk before the data
}

// encodeWAV writes samples in the given format.
func encodeWAV(rate, channels int, samples []float64, f wavFormat) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	bps := f.bits / 8
	data := make([]byte, 0, len(samples)*bps)
	isFloat := f.tag == waveFloat || (f.tag == waveExtensible && f.subtag == waveFloat)
	for _, v := range samples {
		switch {
		case isFloat && bps == 4:
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(v)))
		case isFloat:
			data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
		case bps == 1:
			data = append(data, byte(clampInt(math.Round(v*128)+128, 0, 255)))
		case bps == 2:
			data = binary.LittleEndian.AppendUint16(data, uint16(int16(clampInt(math.Round(v*(1<<15)), -(1<<15), 1<<15-1))))
		case bps == 3:
			x := int32(clampInt(math.Round(v*(1<<23)), -(1 << 23), 1<<23-1))
			data = append(data, byte(x), byte(x>>8), byte(x>>16))
		case bps == 4:
			data = binary.LittleEndian.AppendUint32(data, uint32(int32(clampInt(math.Round(v*(1<<31)), -(1<<31), 1<<31-1))))
		}
	}
	var list []byte
	if f.title != "" {
		var l bytes.Buffer
		l.WriteString("INFOISFT")
		_ = binary.Write(&l, binary.LittleEndian, uint32(3))
		l.WriteString("go\x00\x00") // odd size, padded
		name := f.title + "\x00"
		l.WriteString("INAM")
		_ = binary.Write(&l, binary.LittleEndian, uint32(len(name)))
		l.WriteString(name)
		if len(name)%2 == 1 {
			l.WriteByte(0)
		}
		list = l.Bytes()
	}
	writeList := func() {
		if list != nil {
			b.WriteString("LIST")
			le(uint32(len(list)))
			b.Write(list)
		}
	}
	b.WriteString("RIFF")
	le(uint32(0)) // patched below
	b.WriteString("WAVE")
	if f.extra {
		b.WriteString("junk")
		le(uint32(3))
		b.WriteString("abc\x00")
	}
	b.WriteString("fmt ")
	if f.tag == waveExtensible {
		le(uint32(40))
	} else {
		le(uint32(16))
	}
	le(f.tag)
	le(uint16(channels))
	le(uint32(rate))
	le(uint32(rate * channels * bps))
	le(uint16(channels * bps))
	le(uint16(f.bits))
	if f.tag == waveExtensible {
		le(uint16(22))
		vb := f.validBits
		if vb == 0 {
			vb = f.bits
		}
		le(uint16(vb))
		le(f.mask)
		le(f.subtag)
		b.Write(ksGUIDTail[:])
	}
	if !f.titleAfter {
		writeList()
	}
	b.WriteString("data")
	if f.dataSize != nil {
		le(*f.dataSize)
	} else {
		le(uint32(len(data)))
	}
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte(0)
	}
	if f.titleAfter {
		writeList()
	}
	out := b.Bytes()
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out
}

func clampInt(v, lo, hi float64) int64 {
	return int64(math.Max(lo, math.Min(hi, v)))
}

func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol
}
