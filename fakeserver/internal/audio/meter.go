package audio

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

// Limits of the streams the reader, the meter and the synthesiser accept.
const (
	// MinSampleRate is the lowest sample rate, in Hz: AAC's lowest (sampling frequency index
	// 11), which its decoder supports; the K-weighting is computed for any rate.
	MinSampleRate = 7350
	// MaxSampleRate is the highest sample rate, in Hz.
	MaxSampleRate = 384000
	// MaxChannels is the largest number of channels.
	MaxChannels = 8
)

// maxMagnitude limits sample magnitudes so that no input can overflow the meter (180 dBFS).
const maxMagnitude = 1e9

// meterChunk is how many frames the meter handles at a time.
const meterChunk = 1024

// Speaker position bits of a WAVE_FORMAT_EXTENSIBLE channel mask that BS.1770 weights apart.
const (
	speakerLFE         = 0x8
	speakerBackLeft    = 0x10
	speakerBackRight   = 0x20
	speakerBackCentre  = 0x100
	speakerSideLeft    = 0x200
	speakerSideRight   = 0x400
	surroundSpeakerSet = speakerBackLeft | speakerBackRight | speakerBackCentre | speakerSideLeft | speakerSideRight
)

// ChannelWeights returns the BS.1770-4 weight of each of channels channels: 1.0 for front
// channels, 1.41 for surround channels and 0 for LFE. A non-zero WAVE_FORMAT_EXTENSIBLE channel
// mask assigns positions to channels in bit order (channels beyond the mask weigh 1.0); with mask 0
// the channels are in the 5.1 order L, R, C, LFE, Ls, Rs, and channels 7 and 8 are surrounds.
func ChannelWeights(channels int, mask uint32) []float64 {
	w := make([]float64, max(channels, 0))
	if mask == 0 {
		for i := range w {
			switch {
			case i == 3:
				w[i] = 0
			case i >= 4:
				w[i] = 1.41
			default:
				w[i] = 1
			}
		}
		return w
	}
	i := 0
	for bit := uint32(1); bit != 0 && i < len(w); bit <<= 1 {
		if mask&bit == 0 {
			continue
		}
		switch {
		case bit == speakerLFE:
			w[i] = 0
		case bit&surroundSpeakerSet != 0:
			w[i] = 1.41
		default:
			w[i] = 1
		}
		i++
	}
	for ; i < len(w); i++ {
		w[i] = 1
	}
	return w
}

// MeterResult is what a Meter has measured so far.
type MeterResult struct {
	// Frames is the number of whole frames processed.
	Frames int64
	// IntegratedLUFS is the gated integrated loudness (BS.1770-4), or −Inf for silence or audio
	// shorter than 400 ms.
	IntegratedLUFS float64
	// LoudnessRange is the EBU Tech 3342 loudness range in LU (0 below 3 s of audio).
	LoudnessRange float64
	// SamplePeakDB is the largest sample magnitude in dBFS, or −Inf for silence.
	SamplePeakDB float64
	// TruePeakDB is the largest 4× oversampled magnitude in dBTP, or −Inf for silence.
	TruePeakDB float64
	// ShortTerm is the short-term loudness once a second.
	ShortTerm ShortTermSeries
	// SignalStats are silences, clipping, noise floor, DC offset, channel levels and correlation.
	SignalStats
}

// Meter measures loudness, loudness range, sample peak, true peak and SignalStats of interleaved
// float64 samples fed to it in blocks of any size. Its memory does not grow with the audio's
// duration, but for the short-term loudness series (2 bytes a second).
// A Meter is not safe for concurrent use.
type Meter struct {
	rate     int
	channels int
	weights  []float64
	chans    []meterChannel
	tp       *tpFilter
	gate     *blockGate
	frames   int64
	subEnd   int64 // first frame of the next sub-block
	pending  []float64
	split    bool    // measure channels on two goroutines (see processSplit)
	plan     []int   // processSplit's chunk lengths
	sample   float64 // sample peak, linear
	truePeak float64 // true peak, linear
	stats    statsState
}

