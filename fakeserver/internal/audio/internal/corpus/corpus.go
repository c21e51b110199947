// Package corpus is the loudness accuracy corpus: deterministic test signals in the manner of EBU
// Tech 3341 and 3342 (tones, gated steps, true-peak tones, loudness-range steps) and speech from
// the package audio synthesiser, at sample rates from 8 to 96 kHz, mono and stereo.
//
// The accuracy test measures each case with package audio and compares the result with the
// reference figures of ffmpeg's ebur128 filter stored in internal/audio/testdata/refs/refs.csv;
// the script beside that file writes the same cases as WAV files with the corpusgen command and
// measures them with ffmpeg. Tones are written as 24-bit PCM, speech as the synthesiser's 16-bit
// PCM. Every tone fades in and out over 50 ms (a raised cosine), because the true peak of an
// abrupt first sample depends on how a meter primes its interpolator; steps between levels are
// abrupt, as in Tech 3341.
package corpus

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

// Rates are the sample rates every rate-sweeping case is made at, in Hz.
var Rates = []int{8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000}

// Segment is a stretch of a tone at one level.
type Segment struct {
	// Seconds is the length; it is rounded to whole frames.
	Seconds float64
	// PeakDBFS is the sine's amplitude in dBFS (its sample peak may be lower).
	PeakDBFS float64
}

// Case is one signal of the corpus.
type Case struct {
	// Name identifies the case in the reference file; it is also the WAV file's base name.
	Name string
	// SampleRate is in Hz.
	SampleRate int
	// Channels is 1 or 2; every channel carries the same signal.
	Channels int
	// Freq is the tone's frequency in Hz, when the case is a tone.
	Freq float64
	// PhaseDeg is the tone's starting phase in degrees.
	PhaseDeg float64
	// Segments are the tone's levels in turn.
	Segments []Segment
	// Speech, when set, makes the case the synthesiser's speech instead of a tone.
	Speech *audio.SynthSpec
}

// fadeSeconds is the length of the fades at both ends of a tone.
const fadeSeconds = 0.05

// Cases returns the corpus, in a fixed order with unique names.
func Cases() []Case {
	var cs []Case
	stereo := func(name string, segs ...Segment) Case {
		return Case{Name: name, SampleRate: 48000, Channels: 2, Freq: 1000, Segments: segs}
	}
	// EBU Tech 3341 cases 1 to 5 (1 kHz tones and gated steps, 48 kHz stereo), with every
	// duration divided by five to keep the test fast; gating works the same.
	cs = append(cs,
		stereo("3341-1-sine-23", Segment{4, -23}),
		stereo("3341-2-sine-33", Segment{4, -33}),
		stereo("3341-3-gated-36-23-36", Segment{2, -36}, Segment{12, -23}, Segment{2, -36}),
		stereo("3341-4-gated-72-36-23-36-72", Segment{2, -72}, Segment{2, -36}, Segment{12, -23}, Segment{2, -36}, Segment{2, -72}),
		stereo("3341-5-steps-26-20-26", Segment{4, -26}, Segment{4.02, -20}, Segment{4, -26}),
	)
	// In the spirit of Tech 3341 cases 15 to 19: tones whose peaks fall between samples.
	for _, tp := range []struct {
		name        string
		div, phase  float64
		amplitudeDB float64
	}{
		{"3341-15-tp-fs4-0deg", 4, 0, -6},
		{"3341-16-tp-fs4-45deg", 4, 45, -6},
		{"3341-17-tp-fs6-60deg", 6, 60, -6},
		{"3341-18-tp-fs8-67deg", 8, 67.5, -6},
		{"3341-19-tp-fs4-45deg-0dB", 4, 45, 0},
	} {
		c := stereo(tp.name, Segment{1.5, tp.amplitudeDB})
		c.Freq, c.PhaseDeg = 48000/tp.div, tp.phase
		cs = append(cs, c)
	}
	// In the spirit of EBU Tech 3342 cases 1 to 4 (loudness range), with 10 s steps.
	cs = append(cs,
		stereo("3342-1-lra-20-30", Segment{10, -20}, Segment{10, -30}),
		stereo("3342-2-lra-20-15", Segment{10, -20}, Segment{10, -15}),
		stereo("3342-3-lra-40-20", Segment{10, -40}, Segment{10, -20}),
		stereo("3342-4-lra-50-35-20-35-50", Segment{10, -50}, Segment{10, -35}, Segment{10, -20}, Segment{10, -35}, Segment{10, -50}),
	)
	// Every rate: tones mono and stereo, a gated step (mono and stereo in turn), a true-peak
	// tone and speech. The speech has the synthesiser's natural peaks, which it plans fastest.
	for i, rate := range Rates {
		stepChannels := 1 + i%2
		cs = append(cs,
			Case{Name: fmt.Sprintf("sine-23-stereo-%d", rate), SampleRate: rate, Channels: 2, Freq: 1000, Segments: []Segment{{3, -23}}},
			Case{Name: fmt.Sprintf("sine-20-mono-%d", rate), SampleRate: rate, Channels: 1, Freq: 1000, Segments: []Segment{{3, -20}}},
			Case{Name: fmt.Sprintf("gated-%dch-%d", stepChannels, rate), SampleRate: rate, Channels: stepChannels, Freq: 1000,
				Segments: []Segment{{1, -36}, {4, -23}, {1, -36}}},
			Case{Name: fmt.Sprintf("tp-fs4-45deg-stereo-%d", rate), SampleRate: rate, Channels: 2, Freq: float64(rate) / 4, PhaseDeg: 45,
				Segments: []Segment{{1, -3}}},
			Case{Name: fmt.Sprintf("speech-mono-%d", rate), SampleRate: rate, Channels: 1,
				Speech: &audio.SynthSpec{DurationSeconds: 6, SampleRate: rate, Channels: 1, LoudnessLUFS: -24}},
			Case{Name: fmt.Sprintf("speech-stereo-%d", rate), SampleRate: rate, Channels: 2,
				Speech: &audio.SynthSpec{DurationSeconds: 6, SampleRate: rate, Channels: 2, LoudnessLUFS: -18}},
		)
	}
	// Speech shaped to a requested true peak: soft-clipped, and with a click in a gap.
	cs = append(cs,
		Case{Name: "speech-tp-clipped-mono-16000", SampleRate: 16000, Channels: 1,
			Speech: &audio.SynthSpec{DurationSeconds: 6, SampleRate: 16000, Channels: 1, LoudnessLUFS: -14, TruePeakDB: ptr(-1)}},
		Case{Name: "speech-tp-click-stereo-22050", SampleRate: 22050, Channels: 2,
			Speech: &audio.SynthSpec{DurationSeconds: 6, SampleRate: 22050, Channels: 2, LoudnessLUFS: -30, TruePeakDB: ptr(-6)}},
	)
	return cs
}

