package audio

import (
	"math"
	"time"
)

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

// Definitions of the signal statistics; the package documentation explains them.
const (
	// SilenceThresholdDB is the RMS level, in dBFS, under which a 100 ms window is silent.
	SilenceThresholdDB = -60.0
	// ClipLevel is the magnitude, in full-scale units, from which a flat run of samples counts as
	// clipped (−0.087 dBFS; at or below the largest sample of every integer format, including
	// 8-bit's 127/128).
	ClipLevel = 0.99
	// MinClipRun is the fewest consecutive equal samples near full scale that make a clipping run.
	MinClipRun = 3
	// NoiseFloorPercentile is the percentile of 100 ms window levels reported as the noise floor.
	NoiseFloorPercentile = 10
)

// silencePower is SilenceThresholdDB as a mean square.
var silencePower = math.Pow(10, SilenceThresholdDB/10)

// SignalStats are statistics of the whole signal beyond loudness and peaks, computed in one
// streaming pass in memory that does not depend on the duration. Levels are RMS in dBFS with full
// scale meaning a constant ±1.0 (a full-scale sine reads −3.01 dBFS, as in ffmpeg's astats).
// Windows are the meter's 100 ms sub-blocks (frames round(k·rate/10) up to round((k+1)·rate/10))
// and, at the end, the last partial window if any; a window's level is the RMS of all its samples
// in all channels.
type SignalStats struct {
	// LeadingSilence is the time before the first window at or above SilenceThresholdDB (the whole
	// duration when every window is silent).
	LeadingSilence time.Duration
	// TrailingSilence is the time after the last window at or above SilenceThresholdDB (the whole
	// duration when every window is silent).
	TrailingSilence time.Duration
	// LongestSilence is the longest run of consecutive silent windows with sound on both sides
	// (leading and trailing silence do not count), or 0.
	LongestSilence time.Duration
	// ClippingRuns is the number of runs of at least MinClipRun consecutive, equal samples of one
	// channel whose magnitude is at least ClipLevel: the flat tops that clipping leaves.
	ClippingRuns int64
	// ClippedSamples is the number of samples in those runs, summed over channels.
	ClippedSamples int64
	// NoiseFloorDB is the NoiseFloorPercentile-th percentile (nearest rank) of the windows' levels
	// in dBFS, to within 0.01 dB; −Inf when that window is digital silence or there is no audio.
	NoiseFloorDB float64
	// ChannelRMSDB is each channel's RMS level over the whole signal in dBFS (−Inf for silence).
	ChannelRMSDB []float64
	// DCOffset is each channel's mean sample value, linear in full-scale units (0.01 is 1% of full
	// scale, −40 dBFS); its sign is kept.
	DCOffset []float64
	// Correlation is the Pearson correlation of the first two channels (left and right) over the
	// whole signal, from −1 (one channel is the other inverted) to 1 (identical up to gain). It is
	// NaN for mono and when either channel is constant, such as digital silence.
	Correlation float64
}

// Level histogram: 0.01 dB bins from −200 to +200 dBFS in pages allocated on first use.
const (
	levelBinsPerDB = 100
	levelLow       = -200.0
	levelPageSize  = 100
	levelPages     = 400
	levelBinsTotal = levelPages * levelPageSize
	levelBinHalf   = 0.5 / levelBinsPerDB
)

// levelHistogram counts window levels; digital silence is counted apart, as −Inf.
type levelHistogram struct {
	pages [levelPages]*[levelPageSize]uint64
	zeros uint64
	n     uint64
}

func levelBin(db float64) int {
	x := math.Floor((db - levelLow) * levelBinsPerDB)
	switch {
	case !(x >= 0):
		return 0
	case x >= levelBinsTotal:
		return levelBinsTotal - 1
	}
	return int(x)
}

// add counts a window of the given mean square.
func (h *levelHistogram) add(power float64) {
	h.n++
	if !(power > 0) {
		h.zeros++
		return
	}
	b := levelBin(10 * math.Log10(power))
	p := h.pages[b/levelPageSize]
	if p == nil {
		p = new([levelPageSize]uint64)
		h.pages[b/levelPageSize] = p
	}
	p[b%levelPageSize]++
}

// percentile returns the nearest-rank pct-th percentile of the counted levels and of extra, a
// further window's mean square when extraOK, in dBFS (−Inf for none or digital silence).
func (h *levelHistogram) percentile(pct float64, extra float64, extraOK bool) float64 {
	n := h.n
	extraBin := -1
	extraZero := false
	if extraOK {
		n++
		if extra > 0 {
			extraBin = levelBin(10 * math.Log10(extra))
		} else {
			extraZero = true
		}
	}
	if n == 0 {
		return math.Inf(-1)
	}
	rank := uint64(math.Ceil(pct * float64(n) / 100)) // 1-based; exact for whole percentages
	rank = max(rank, 1)
	seen := h.zeros
	if extraZero {
		seen++
	}
	if rank <= seen {
		return math.Inf(-1)
	}
	for pi, p := range h.pages {
		if p == nil && (extraBin < 0 || extraBin/levelPageSize != pi) {
			continue
		}
		for i := range levelPageSize {
			b := pi*levelPageSize + i
			var c uint64
			if p != nil {
				c = p[i]
			}
			if b == extraBin {
				c++
			}
			seen += c
			if c > 0 && rank <= seen {
				return levelLow + float64(b)/levelBinsPerDB + levelBinHalf
			}
		}
	}
	return math.Inf(-1) // unreachable: the counts add up to n
}