type meterChannel struct {
	k        kFilter
	energy   float64 // sum of squared K-weighted samples in the current sub-block
	hist     [tpHist]float64
	sum      float64   // of the samples, for the DC offset
	sumSq    float64   // of the squared samples, for the RMS level
	clipPrev float64   // the last sample, for clipping runs
	clipRun  int64     // equal samples near full scale up to the last one
	runs     int64     // clipping runs ended so far
	clipped  int64     // samples in them
	buf      []float64 // tpHist samples of history, then the chunk being measured
	maxes    []float64 // the largest magnitude of each tpChunk samples of the chunk in buf
	// What processSplit's workers leave for the merge: the block's samples after tpHist of
	// history, each chunk's sum of squares and K-weighted energy, the block's peaks.
	block     []float64
	sqs       []float64
	energies  []float64
	blockPeak float64
	blockTP   float64
}

// ErrBadMeterConfig reports an unsupported sample rate, channel count or channel weights.
var ErrBadMeterConfig = errors.New("audio: unsupported meter configuration")

// NewMeter returns a meter for audio with the given sample rate (MinSampleRate to MaxSampleRate Hz) and number of
// channels (1 to 8), with the default channel weights of ChannelWeights(channels, 0).
func NewMeter(sampleRate, channels int) (*Meter, error) {
	if sampleRate < MinSampleRate || sampleRate > MaxSampleRate {
		return nil, fmt.Errorf("%w: sample rate %d Hz (want %d to %d)", ErrBadMeterConfig, sampleRate, MinSampleRate, MaxSampleRate)
	}
	if channels < 1 || channels > MaxChannels {
		return nil, fmt.Errorf("%w: %d channels (want 1 to %d)", ErrBadMeterConfig, channels, MaxChannels)
	}
	m := &Meter{
		rate:     sampleRate,
		channels: channels,
		weights:  ChannelWeights(channels, 0),
		chans:    make([]meterChannel, channels),
		tp:       truePeakFilter,
		pending:  make([]float64, 0, channels),
	}
	m.Reset()
	return m, nil
}

// SetChannelWeights replaces the channel weights (one per channel, each finite and from 0 to 10),
// for example with ChannelWeights(channels, mask). Call it before the first Process.
func (m *Meter) SetChannelWeights(weights []float64) error {
	if len(weights) != m.channels {
		return fmt.Errorf("%w: %d weights for %d channels", ErrBadMeterConfig, len(weights), m.channels)
	}
	for _, w := range weights {
		if !(w >= 0 && w <= 10) {
			return fmt.Errorf("%w: channel weight %v", ErrBadMeterConfig, w)
		}
	}
	m.weights = append(m.weights[:0], weights...)
	return nil
}

// Reset forgets all audio processed so far, keeping the configuration.
func (m *Meter) Reset() {
	for i := range m.chans {
		buf, maxes := m.chans[i].buf, m.chans[i].maxes
		if buf == nil {
			buf = make([]float64, tpHist+meterChunk)
			maxes = make([]float64, (meterChunk+tpChunk-1)/tpChunk)
		}
		m.chans[i] = meterChannel{k: newKFilter(m.rate), buf: buf, maxes: maxes,
			block: m.chans[i].block, sqs: m.chans[i].sqs[:0], energies: m.chans[i].energies[:0]}
	}
	m.gate = newBlockGate(m.rate, true)
	m.frames = 0
	m.subEnd = boundary(1, int64(m.rate))
	m.pending = m.pending[:0]
	m.sample, m.truePeak = 0, 0
	m.stats.reset()
}

// Process measures interleaved samples (channel 0 of frame 0, channel 1 of frame 0, ...). A
// trailing partial frame is kept until the next call completes it.
func (m *Meter) Process(samples []float64) {
	if len(m.pending) > 0 {
		n := min(m.channels-len(m.pending), len(samples))
		m.pending = append(m.pending, samples[:n]...)
		samples = samples[n:]
		if len(m.pending) < m.channels {
			return
		}
		m.processFrames(m.pending)
		m.pending = m.pending[:0]
	}
	whole := len(samples) / m.channels * m.channels
	m.processFrames(samples[:whole])
	m.pending = append(m.pending, samples[whole:]...)
}