func ptr(v float64) *float64 { return &v }

// Frames is the number of frames of a tone case.
func (c Case) frames() int64 {
	var n int64
	for _, s := range c.Segments {
		n += int64(math.Round(s.Seconds * float64(c.SampleRate)))
	}
	return n
}

// WriteWAV writes the case as a WAV file, streaming: a tone as 24-bit PCM, speech as the
// synthesiser writes it.
func (c Case) WriteWAV(w io.Writer) error {
	if c.Speech != nil {
		return audio.SynthesizeTo(w, *c.Speech)
	}
	if c.SampleRate <= 0 || c.Channels < 1 || c.Channels > 2 || len(c.Segments) == 0 {
		return fmt.Errorf("corpus: case %q is not a valid tone", c.Name)
	}
	const bytesPerSample = 3
	frames := c.frames()
	dataBytes := frames * int64(c.Channels) * bytesPerSample
	if dataBytes+36 > math.MaxUint32 {
		return fmt.Errorf("corpus: case %q is too long for a WAV file", c.Name)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	le16 := func(v int) { _ = binary.Write(bw, binary.LittleEndian, uint16(v)) }
	le32 := func(v int64) { _ = binary.Write(bw, binary.LittleEndian, uint32(v)) }
	bw.WriteString("RIFF")
	le32(36 + dataBytes + dataBytes%2)
	bw.WriteString("WAVEfmt ")
	le32(16)
	le16(1) // PCM
	le16(c.Channels)
	le32(int64(c.SampleRate))
	le32(int64(c.SampleRate * c.Channels * bytesPerSample))
	le16(c.Channels * bytesPerSample)
	le16(8 * bytesPerSample)
	bw.WriteString("data")
	le32(dataBytes)
	fade := int64(math.Round(fadeSeconds * float64(c.SampleRate)))
	omega := 2 * math.Pi * c.Freq / float64(c.SampleRate)
	phase := c.PhaseDeg * math.Pi / 180
	// Frames are made a block at a time into buf, then written.
	buf := make([]byte, 0, 4096*c.Channels*bytesPerSample)
	var n int64
	for _, s := range c.Segments {
		a := math.Pow(10, s.PeakDBFS/20)
		end := n + int64(math.Round(s.Seconds*float64(c.SampleRate)))
		for ; n < end; n++ {
			v := a * math.Sin(omega*float64(n)+phase) * gain(n, frames, fade)
			q := int32(max(-(1 << 23), min(1<<23-1, math.Round(v*(1<<23)))))
			for range c.Channels {
				buf = append(buf, byte(q), byte(q>>8), byte(q>>16))
			}
			if len(buf) == cap(buf) {
				bw.Write(buf)
				buf = buf[:0]
			}
		}
	}
	bw.Write(buf)
	if dataBytes%2 == 1 {
		bw.WriteByte(0)
	}
	return bw.Flush()
}

// gain is the raised-cosine fade in and out of frame n of frames.
func gain(n, frames, fade int64) float64 {
	g := 1.0
	if n < fade {
		g = 0.5 - 0.5*math.Cos(math.Pi*(float64(n)+0.5)/float64(fade))
	}
	if r := frames - 1 - n; r < fade {
		g *= 0.5 - 0.5*math.Cos(math.Pi*(float64(r)+0.5)/float64(fade))
	}
	return g
}
