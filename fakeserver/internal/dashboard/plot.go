package dashboard

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
)

// LoudnessSeries is a report's short-term loudness over time: fakeserver.LoudnessSeries's
// fields, which the facade converts (a conversion that stops compiling if the two drift).
type LoudnessSeries struct {
	Step, Window time.Duration
	LUFS         []float32
}

// Measurement is what analysis found in a report's audio: fakeserver.Measurement's fields.
type Measurement struct {
	Format, Codec                                   string
	Duration                                        time.Duration
	SampleRate                                      int
	Channels                                        int
	BitRate                                         int64
	IntegratedLUFS, TruePeakDB, SamplePeakDB        float64
	LoudnessRange                                   *float64
	LeadingSilence, TrailingSilence, LongestSilence *time.Duration
	ClippingRuns                                    *int
}

// LoudnessPlot is the SVG plot of a report's short-term loudness, computed here so that the
// template only places numbers. Points is the series as [seconds, LUFS or null] pairs, the same
// numbers the account gives, for the page's readers (data-points). Loudness (LUFS) and true
// peak (dBTP) are different measures: the true peak and its ceiling have a track and a scale of
// their own at the right, never the loudness axis.
type LoudnessPlot struct {
	Width, Height float64
	// Left, Top, Right, Bottom are the loudness area's edges; PlotW its width, MidY its middle.
	Left, Top, Right, Bottom, PlotW, MidY float64
	Points                                string
	Count                                 int
	StepS, WindowS                        float64
	// HasData is false when no value was measured above the gate: then no frame is drawn.
	HasData bool
	// Lines are the polylines' points attributes, one per run of measured values.
	Lines []string
	// Band is the target loudness band's rectangle; HasBand is false when the standard has none.
	HasBand          bool
	BandMin, BandMax float64
	BandY, BandH     float64
	// Integrated is the integrated loudness, drawn as a line at IntegratedY.
	HasIntegrated           bool
	Integrated, IntegratedY float64
	Ticks                   []plotTick
	TimeTicks               []plotTick
	DomainMin, DomainMax    float64
	XTitleY                 float64

	// The true-peak track: TrackX and TrackW place it, PeakTicks are its own dBTP scale.
	TrackX, TrackW, TrackH, TrackLabelX, TrackTitleX, CeilX1 float64
	XMid                                                     float64
	HasCeiling                                               bool
	Ceiling, CeilingY                                        float64
	HasPeak, PeakOver                                        bool
	Peak, PeakY, PeakH                                       float64
	PeakTicks                                                []plotTick
}

type plotTick struct {
	Pos   float64
	Label string
}

