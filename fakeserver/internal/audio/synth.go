package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

// SynthSpec describes a synthesised episode for Synthesize and SynthesizeTo.
type SynthSpec struct {
	// DurationSeconds is the length of the audio, from 0.5 s to 3 hours; it is rounded to whole
	// frames.
	DurationSeconds float64
	// SampleRate is in Hz, from MinSampleRate to MaxSampleRate; 0 means 44100.
	SampleRate int
	// Channels is 1 or 2 (two identical channels); 0 means 1.
	Channels int
	// LoudnessLUFS is the integrated loudness, from −40 to −6 LUFS; 0 means −16.
	LoudnessLUFS float64
	// TruePeakDB, when set, is the true peak, from −20 to 0 dBTP. When nil the true peak is what
	// the speech gives at that loudness, but at most −1 dBTP.
	TruePeakDB *float64
	// Title, when not empty, is written as a LIST/INFO INAM tag (NUL bytes dropped, at most 4096
	// bytes of UTF-8 kept).
	Title string
	// Tags, when any is set, are written as an ID3v2.4 tag in an "id3 " chunk before the audio
	// (text fields are cleaned as Title is).
	Tags SynthTags
	// Cover, when not empty, is a PNG or JPEG image of at most MaxSynthCover bytes, written as
	// the front cover (an APIC frame) of that ID3 tag.
	Cover []byte
	// PeriodMultiple, when not 0, makes the speech repeat with a period (at least 10 s) that is a
	// whole number of PeriodMultiple frames, from 1 to MaxPeriodMultiple. An encoder whose
	// frames (and padding pattern) fit PeriodMultiple frames then codes every period of the
	// file alike, so that an excerpt (SynthesizeExcerpt) coded measures as the whole file coded.
	PeriodMultiple int
}

// MaxPeriodMultiple is the largest SynthSpec.PeriodMultiple: 2 s at 44.1 kHz, more than an
// MP3 frame times its padding pattern (1152 × 49).
const MaxPeriodMultiple = 88200

// ErrInvalidSpec means a SynthSpec out of range, or asking for a loudness and true peak that
// speech-like audio cannot have together; the error says which.
var ErrInvalidSpec = errors.New("audio: invalid synthesis spec")

// Synthesis limits and tolerances.
const (
	synthMinSeconds   = 0.5
	synthMaxSeconds   = 3 * 3600
	synthMinLUFS      = -40.0
	synthMaxLUFS      = -6.0
	synthMinPeak      = -20.0
	synthMaxPeak      = 0.0
	defaultLUFS       = -16.0
	defaultRate       = 44100
	defaultPeakLimit  = -1.0 // dBTP: the default true peak never exceeds it
	defaultPeakAim    = -1.1 // dBTP: where the default aims when it must limit
	loudnessAccuracy  = 0.01 // LU the solver reaches
	peakAccuracy      = 0.05 // dB the solver reaches
	plrAccuracy       = 0.02 // dB for the shape search
	patternSeconds    = 10   // the speech repeats with this period
	warmupSeconds     = 1    // K-filter settling before a modelled stretch
	maxFade           = 0.2  // s
	minFade           = 0.05 // s
	clipFilterRounds  = 3
	clipLowpass       = 0.4 // of the sample rate
	transientHalfSpan = 6   // samples each side of the transient's centre
)

// Shapes of the speech, searched to reach a peak-to-loudness ratio.
const (
	shapeNatural   = iota
	shapeTransient // add a band-limited click of amplitude 10^x in a gap
	shapeClip      // soft clipping at threshold 10^−x with low-pass rounds (a crossfade below clipBlendX)
)

// Search ranges of the shape parameter x.
const (
	transientMinX = -1.0
	transientMaxX = 3.0
	clipMinX      = -2.2 // the natural shape
	clipBlendX    = -1.2 // threshold 16: no clipping
	clipMaxX      = 2.0  // threshold 0.01
)

// synth is a planned file: a speech pattern of one period (or the whole file if shorter), shaped
// and scaled, with fades at both ends. Every sample of the file is sample(n); its measurement by
// Meter is computed exactly from the first seconds, one period and the last seconds.
type synth struct {
	rate, channels int
	frames         int64 // N
	period         int64 // frames of the pattern
	fadeIn         int64
	fadeOut        int64
	base           []float64 // the speech, peak 1
	shaped         []float64 // base after shaping
	gain           float64
	kind           int       // the shape last applied, kept for debugging
	x              float64   // and its parameter
	qbuf           []float64 // tpHist samples of history, then the quantised pattern
	explicit       bool      // short files are modelled sample by sample
	jH, jT, jN     int64     // first interior sub-block, first tail sub-block, complete sub-blocks
	work           []float64
	scratch        []float64 // the clipper's output at threshold 16, once blendReady
	blendReady     bool
}