func (m *Meter) processFrames(samples []float64) {
	if m.split && m.channels >= 2 && len(samples) >= splitMinFrames*m.channels {
		m.processSplit(samples)
		return
	}
	for len(samples) > 0 {
		n := int(min(int64(len(samples)/m.channels), meterChunk, m.subEnd-m.frames))
		for c := range m.chans {
			ch := &m.chans[c]
			buf := ch.buf[:tpHist+n]
			copy(buf, ch.hist[:])
			x := buf[tpHist:]
			maxes := ch.maxes[:(n+tpChunk-1)/tpChunk]
			peak := deinterleave(x, samples, c, m.channels, maxes)
			m.sample = max(m.sample, peak)
			if peak >= ClipLevel {
				ch.clipScan(x)
			} else if ch.clipRun > 0 {
				ch.endRun()
			}
			// Sums are kept per chunk and then added, which keeps rounding error small.
			sum, sq := moments(x)
			ch.sum += sum
			ch.sumSq += sq
			m.stats.winEnergy += sq
			if c == 1 {
				m.stats.sumLR += dot(x, m.chans[0].buf[tpHist:])
			}
		}
		// K-weighting is a chain of dependent operations per sample; two channels filtered in
		// one loop run side by side in the processor.
		c := 0
		for ; c+1 < len(m.chans); c += 2 {
			a, b := &m.chans[c], &m.chans[c+1]
			ea, eb := energy2(&a.k, &b.k, a.buf[tpHist:tpHist+n], b.buf[tpHist:tpHist+n])
			a.energy += ea
			b.energy += eb
		}
		if c < len(m.chans) {
			ch := &m.chans[c]
			ch.energy += ch.k.energy(ch.buf[tpHist : tpHist+n])
		}
		for c := range m.chans {
			ch := &m.chans[c]
			buf := ch.buf[:tpHist+n]
			m.truePeak = m.tp.scanChunks(buf, ch.maxes[:(n+tpChunk-1)/tpChunk], m.truePeak)
			copy(ch.hist[:], buf[n:])
		}
		samples = samples[n*m.channels:]
		m.advance(n)
	}
}

// advance counts n frames measured and closes the sub-block they end, if they end one.
func (m *Meter) advance(n int) {
	m.frames += int64(n)
	if m.frames == m.subEnd {
		var e float64
		for c := range m.chans {
			e += m.weights[c] * m.chans[c].energy
			m.chans[c].energy = 0
		}
		m.gate.add(e)
		m.stats.window(m.frames, m.channels)
		m.subEnd = boundary(m.gate.next+1, int64(m.rate))
	}
}

// splitMinFrames is the shortest block processSplit takes: shorter ones do not repay a goroutine.
const splitMinFrames = 2048

// processSplit is processFrames with the channels divided between the calling goroutine and a
// second one: each measures its channels' chunks (the same chunks processFrames cuts) through
// the whole block, keeping per chunk what the merge needs. The merge then adds the chunks'
// sums in processFrames' order and takes the maxima, so the results are the same bit for bit.
func (m *Meter) processSplit(samples []float64) {
	frames := len(samples) / m.channels
	plan := m.plan[:0]
	at, subEnd, next := m.frames, m.subEnd, m.gate.next
	for left := frames; left > 0; {
		n := int(min(int64(left), meterChunk, subEnd-at))
		plan = append(plan, n)
		at += int64(n)
		left -= n
		if at == subEnd {
			next++
			subEnd = boundary(next+1, int64(m.rate))
		}
	}
	m.plan = plan
	half := m.channels / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.measureChannels(samples, half, m.channels)
	}()
	m.measureChannels(samples, 0, half)
	wg.Wait()
	off := 0
	for k, n := range plan {
		for c := range m.chans {
			ch := &m.chans[c]
			m.stats.winEnergy += ch.sqs[k]
			ch.energy += ch.energies[k]
		}
		m.stats.sumLR += dot(m.chans[1].block[tpHist+off:tpHist+off+n], m.chans[0].block[tpHist+off:])
		off += n
		m.advance(n)
	}
	for c := range m.chans {
		m.sample = max(m.sample, m.chans[c].blockPeak)
		m.truePeak = max(m.truePeak, m.chans[c].blockTP)
	}
}