// statsState is what the meter keeps for SignalStats between calls.
type statsState struct {
	winStart  int64   // first frame of the current window
	winEnergy float64 // sum of squared samples, all channels, in the current window
	firstLoud int64   // first frame of the first loud window, or −1
	loudEnd   int64   // frame after the last loud window
	longest   int64   // frames of the longest silence between loud windows
	levels    levelHistogram
	sumLR     float64 // sum of products of channels 0 and 1
}

func (s *statsState) reset() {
	*s = statsState{firstLoud: -1}
}

// window records the window of frames [s.winStart, end) with channels channels.
func (s *statsState) window(end int64, channels int) {
	p := s.winEnergy / float64((end-s.winStart)*int64(channels))
	s.levels.add(p)
	s.loud(s.winStart, end, p)
	s.winStart, s.winEnergy = end, 0
}

// loud updates the silence bounds for a window [start, end) of mean square p.
func (s *statsState) loud(start, end int64, p float64) {
	if !(p >= silencePower) {
		return
	}
	if s.firstLoud < 0 {
		s.firstLoud = start
	} else {
		s.longest = max(s.longest, start-s.loudEnd)
	}
	s.loudEnd = end
}

// endRun closes a channel's clipping run, if any.
func (ch *meterChannel) endRun() {
	if ch.clipRun >= MinClipRun {
		ch.runs++
		ch.clipped += ch.clipRun
	}
	ch.clipRun = 0
}

// clipScan follows clipping runs through a channel's chunk x that has a sample at or above
// ClipLevel; chunks without one just end the channel's run.
func (ch *meterChannel) clipScan(x []float64) {
	prev := ch.clipPrev
	for _, v := range x {
		near := abs(v) >= ClipLevel
		if near && ch.clipRun > 0 && v == prev {
			ch.clipRun++
		} else {
			ch.endRun()
			if near {
				ch.clipRun = 1
			}
		}
		prev = v
	}
	ch.clipPrev = prev
}

// signalStats computes SignalStats for the frames processed so far without changing the state.
func (m *Meter) signalStats() SignalStats {
	s := m.stats // a copy: the partial window and open clipping runs are added to it only
	rate := m.rate
	frames := m.frames
	var extra float64
	extraOK := frames > s.winStart
	if extraOK {
		extra = s.winEnergy / float64((frames-s.winStart)*int64(m.channels))
		s.loud(s.winStart, frames, extra)
	}
	st := SignalStats{
		NoiseFloorDB: s.levels.percentile(NoiseFloorPercentile, extra, extraOK),
		ChannelRMSDB: make([]float64, m.channels),
		DCOffset:     make([]float64, m.channels),
		Correlation:  math.NaN(),
	}
	if s.firstLoud < 0 {
		st.LeadingSilence = framesDuration(frames, rate)
		st.TrailingSilence = st.LeadingSilence
	} else {
		st.LeadingSilence = framesDuration(s.firstLoud, rate)
		st.TrailingSilence = framesDuration(frames-s.loudEnd, rate)
		st.LongestSilence = framesDuration(s.longest, rate)
	}
	for c := range m.chans {
		ch := &m.chans[c]
		st.ClippingRuns += ch.runs
		st.ClippedSamples += ch.clipped
		if ch.clipRun >= MinClipRun {
			st.ClippingRuns++
			st.ClippedSamples += ch.clipRun
		}
		if frames == 0 {
			st.ChannelRMSDB[c] = math.Inf(-1)
			continue
		}
		n := float64(frames)
		st.ChannelRMSDB[c] = 10 * math.Log10(ch.sumSq/n)
		st.DCOffset[c] = ch.sum / n
	}
	if m.channels >= 2 && frames > 0 {
		n := float64(frames)
		l, r := &m.chans[0], &m.chans[1]
		ml, mr := l.sum/n, r.sum/n
		cov := s.sumLR/n - ml*mr
		vl := l.sumSq/n - ml*ml
		vr := r.sumSq/n - mr*mr
		// A constant channel leaves only rounding error in its variance.
		if vl > 1e-12*l.sumSq/n && vr > 1e-12*r.sumSq/n {
			st.Correlation = max(-1, min(1, cov/math.Sqrt(vl*vr)))
		}
	}
	return st
}

// moments returns the sum of x and the sum of its squares. Four accumulators each keep the
// additions' latency out of the way, so this costs about a cycle a sample.
//
//go:norace
func moments(x []float64) (sum, sq float64) {
	var s0, s1, s2, s3, q0, q1, q2, q3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b, c, d := x[i], x[i+1], x[i+2], x[i+3]
		s0 += a
		s1 += b
		s2 += c
		s3 += d
		q0 += a * a
		q1 += b * b
		q2 += c * c
		q3 += d * d
	}
	for ; i < len(x); i++ {
		s0 += x[i]
		q0 += x[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3), (q0 + q1) + (q2 + q3)
}

// dot returns the sum of the products x[i]·y[i]; y is at least as long as x.
//
//go:norace
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var p0, p1, p2, p3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		p0 += x[i] * y[i]
		p1 += x[i+1] * y[i+1]
		p2 += x[i+2] * y[i+2]
		p3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		p0 += x[i] * y[i]
	}
	return (p0 + p1) + (p2 + p3)
}