// Synthesize returns a WAV file made to spec; see SynthesizeTo. The whole file is held in memory
// (about 10 MB a minute for 44.1 kHz stereo), so prefer SynthesizeTo for long files.
func Synthesize(spec SynthSpec) ([]byte, error) {
	s, err := planSynth(spec)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(int(min(s.fileSize(), 1<<28)))
	if err := s.write(&b, spec); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// SynthesizeTo writes a 16-bit PCM WAV file of speech-like sound made to spec: formant-filtered
// voiced syllables about four a second, fricatives and pauses between phrases, faded in and out
// over 50 to 200 ms (a tenth of the duration). Measured by Measure, its integrated loudness is
// within 0.02 LU of the spec and its true peak within 0.05 dB of a requested one, or from −1.2 to
// −1.0 dBTP when the speech would otherwise peak above −1 dBTP. The same spec gives the same
// bytes (on a given platform: floating-point results may differ in the last bit across
// architectures).
//
// The speech repeats every 10 s, so a long file costs little more than a short one to plan, and
// it is streamed to w, never held in memory. The solver models the 16-bit file sample for sample,
// so 16 bits are always enough for the accuracy above.
//
// To reach a true peak, the speech is soft-clipped (with low-pass filtering between rounds, which
// keeps peaks between samples in check) or a short band-limited click is added in a gap near its
// start, whichever moves the peak the right way. Reachable true peaks run from about 5 dB (mono;
// about 2 dB for stereo) to about 40 dB above the loudness (less for files under 2 s). Specs out
// of range, or a loudness and true peak the speech cannot have together (including the default
// limit of −1 dBTP for mono louder than about −6.3 LUFS at some sample rates), give an error
// wrapping ErrInvalidSpec before anything is written.
func SynthesizeTo(w io.Writer, spec SynthSpec) error {
	s, err := planSynth(spec)
	if err != nil {
		return err
	}
	return s.write(w, spec)
}

// SynthesizedSize returns the size in bytes of the WAV file SynthesizeTo writes for spec. Like
// SynthesizedFrames it checks the spec's ranges and tags without solving it (CheckSpec does).
func SynthesizedSize(spec SynthSpec) (int64, error) {
	l, err := layoutOf(spec)
	if err != nil {
		return 0, err
	}
	s := &synth{rate: l.rate, channels: l.channels, frames: l.frames} // the header needs no solving
	return int64(len(s.header(spec))) + s.frames*int64(s.channels)*2, nil
}

// SynthesizedFrames returns the frames, channels and sample rate of the audio SynthesizeSamples
// passes for spec. It checks the spec's ranges and tags but does not solve for the loudness and
// true peak (CheckSpec does): the layout is known without that work.
func SynthesizedFrames(spec SynthSpec) (frames int64, channels, rate int, err error) {
	l, err := layoutOf(spec)
	if err != nil {
		return 0, 0, 0, err
	}
	return l.frames, l.channels, l.rate, nil
}

// SynthesizeSamples makes the audio SynthesizeTo would write for spec and passes it to emit as
// interleaved samples in [-1, 1) (the 16-bit values over 32768), in blocks, with the number of
// frames it will pass in all known first through frames. It is for encoders of other formats.
func SynthesizeSamples(spec SynthSpec, frames func(n int64, channels, rate int) error, emit func(samples []float64) error) error {
	p, err := PlanSynthesis(spec)
	if err != nil {
		return err
	}
	return p.Samples(frames, emit)
}

// SynthesizeExcerpt is SynthesizeSamples for an excerpt of the file that stands for all of it:
// the file less whole periods of its repeating middle, so that one period and a second either
// side of it stay of the middle (a file too short to lose a period is passed whole). Every
// other frame is the file's own, at the same place modulo the period, and the excerpt ends as
// the file does; so a coder whose frames fit the period (SynthSpec.PeriodMultiple) and whose
// memory is shorter than a second codes in the excerpt every stretch it codes in the file, and
// the coded excerpt's true peak is the coded file's. It costs at most about two periods and the
// head and tail to make, whatever the duration.
func SynthesizeExcerpt(spec SynthSpec, frames func(n int64, channels, rate int) error, emit func(samples []float64) error) error {
	p, err := PlanSynthesis(spec)
	if err != nil {
		return err
	}
	return p.Excerpt(frames, emit)
}

// SynthPlan is a spec solved for its shape and gain (the work CheckSpec does), from which its
// audio, its excerpt and its planned true peak are made without solving again: for callers
// that make more than one of them from one spec. It is not safe for concurrent use.
type SynthPlan struct{ s *synth }

// PlanSynthesis validates spec and solves it, with the error SynthesizeTo would give.
func PlanSynthesis(spec SynthSpec) (*SynthPlan, error) {
	s, err := planSynth(spec)
	if err != nil {
		return nil, err
	}
	return &SynthPlan{s: s}, nil
}

// TruePeak is the true peak of the audio the plan gives, as the synthesiser's model of the
// 16-bit file gives it (Measure agrees within 0.05 dB).
func (p *SynthPlan) TruePeak() float64 {
	_, tp := p.s.evaluate()
	return tp
}

// Samples is SynthesizeSamples of the plan's spec.
func (p *SynthPlan) Samples(frames func(n int64, channels, rate int) error, emit func(samples []float64) error) error {
	if err := frames(p.s.frames, p.s.channels, p.s.rate); err != nil {
		return err
	}
	return p.s.writeData(&sampleWriter{emit: emit})
}

// Excerpt is SynthesizeExcerpt of the plan's spec; the plan itself stays the whole file's.
func (p *SynthPlan) Excerpt(frames func(n int64, channels, rate int) error, emit func(samples []float64) error) error {
	s := *p.s // excerpt changes only the copy's counts; the pattern is shared and only read
	s.excerpt()
	if err := frames(s.frames, s.channels, s.rate); err != nil {
		return err
	}
	return s.writeData(&sampleWriter{emit: emit})
}

// excerpt shortens the planned file by whole periods of its middle, keeping at least a period
// and a second either side of the middle; the head, tail and fades stay as planned.
func (s *synth) excerpt() {
	if s.explicit {
		return
	}
	r := int64(s.rate)
	middle := boundary(s.jT, r) - boundary(s.jH, r)
	keep := s.period + 2*r
	if middle <= keep {
		return
	}
	drop := (middle - keep) / s.period * s.period
	s.frames -= drop
	s.jT -= drop * 10 / r // periods are whole sub-blocks
	s.jN -= drop * 10 / r
}

// sampleWriter turns 16-bit little-endian PCM into samples; writes come in whole samples.
type sampleWriter struct {
	emit func([]float64) error
	buf  []float64
}

//go:norace
func (w *sampleWriter) Write(p []byte) (int, error) {
	w.buf = w.buf[:0]
	for i := 0; i+1 < len(p); i += 2 {
		w.buf = append(w.buf, float64(int16(binary.LittleEndian.Uint16(p[i:])))/32768)
	}
	if err := w.emit(w.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ID3Tag returns the ID3v2.4 tag SynthesizeTo embeds for spec (title, tags, chapters, cover),
// for a file of another format; when spec has no tags its title alone, nil without a title.
func ID3Tag(spec SynthSpec) []byte {
	if tag := id3Tag(spec); tag != nil {
		return tag
	}
	spec.Tags.Title = spec.Title
	return id3Tag(spec)
}

// CheckSpec reports whether spec can be synthesised, with the error SynthesizeTo would give,
// without writing anything; callers that accept specs long before synthesising use it.
func CheckSpec(spec SynthSpec) error {
	_, err := planSynth(spec)
	return err
}

// synthLayout is what a spec fixes before any solving: the rate, channels, loudness and frames.
type synthLayout struct {
	rate, channels int
	lufs           float64
	frames         int64
}

// layoutOf validates spec's ranges and tags and applies its defaults.
func layoutOf(spec SynthSpec) (synthLayout, error) {
	rate, channels, lufs := spec.SampleRate, spec.Channels, spec.LoudnessLUFS
	if rate == 0 {
		rate = defaultRate
	}
	if channels == 0 {
		channels = 1
	}
	if lufs == 0 {
		lufs = defaultLUFS
	}
	d := spec.DurationSeconds
	switch {
	case !(d >= synthMinSeconds && d <= synthMaxSeconds):
		return synthLayout{}, fmt.Errorf("%w: duration %v s (want %v to %v)", ErrInvalidSpec, d, synthMinSeconds, synthMaxSeconds)
	case rate < MinSampleRate || rate > MaxSampleRate:
		return synthLayout{}, fmt.Errorf("%w: sample rate %d Hz (want %d to %d)", ErrInvalidSpec, rate, MinSampleRate, MaxSampleRate)
	case channels != 1 && channels != 2:
		return synthLayout{}, fmt.Errorf("%w: %d channels (want 1 or 2)", ErrInvalidSpec, channels)
	case !(lufs >= synthMinLUFS && lufs <= synthMaxLUFS):
		return synthLayout{}, fmt.Errorf("%w: loudness %v LUFS (want %v to %v)", ErrInvalidSpec, lufs, synthMinLUFS, synthMaxLUFS)
	case spec.TruePeakDB != nil && !(*spec.TruePeakDB >= synthMinPeak && *spec.TruePeakDB <= synthMaxPeak):
		return synthLayout{}, fmt.Errorf("%w: true peak %v dBTP (want %v to %v)", ErrInvalidSpec, *spec.TruePeakDB, synthMinPeak, synthMaxPeak)
	case spec.PeriodMultiple < 0 || spec.PeriodMultiple > MaxPeriodMultiple:
		return synthLayout{}, fmt.Errorf("%w: period multiple %d frames (want 0 to %d)", ErrInvalidSpec, spec.PeriodMultiple, MaxPeriodMultiple)
	}
	frames := int64(math.Round(d * float64(rate)))
	if err := checkTags(spec, framesDuration(frames, rate)); err != nil {
		return synthLayout{}, err
	}
	return synthLayout{rate: rate, channels: channels, lufs: lufs, frames: frames}, nil
}

// planSynth validates spec and solves for the shape and gain.
func planSynth(spec SynthSpec) (*synth, error) {
	l, err := layoutOf(spec)
	if err != nil {
		return nil, err
	}
	s := newSynth(l.rate, l.channels, l.frames, patternPeriod(l.rate, spec.PeriodMultiple))
	if err := s.solve(l.lufs, spec.TruePeakDB); err != nil {
		return nil, err
	}
	return s, nil
}

// patternPeriod returns the speech's period in frames: 10 s, or with a multiple the shortest
// period of at least 10 s that is a whole number of multiples and of the meter's 100 ms
// sub-blocks (whose boundaries repeat every 2205 frames at 11025 Hz), so that the model of the
// file's loudness stays exact.
func patternPeriod(rate, multiple int) int64 {
	period := int64(patternSeconds * rate)
	if multiple == 0 {
		return period
	}
	blocks := int64(rate) / gcd(int64(rate), 10) // frames of the shortest run of whole sub-blocks
	step := blocks / gcd(blocks, int64(multiple)) * int64(multiple)
	return (period + step - 1) / step * step
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func newSynth(rate, channels int, frames, period int64) *synth {
	fs := float64(rate)
	fade := int64(math.Round(min(maxFade, max(minFade, float64(frames)/fs/10)) * fs))
	s := &synth{
		rate:     rate,
		channels: channels,
		frames:   frames,
		period:   period,
		fadeIn:   fade,
		fadeOut:  fade,
		gain:     1,
	}
	r := int64(rate)
	if frames >= s.period+4*r {
		s.jH = firstBoundaryAtOrAfter(s.fadeIn+warmupSeconds*r, r)
		s.jT = lastBoundaryAtOrBefore(frames-s.fadeOut-r/10, r)
		bH, bT := boundary(s.jH, r), boundary(s.jT, r)
		s.explicit = bT-warmupSeconds*r < bH || bT-bH < s.period
	} else {
		s.explicit = true
	}
	s.jN = lastBoundaryAtOrBefore(frames, r)
	n := min(frames, s.period)
	s.base = renderSpeech(speechPlan(float64(period)/fs), rate, int(n))
	s.shaped = make([]float64, n)
	s.scratch = make([]float64, n)
	s.qbuf = make([]float64, tpHist+int(n))
	return s
}

func firstBoundaryAtOrAfter(frame, rate int64) int64 {
	j := frame * 10 / rate
	for boundary(j, rate) < frame {
		j++
	}
	for j > 0 && boundary(j-1, rate) >= frame {
		j--
	}
	return j
}

func lastBoundaryAtOrBefore(frame, rate int64) int64 {
	j := frame * 10 / rate
	for boundary(j, rate) > frame {
		j--
	}
	for boundary(j+1, rate) <= frame {
		j++
	}
	return j
}

// quantize rounds v to the nearest 16-bit sample (halves away from zero, as math.Round),
// clamping, NaN to 0. It rounds by way of math.Trunc, which the compiler makes an instruction,
// and without a data-dependent branch: math.Round reads the float's bits through
// unsafe.Pointer, which the race build's pointer checks make costly in the synthesiser's
// per-sample loops.
func quantize(v float64) int16 {
	x := v * 32768
	switch {
	case x >= 32767.5: // math.Round(x) > 32767
		return 32767
	case x <= -32768.5: // math.Round(x) < -32768
		return -32768
	case x != x:
		return 0
	}
	t := math.Trunc(x)
	d := x - t                        // exact, in (-1, 1)
	return int16(t + math.Trunc(d+d)) // d+d is exact; its truncation is -1, 0 or 1
}

// envelope is the fade gain of frame n.
//
//go:norace
func (s *synth) envelope(n int64) float64 {
	g := 1.0
	if n < s.fadeIn {
		v := math.Sin(math.Pi / 2 * (float64(n) + 0.5) / float64(s.fadeIn))
		g = v * v
	}
	if n >= s.frames-s.fadeOut {
		v := math.Sin(math.Pi / 2 * (float64(s.frames-n) - 0.5) / float64(s.fadeOut))
		g *= v * v
	}
	return g
}

// sample is frame n of the file, as stored.
//
//go:norace
func (s *synth) sample(n int64) int16 {
	v := s.gain * s.shaped[n%int64(len(s.shaped))]
	if e := s.envelope(n); e != 1 {
		v *= e
	}
	return quantize(v)
}

// shape sets shaped from base for a shape kind and parameter.
func (s *synth) shape(kind int, x float64) {
	s.kind, s.x = kind, x
	copy(s.shaped, s.base)
	switch kind {
	case shapeTransient:
		a := math.Pow(10, x)
		c := int(math.Round(transientTime * float64(s.rate)))
		for k := -transientHalfSpan; k <= transientHalfSpan; k++ {
			if i := c + k; i >= 0 && i < len(s.shaped) {
				w := 0.5 + 0.5*math.Cos(math.Pi*float64(k)/float64(transientHalfSpan+1))
				s.shaped[i] += a * sinc(0.9*float64(k)) * w
			}
		}
	case shapeClip:
		// Below clipBlendX the parameter crossfades from the speech to the clipper's output at
		// threshold 16 (the identity but for the low-pass), so the family starts at the natural
		// shape; above it the threshold falls as 10^−x.
		if x < clipBlendX {
			if !s.blendReady {
				s.clip(s.scratch, s.base, math.Pow(10, -clipBlendX))
				s.blendReady = true
			}
			l := max(0, x-clipMinX) / (clipBlendX - clipMinX)
			for i, v := range s.base {
				s.shaped[i] = (1-l)*v + l*s.scratch[i]
			}
			return
		}
		s.clip(s.shaped, s.base, math.Pow(10, -x))
	}
}

// clip soft-clips x at threshold t into dst, then low-passes and clips again a few times over;
// the low-pass removes the harmonics each clipping adds, so the true peak stays close to the
// sample peak. The filter runs circularly so that the pattern stays periodic.
//
//go:norace
func (s *synth) clip(dst, x []float64, t float64) {
	lp := newLowpass(clipLowpass*float64(s.rate), float64(s.rate))
	for i, v := range x {
		dst[i] = softClip(v, t)
	}
	for range clipFilterRounds {
		lp.circular(dst)
		for i, v := range dst {
			dst[i] = softClip(v, t)
		}
	}
}

// softClip limits v smoothly towards ±t with a sharp knee: v / (1 + (|v|/t)^4)^(1/4).
func softClip(v, t float64) float64 {
	r := v / t
	r2 := r * r
	return v / math.Sqrt(math.Sqrt(1+r2*r2))
}

// lowpass is a second-order Butterworth low-pass (RBJ cookbook).
type lowpass struct{ b0, b1, b2, a1, a2 float64 }

func newLowpass(fc, fs float64) lowpass {
	w := 2 * math.Pi * fc / fs
	alpha := math.Sin(w) / math.Sqrt2
	c := math.Cos(w)
	a0 := 1 + alpha
	return lowpass{b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0}
}

// circular filters x in place as one period of a periodic signal: it first runs over the end
// of the period to reach its steady state.
//
//go:norace
func (f lowpass) circular(x []float64) {
	var x1, x2, y1, y2 float64
	for _, v := range x[len(x)-min(len(x), 4096):] {
		v += denormalGuard
		y := f.b0*v + f.b1*x1 + f.b2*x2 - f.a1*y1 - f.a2*y2
		x2, x1, y2, y1 = x1, v, y1, y
	}
	for i, v := range x {
		v += denormalGuard
		y := f.b0*v + f.b1*x1 + f.b2*x2 - f.a1*y1 - f.a2*y2
		x2, x1, y2, y1 = x1, v, y1, y
		x[i] = y - denormalGuard
	}
}

// evaluate returns the integrated loudness and true peak Meter would measure for the file.
func (s *synth) evaluate() (lufs, truePeak float64) {
	r := int64(s.rate)
	c := float64(s.channels)
	gate := newBlockGate(s.rate, false)
	k := newKFilter(s.rate)
	if s.explicit {
		x := s.buffer(int(s.frames) + 2*tpHist)
		clear(x[:tpHist])
		clear(x[tpHist+int(s.frames):])
		for n := range s.frames {
			x[tpHist+int(n)] = float64(s.sample(n)) / 32768
		}
		for j := range s.jN {
			gate.add(c * k.energy(x[tpHist+boundary(j, r):tpHist+boundary(j+1, r)]))
		}
		return gate.blocks.integrated(), amplitudeDB(truePeakFilter.scan(x, tpHist, 0))
	}
	// One period, in steady state: the K-filter warms up on the period's last second.
	p := s.qbuf[tpHist:]
	for i, v := range s.shaped {
		p[i] = float64(quantize(s.gain*v)) / 32768
	}
	copy(s.qbuf[:tpHist], p[len(p)-tpHist:])
	tp := truePeakFilter.scan(s.qbuf, tpHist, 0)
	k.energy(p[len(p)-int(warmupSeconds*r):])
	periodic := make([]float64, s.period*10/r)
	for i := range periodic {
		periodic[i] = k.energy(p[boundary(int64(i), r):boundary(int64(i)+1, r)])
	}
	// The head, from silence.
	bH := boundary(s.jH, r)
	x := s.buffer(tpHist + int(bH))
	clear(x[:tpHist])
	for n := range bH {
		x[tpHist+int(n)] = float64(s.sample(n)) / 32768
	}
	tp = truePeakFilter.scan(x, tpHist, tp)
	k = newKFilter(s.rate)
	head := make([]float64, s.jH)
	for j := range s.jH {
		head[j] = k.energy(x[tpHist+boundary(j, r) : tpHist+boundary(j+1, r)])
	}
	// The tail, after a warm-up second, into silence.
	bT := boundary(s.jT, r)
	from := bT - warmupSeconds*r
	x = s.buffer(int(s.frames-from) + tpHist)
	for n := from; n < s.frames; n++ {
		x[n-from] = float64(s.sample(n)) / 32768
	}
	clear(x[s.frames-from:])
	tp = truePeakFilter.scan(x, int(bT-from), tp)
	k = newKFilter(s.rate)
	k.energy(x[:bT-from])
	for j := range s.jN {
		var e float64
		switch {
		case j < s.jH:
			e = head[j]
		case j < s.jT:
			e = periodic[j%int64(len(periodic))]
		default:
			e = k.energy(x[boundary(j, r)-from : boundary(j+1, r)-from])
		}
		gate.add(c * e)
	}
	return gate.blocks.integrated(), amplitudeDB(tp)
}

// buffer returns a reusable scratch slice of n samples.
func (s *synth) buffer(n int) []float64 {
	if cap(s.work) < n {
		s.work = make([]float64, n)
	}
	return s.work[:n]
}

// fitGain scales the file to the target loudness.
func (s *synth) fitGain(target float64) (lufs, truePeak float64) {
	for range 8 {
		lufs, truePeak = s.evaluate()
		if math.IsInf(lufs, -1) || math.Abs(target-lufs) <= loudnessAccuracy/2 {
			break
		}
		s.gain *= math.Pow(10, (target-lufs)/20)
	}
	return lufs, truePeak
}

// solve finds the shape and gain for the target loudness and true peak (nil: at most −1 dBTP).
// Shapes are compared by their peak-to-loudness ratio, measured with the samples scaled to just
// below the aimed peak so that 16-bit clamping never acts as a clipper.
func (s *synth) solve(target float64, peak *float64) error {
	aim, tol := defaultPeakAim, defaultPeakLimit-defaultPeakAim
	if peak != nil {
		aim, tol = *peak, peakAccuracy
	}
	natural := s.ratio(shapeNatural, 0, aim)
	if peak == nil && target+natural <= defaultPeakLimit-peakAccuracy {
		lufs, tp := s.fitGain(target)
		return s.check(target, lufs, tp, nil)
	}
	want := aim - target // the peak-to-loudness ratio to reach
	lufs, tp := math.Inf(-1), math.Inf(1)
	for round := range 3 {
		if round > 0 {
			if math.Abs(tp-aim) <= tol && math.Abs(lufs-target) <= loudnessAccuracy {
				break
			}
			want += aim - tp // what the last round left
		}
		switch {
		case round == 0 && math.Abs(want-natural) <= plrAccuracy:
			s.shape(shapeNatural, 0)
		case want < natural:
			if err := s.searchShape(shapeClip, clipGrid, want, target, aim); err != nil {
				return err
			}
		default:
			if err := s.searchShape(shapeTransient, transientGrid, want, target, aim); err != nil {
				return err
			}
		}
		lufs, tp = s.fitGain(target)
	}
	return s.check(target, lufs, tp, peak)
}

// check reports a plan that missed its targets (which the search should not allow).
func (s *synth) check(target, lufs, tp float64, peak *float64) error {
	switch {
	case math.Abs(lufs-target) > 2*loudnessAccuracy:
		return fmt.Errorf("%w: could not reach %.2f LUFS (got %.3f)", ErrInvalidSpec, target, lufs)
	case peak != nil && math.Abs(tp-*peak) > peakAccuracy:
		return fmt.Errorf("%w: could not reach %.2f dBTP at %.2f LUFS (got %.3f)", ErrInvalidSpec, *peak, target, tp)
	case peak == nil && tp > defaultPeakLimit:
		return fmt.Errorf("%w: could not keep the true peak at or below %.1f dBTP at %.2f LUFS (got %.3f)", ErrInvalidSpec, defaultPeakLimit, target, tp)
	}
	return nil
}

// ratio shapes with x and returns the peak-to-loudness ratio, measured with the largest sample
// scaled to 0.99 of the aimed peak.
//
//go:norace
//go:nocheckptr
func (s *synth) ratio(kind int, x, aim float64) float64 {
	s.shape(kind, x)
	var peak float64
	for _, v := range s.shaped {
		peak = max(peak, math.Abs(v))
	}
	s.gain = 0.99 * math.Pow(10, aim/20) / peak
	lufs, tp := s.evaluate()
	return tp - lufs
}

// Grids of shape parameters searched, from the natural shape outwards, for the first crossing of
// the wanted peak-to-loudness ratio; neither family is monotonic at its far end (clipping hard
// enough brings back overshoot between samples, and a click loud enough gates the speech out).
var (
	clipGrid      = []float64{clipMinX, -0.5, -0.2, 0.1, 0.4, 0.7, 1.0, 1.3, 1.6, clipMaxX}
	transientGrid = []float64{transientMinX, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, transientMaxX}
)

// searchShape finds a shape parameter whose peak-to-loudness ratio is want: it walks the grid to
// the first crossing, then refines by regula falsi (Illinois).
func (s *synth) searchShape(kind int, grid []float64, want, target, aim float64) error {
	lo := grid[0]
	flo := s.ratio(kind, lo, aim) - want
	least, most := flo, flo
	for _, hi := range grid[1:] {
		fhi := s.ratio(kind, hi, aim) - want
		least, most = min(least, fhi), max(most, fhi)
		if flo*fhi <= 0 {
			s.refine(kind, lo, hi, flo, fhi, want, aim)
			return nil
		}
		lo, flo = hi, fhi
	}
	return fmt.Errorf("%w: a true peak of %.2f dBTP at %.2f LUFS is out of reach: this speech's true peak at that loudness can be from %.2f to %.2f dBTP",
		ErrInvalidSpec, aim, target, target+want+least, target+want+most)
}

// refine narrows a bracket [lo, hi] whose ratios differ in sign (flo, fhi) down to the wanted ratio.
func (s *synth) refine(kind int, lo, hi, flo, fhi, want, aim float64) {
	side := 0
	for range 40 {
		if math.Abs(flo) <= plrAccuracy {
			s.ratio(kind, lo, aim)
			return
		}
		if math.Abs(fhi) <= plrAccuracy {
			s.ratio(kind, hi, aim)
			return
		}
		x := hi - fhi*(hi-lo)/(fhi-flo)
		if !(x > min(lo, hi) && x < max(lo, hi)) {
			x = (lo + hi) / 2
		}
		fx := s.ratio(kind, x, aim) - want
		if math.Abs(fx) <= plrAccuracy || math.Abs(hi-lo) < 1e-9 {
			return
		}
		if fx*fhi > 0 {
			hi, fhi = x, fx
			if side == 1 {
				flo /= 2
			}
			side = 1
		} else {
			lo, flo = x, fx
			if side == -1 {
				fhi /= 2
			}
			side = -1
		}
	}
}

// fileSize is the WAV file's size in bytes, without tags.
func (s *synth) fileSize() int64 {
	return 44 + s.frames*int64(s.channels)*2
}

// write streams the WAV file with spec's title, tags and cover.
func (s *synth) write(w io.Writer, spec SynthSpec) error {
	if _, err := w.Write(s.header(spec)); err != nil {
		return err
	}
	return s.writeData(w)
}

// header is the WAV file's header up to the audio data, with spec's title, tags and cover.
func (s *synth) header(spec SynthSpec) []byte {
	var hdr []byte
	list := infoList(infoFields(spec))
	id3 := id3Chunk(id3Tag(spec))
	dataBytes := s.frames * int64(s.channels) * 2
	riffSize := 4 + 24 + int64(len(list)) + int64(len(id3)) + 8 + dataBytes
	le32 := func(v int64) []byte {
		if v > math.MaxUint32 {
			v = math.MaxUint32 // too big for RIFF: readers take the data to the end
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(v))
	}
	hdr = append(hdr, "RIFF"...)
	hdr = append(hdr, le32(riffSize)...)
	hdr = append(hdr, "WAVEfmt "...)
	hdr = binary.LittleEndian.AppendUint32(hdr, 16)
	hdr = binary.LittleEndian.AppendUint16(hdr, wavePCM)
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(s.channels))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(s.rate))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(s.rate*s.channels*2))
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(s.channels*2))
	hdr = binary.LittleEndian.AppendUint16(hdr, 16)
	hdr = append(hdr, list...)
	hdr = append(hdr, id3...)
	hdr = append(hdr, "data"...)
	return append(hdr, le32(dataBytes)...)
}