// PlotLoudness lays the series out on an SVG of fixed size: time across, LUFS up, the target
// band of the report's standard and the integrated loudness drawn; at the right the true peak
// against its ceiling on a dBTP scale. Work and output are linear in the series (at most one
// value a second: 10,800 for three hours).
func PlotLoudness(s LoudnessSeries, limits core.Limits, m *Measurement) LoudnessPlot {
	p := LoudnessPlot{Width: 960, Height: 330, Left: 72, Top: 16, Right: 780, Bottom: 270, PlotW: 708,
		Count: len(s.LUFS), StepS: s.Step.Seconds(), WindowS: s.Window.Seconds(),
		TrackX: 850, TrackW: 28}
	p.MidY = (p.Top + p.Bottom) / 2
	p.XTitleY = p.Bottom + 40
	p.TrackLabelX = p.TrackX + p.TrackW + 6
	p.TrackTitleX = p.Width - 12
	p.TrackH = p.Bottom - p.Top
	p.CeilX1 = p.TrackX - 6
	p.XMid = (p.Left + p.Right) / 2
	band := limits.Loudness
	if m != nil && m.Channels == 1 {
		band = limits.MonoLoudness
	}
	finite := func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }
	p.HasBand = band.Min != 0 || band.Max != 0
	p.BandMin, p.BandMax = band.Min, band.Max
	p.HasCeiling = limits.MaxTruePeak != 0
	p.Ceiling = limits.MaxTruePeak
	if m != nil && finite(m.TruePeakDB) {
		p.HasPeak, p.Peak = true, m.TruePeakDB
		p.PeakOver = p.HasCeiling && p.Peak > p.Ceiling
	}
	if m != nil && finite(m.IntegratedLUFS) {
		p.HasIntegrated, p.Integrated = true, m.IntegratedLUFS
	}

	// The loudness domain holds every value, the band and the integrated loudness, in whole
	// 6 dB steps.
	lo, hi := math.Inf(1), math.Inf(-1)
	grow := func(v float64) { lo, hi = math.Min(lo, v), math.Max(hi, v) }
	points := make([][2]any, len(s.LUFS))
	for i, v := range s.LUFS {
		t := float64(i) * p.StepS
		if !finite(float64(v)) {
			points[i] = [2]any{t, nil}
			continue
		}
		val := math.Round(float64(v)*100) / 100
		points[i] = [2]any{t, val}
		grow(val)
		p.HasData = true
	}
	if p.HasBand {
		grow(band.Min)
		grow(band.Max)
	}
	if p.HasIntegrated {
		grow(p.Integrated)
	}
	if math.IsInf(lo, 1) {
		lo, hi = -30, 0
	}
	p.DomainMin = math.Max(math.Floor((lo-3)/6)*6, -96)
	p.DomainMax = math.Min(math.Ceil((hi+1)/6)*6, 12)
	if p.DomainMax <= p.DomainMin {
		p.DomainMax = p.DomainMin + 6
	}
	raw, _ := json.Marshal(points)
	p.Points = string(raw)

	y := func(v float64) float64 {
		v = math.Max(p.DomainMin, math.Min(p.DomainMax, v))
		return round2(p.Top + (p.DomainMax-v)/(p.DomainMax-p.DomainMin)*(p.Bottom-p.Top))
	}
	duration := float64(len(s.LUFS)) * p.StepS
	x := func(t float64) float64 {
		if duration <= p.StepS {
			return p.Left
		}
		return round2(p.Left + t/(duration-p.StepS)*(p.Right-p.Left))
	}
	var line []byte
	flush := func() {
		if len(line) > 0 {
			p.Lines = append(p.Lines, string(line))
			line = line[:0]
		}
	}
	for i, pt := range points {
		v, ok := pt[1].(float64)
		if !ok {
			flush()
			continue
		}
		if len(line) > 0 {
			line = append(line, ' ')
		}
		line = strconv.AppendFloat(line, x(float64(i)*p.StepS), 'f', -1, 64)
		line = append(line, ',')
		line = strconv.AppendFloat(line, y(v), 'f', -1, 64)
	}
	flush()
	if p.HasBand {
		p.BandY = y(band.Max)
		p.BandH = round2(y(band.Min) - p.BandY)
	}
	p.IntegratedY = y(p.Integrated)
	for v := p.DomainMin; v <= p.DomainMax; v += 6 {
		p.Ticks = append(p.Ticks, plotTick{Pos: y(v), Label: reportview.Number(v)})
	}
	if duration > 0 {
		step := niceStep(duration / 6)
		for t := 0.0; t < duration; t += step {
			p.TimeTicks = append(p.TimeTicks, plotTick{Pos: x(t), Label: clockLabel(t, duration)})
		}
	}
	p.layPeakTrack()
	return p
}

// layPeakTrack lays the true-peak track out on its own dBTP scale: it holds the ceiling and
// the measured peak, 0 dBTP (full scale) and at least 12 dB below the lower of the two.
func (p *LoudnessPlot) layPeakTrack() {
	lo, hi := 0.0, 0.0
	if p.HasCeiling {
		lo, hi = math.Min(lo, p.Ceiling), math.Max(hi, p.Ceiling)
	}
	if p.HasPeak {
		lo, hi = math.Min(lo, p.Peak), math.Max(hi, p.Peak)
	}
	lo = math.Max(math.Floor((lo-12)/3)*3, -96)
	hi = math.Min(math.Ceil((hi+0.5)/3)*3, 24)
	y := func(v float64) float64 {
		v = math.Max(lo, math.Min(hi, v))
		return round2(p.Top + (hi-v)/(hi-lo)*(p.Bottom-p.Top))
	}
	step := 3.0
	if hi-lo > 24 {
		step = 6
	}
	for v := hi; v >= lo; v -= step {
		p.PeakTicks = append(p.PeakTicks, plotTick{Pos: y(v), Label: reportview.Number(v)})
	}
	p.CeilingY = y(p.Ceiling)
	p.PeakY = y(p.Peak)
	p.PeakH = round2(p.Bottom - p.PeakY)
}

// clockLabel is t seconds as m:ss, or h:mm:ss when the audio lasts an hour or more.
func clockLabel(t, duration float64) string {
	s := int(t)
	if duration >= 3600 {
		return strconv.Itoa(s/3600) + ":" + two(s/60%60) + ":" + two(s%60)
	}
	return strconv.Itoa(s/60) + ":" + two(s%60)
}

func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// niceStep is the tick spacing in seconds nearest above d among 1, 2, 5, 10, 15, 30 s, 1, 2, 5,
// 10, 15, 30 min and hours.
func niceStep(d float64) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600} {
		if s >= d {
			return s
		}
	}
	return math.Ceil(d/3600) * 3600
}