// measureChannels measures channels lo to hi−1 of the frames in samples, chunk by chunk as
// m.plan says, for processSplit. It writes only those channels' state.
func (m *Meter) measureChannels(samples []float64, lo, hi int) {
	frames := len(samples) / m.channels
	for c := lo; c < hi; c++ {
		ch := &m.chans[c]
		need := tpHist + frames
		if cap(ch.block) < need {
			ch.block = make([]float64, need)
		}
		blk := ch.block[:need]
		copy(blk, ch.hist[:])
		ch.sqs, ch.energies = ch.sqs[:0], ch.energies[:0]
		peak, tp := 0.0, m.truePeak
		off := 0
		for _, n := range m.plan {
			buf := blk[off : off+tpHist+n]
			x := buf[tpHist:]
			maxes := ch.maxes[:(n+tpChunk-1)/tpChunk]
			p := deinterleave(x, samples[off*m.channels:], c, m.channels, maxes)
			peak = max(peak, p)
			if p >= ClipLevel {
				ch.clipScan(x)
			} else if ch.clipRun > 0 {
				ch.endRun()
			}
			sum, sq := moments(x)
			ch.sum += sum
			ch.sumSq += sq
			ch.sqs = append(ch.sqs, sq)
			ch.energies = append(ch.energies, ch.k.energy(x))
			tp = m.tp.scanChunks(buf, maxes, tp)
			off += n
		}
		copy(ch.hist[:], blk[frames:])
		ch.blockPeak, ch.blockTP = peak, tp
	}
}

// deinterleave copies channel c of the interleaved frames in samples to x, with NaN read as 0
// and magnitudes limited to maxMagnitude, and stores in maxes[k] the largest magnitude of
// x[k·tpChunk:(k+1)·tpChunk]; it returns the largest of all.
//
//go:norace
//go:nocheckptr
func deinterleave(x, samples []float64, c, stride int, maxes []float64) (peak float64) {
	samples = samples[c:]
	j := 0
	for k := range maxes {
		xs := x[k*tpChunk : min((k+1)*tpChunk, len(x))]
		// The magnitudes of finite numbers order as their bit patterns without the sign do,
		// and NaN's patterns are above every finite one, so one unsigned maximum, which
		// compiles without a branch, finds the chunk's peak and any value to sanitise.
		var cm uint64
		for i := range xs {
			v := samples[j]
			j += stride
			xs[i] = v
			cm = max(cm, math.Float64bits(v)&^signBit)
		}
		if cm > maxMagnitudeBits {
			cm = sanitize(xs)
		}
		m := math.Float64frombits(cm)
		maxes[k] = m
		peak = max(peak, m)
	}
	return peak
}

// signBit is the sign of a float64's bit pattern.
const signBit = 1 << 63

// maxMagnitudeBits is the bit pattern of maxMagnitude.
var maxMagnitudeBits = math.Float64bits(maxMagnitude)

// sanitize reads NaN in x as 0 and limits magnitudes to maxMagnitude; it returns the bit
// pattern of the largest magnitude after.
func sanitize(x []float64) uint64 {
	var cm uint64
	for i, v := range x {
		if v != v {
			v = 0
		} else if math.Abs(v) > maxMagnitude {
			v = math.Copysign(maxMagnitude, v)
		}
		x[i] = v
		cm = max(cm, math.Float64bits(v)&^signBit)
	}
	return cm
}

// Result returns the measurements of the audio processed so far; processing may continue after.
func (m *Meter) Result() MeterResult {
	tp := m.truePeak
	// The interpolated values between the last samples and the silence after them.
	buf := make([]float64, 2*tpHist)
	for c := range m.chans {
		copy(buf, m.chans[c].hist[:])
		clear(buf[tpHist:])
		tp = m.tp.scan(buf, tpHist, tp)
	}
	return MeterResult{
		Frames:         m.frames,
		IntegratedLUFS: m.gate.blocks.integrated(),
		LoudnessRange:  m.gate.short.loudnessRange(),
		SamplePeakDB:   amplitudeDB(m.sample),
		TruePeakDB:     amplitudeDB(max(tp, m.sample)),
		ShortTerm:      slices.Clone(m.gate.series),
		SignalStats:    m.signalStats(),
	}
}

// amplitudeDB converts a linear magnitude to decibels (−Inf for 0).
func amplitudeDB(v float64) float64 {
	return 20 * math.Log10(v)
}
