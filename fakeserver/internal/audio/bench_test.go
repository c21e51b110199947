package audio

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"runtime/debug"
	"testing"
)

// BenchmarkMeasure measures 10 minutes of 44.1 kHz stereo 16-bit speech held in memory.
func BenchmarkMeasure(b *testing.B) {
	const seconds = 600
	file, err := Synthesize(SynthSpec{DurationSeconds: seconds, SampleRate: 44100, Channels: 2, LoudnessLUFS: -16})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Measure(bytes.NewReader(file)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(seconds*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
}

// BenchmarkMeasureTone is the meter's worst case: a steady full-level tone, whose every sample
// needs the true-peak interpolator.
func BenchmarkMeasureTone(b *testing.B) {
	const seconds = 60
	file := encodeWAV(44100, 2, tone(44100, 2, 997, 0, segment{seconds, -1}), wavFormat{tag: wavePCM, bits: 16})
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Measure(bytes.NewReader(file)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(seconds*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
}

// BenchmarkSynthesize streams 10 minutes and 1 hour of 44.1 kHz stereo speech to io.Discard.
func BenchmarkSynthesize(b *testing.B) {
	for _, bc := range []struct {
		name    string
		seconds float64
	}{{"10min", 600}, {"1h", 3600}} {
		b.Run(bc.name, func(b *testing.B) {
			spec := SynthSpec{DurationSeconds: bc.seconds, SampleRate: 44100, Channels: 2, LoudnessLUFS: -16, TruePeakDB: peakPtr(-1.5)}
			b.SetBytes(int64(bc.seconds * 44100 * 4))
			b.ReportAllocs()
			for b.Loop() {
				if err := SynthesizeTo(io.Discard, spec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(bc.seconds*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
		})
	}
}

// speechReader streams an endless-looking 16-bit mono WAV of the given length: a header, then a
// looped stretch of speech, made as it is read.
type speechReader struct {
	header []byte
	loop   []byte
	left   int64 // bytes of data still to give
	pos    int
}

func newSpeechReader(rate int, seconds int64) *speechReader {
	speech := renderSpeech(speechPlan(patternSeconds), rate, patternSeconds*rate)
	loop := make([]byte, 0, 2*len(speech))
	for _, v := range speech {
		loop = binary.LittleEndian.AppendUint16(loop, uint16(quantize(0.5*v)))
	}
	data := seconds * int64(rate) * 2
	h := encodeWAV(rate, 1, nil, wavFormat{tag: wavePCM, bits: 16})
	binary.LittleEndian.PutUint32(h[40:], uint32(data))
	return &speechReader{header: h, loop: loop, left: data}
}

func (r *speechReader) Read(p []byte) (int, error) {
	if len(r.header) > 0 {
		n := copy(p, r.header)
		r.header = r.header[n:]
		return n, nil
	}
	if r.left == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), r.left)], r.loop[r.pos:])
	r.pos = (r.pos + n) % len(r.loop)
	r.left -= int64(n)
	return n, nil
}

// TestMeasureMemoryFlat measures 2 and 20 minutes streamed from a generator: the memory
// allocated must not grow with the duration. It is not parallel, so that no other test allocates
// meanwhile.
func TestMeasureMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 22 minutes of audio")
	}
	// No collection runs while measuring: a collection empties the sync.Pools, and refilling them
	// counts as allocation, so a run that meets more collections (the runtime forces one every two
	// minutes of wall time, which a loaded machine reaches) would look as if it grew.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	allocated := func(seconds int64) uint64 {
		r := newSpeechReader(8000, seconds)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := Measure(r)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if m.Frames != seconds*8000 {
			t.Fatalf("measured %d frames, want %d", m.Frames, seconds*8000)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	// The decoding and metering stages hand buffers over channels, and how many buffers are in
	// flight at once depends on scheduling, so one run may allocate a few buffers more than
	// another of the same length: the least of three runs is each length's figure. A cost per
	// second of audio, even 100 bytes, would add 108 KB over the 18 extra minutes, far past the
	// tenth of the 2-minute figure (about 430 KB) allowed here.
	least := func(seconds int64) uint64 {
		return min(allocated(seconds), allocated(seconds), allocated(seconds))
	}
	short, long := least(120), least(1200)
	t.Logf("allocated %d bytes for 2 minutes, %d bytes for 20 minutes (least of three runs each)", short, long)
	if long > short+short/10 {
		t.Errorf("20 minutes allocated %d bytes, 2 minutes %d: memory grows with duration", long, short)
	}
}

// BenchmarkMeter is the meter alone on 60 s of 44.1 kHz stereo speech, decoded beforehand.
func BenchmarkMeter(b *testing.B) {
	const seconds, rate = 60, 44100
	speech := renderSpeech(speechPlan(patternSeconds), rate, patternSeconds*rate)
	samples := make([]float64, 0, 2*seconds*rate)
	for i := range seconds * rate {
		v := 0.3 * speech[i%len(speech)]
		samples = append(samples, v, -0.8*v)
	}
	m, err := NewMeter(rate, 2)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(samples) * 8))
	b.ReportAllocs()
	for b.Loop() {
		m.Reset()
		for i := 0; i < len(samples); i += 2 * pcmBlock {
			m.Process(samples[i:min(i+2*pcmBlock, len(samples))])
		}
		m.Result()
	}
	b.ReportMetric(seconds*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
}