// writeData streams the audio data: 16-bit little-endian samples, channels interleaved.
func (s *synth) writeData(w io.Writer) error {
	fb := int64(2 * s.channels)
	buf := make([]byte, 0, 1<<16)
	explicit := func(from, to int64) error {
		for n := from; n < to; n++ {
			v := uint16(s.sample(n))
			for range s.channels {
				buf = binary.LittleEndian.AppendUint16(buf, v)
			}
			if len(buf) >= cap(buf)-int(fb) {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		return nil
	}
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	if s.explicit {
		if err := explicit(0, s.frames); err != nil {
			return err
		}
		return flush()
	}
	r := int64(s.rate)
	bH, bT := boundary(s.jH, r), boundary(s.jT, r)
	if err := explicit(0, bH); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	// The interior repeats the quantised pattern.
	pattern := make([]byte, 0, s.period*fb)
	for _, v := range s.shaped {
		q := uint16(quantize(s.gain * v))
		for range s.channels {
			pattern = binary.LittleEndian.AppendUint16(pattern, q)
		}
	}
	for n := bH; n < bT; {
		pos := n % s.period
		run := min(bT-n, s.period-pos, 1<<20/fb)
		if _, err := w.Write(pattern[pos*fb : (pos+run)*fb]); err != nil {
			return err
		}
		n += run
	}
	if err := explicit(bT, s.frames); err != nil {
		return err
	}
	return flush()
}

// infoChunk returns a LIST/INFO chunk holding an INAM title, or nothing for an empty title.
func infoChunk(title string) []byte {
	return infoList([][2]string{{"INAM", title}})
}

// infoList returns a LIST/INFO chunk of the fields (ID, text) whose cleaned text is not empty
// (NUL bytes dropped, at most 4096 bytes of UTF-8 kept), or nothing when none is left.
func infoList(fields [][2]string) []byte {
	var body []byte
	for _, f := range fields {
		text := strings.ToValidUTF8(strings.ReplaceAll(f[1], "\x00", ""), "\uFFFD")
		for len(text) > maxTitle {
			text = strings.ToValidUTF8(text[:maxTitle], "")
		}
		if text == "" {
			continue
		}
		body = append(body, f[0]...)
		body = binary.LittleEndian.AppendUint32(body, uint32(len(text)+1))
		body = append(append(body, text...), 0)
		if len(text)%2 == 0 {
			body = append(body, 0) // the NUL made the size odd: pad
		}
	}
	if body == nil {
		return nil
	}
	b := append([]byte("LIST"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(body)))...)
	return append(append(b, "INFO"...), body...)
}
