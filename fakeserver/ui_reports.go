package fakeserver

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// workspaceView is a workspace's page: its credits and one page of its reports.
type workspaceView struct {
	Workspace Workspace
	Credits   *core.Credits
	Filter    ReportFilter
	Statuses  []string
	Page      ReportPage
	// NextURL is the link to the next page; "" on the last.
	NextURL string
	// Filtered says a filter is set, for the link back to every report.
	Filtered bool
}

// uiReportPageSize is how many reports a page of the workspace page shows.
const uiReportPageSize = 100

func (ui *dashboardUI) handleWorkspace(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.s.uiWorkspaceID(r)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	cws, err := ui.s.core.Workspace(ws)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	q := r.URL.Query()
	f := ReportFilter{Status: q.Get("status"), SeriesID: q.Get("series"), After: q.Get("after"), Limit: uiReportPageSize}
	page, err := ui.s.Reports(ws.String(), f)
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := workspaceView{
		Workspace: Workspace{ID: cws.ID.String(), Type: string(cws.Type), Name: cws.Name},
		Filter:    f, Statuses: reportStatuses, Page: page, Filtered: f.Status != "" || f.SeriesID != "",
	}
	if cr, err := ui.s.core.Credits(ws); err == nil {
		v.Credits = &cr
	}
	if page.Next != "" {
		next := url.Values{"after": {page.Next}}
		if f.Status != "" {
			next.Set("status", f.Status)
		}
		if f.SeriesID != "" {
			next.Set("series", f.SeriesID)
		}
		v.NextURL = uiPath + "/workspaces/" + ws.String() + "?" + next.Encode()
	}
	ui.render(w, r, http.StatusOK, "workspace", uiPage{Title: v.Workspace.Name, Data: v})
}

// uiReportPage is a report's page: its account and the plot of its loudness.
type uiReportPage struct {
	Account ReportAccount
	Plot    loudnessPlot
}

func (ui *dashboardUI) handleReport(w http.ResponseWriter, r *http.Request) {
	acc, err := ui.s.ReportAccount(httpmw.PathID(r, "id"))
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	v := uiReportPage{Account: acc}
	var limits core.Limits
	channels := 0
	if id, err := parseID(acc.Report.ID, "Report"); err == nil {
		if rep, ok := ui.s.core.ReportByID(id); ok {
			limits = rep.Standard.Limits
		}
	}
	if acc.Measured != nil {
		channels = acc.Measured.Channels
	}
	v.Plot = plotLoudness(acc.Loudness, limits, channels, acc.Measured)
	ui.render(w, r, http.StatusOK, "report", uiPage{Title: "Report " + acc.Report.ID, Data: v})
}

// loudnessPlot is the SVG plot of a report's short-term loudness, computed here so that the
// template only places numbers. Points is the series as [seconds, LUFS or null] pairs, the same
// numbers the account gives, for the page's readers (data-points).
type loudnessPlot struct {
	Width, Height float64
	// Left, Top, Right, Bottom are the plotting area's edges; PlotW its width.
	Left, Top, Right, Bottom, PlotW float64
	Points                          string
	Count                           int
	StepS, WindowS                  float64
	// Lines are the polylines' points attributes, one per run of measured values.
	Lines []string
	// Band is the target loudness band's rectangle; HasBand is false when the standard has none.
	HasBand              bool
	BandMin, BandMax     float64
	BandY, BandH         float64
	HasCeiling           bool
	Ceiling, CeilingY    float64
	HasPeak              bool
	Peak, PeakY          float64
	Ticks                []plotTick
	TimeTicks            []plotTick
	DomainMin, DomainMax float64
}

type plotTick struct {
	Pos   float64
	Label string
}

// plotLoudness lays the series out on an SVG of fixed size: time across, LUFS up, the target
// band of the report's standard and its true-peak ceiling drawn. Work and output are linear in
// the series (at most one value a second: 10,800 for three hours).
func plotLoudness(s LoudnessSeries, limits core.Limits, channels int, m *Measurement) loudnessPlot {
	p := loudnessPlot{Width: 900, Height: 320, Left: 48, Top: 12, Right: 888, Bottom: 290, PlotW: 840,
		Count: len(s.LUFS), StepS: s.Step.Seconds(), WindowS: s.Window.Seconds()}
	band := limits.Loudness
	if channels == 1 {
		band = limits.MonoLoudness
	}
	p.HasBand = band.Min != 0 || band.Max != 0
	p.BandMin, p.BandMax = band.Min, band.Max
	p.HasCeiling = limits.MaxTruePeak != 0
	p.Ceiling = limits.MaxTruePeak
	if m != nil && !math.IsInf(m.TruePeakDB, 0) && !math.IsNaN(m.TruePeakDB) {
		p.HasPeak, p.Peak = true, m.TruePeakDB
	}

	// The domain holds every value, the band and the ceiling, in whole 6 dB steps.
	lo, hi := math.Inf(1), math.Inf(-1)
	grow := func(v float64) { lo, hi = math.Min(lo, v), math.Max(hi, v) }
	points := make([][2]any, len(s.LUFS))
	for i, v := range s.LUFS {
		t := float64(i) * p.StepS
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			points[i] = [2]any{t, nil}
			continue
		}
		val := math.Round(float64(v)*100) / 100
		points[i] = [2]any{t, val}
		grow(val)
	}
	if p.HasBand {
		grow(band.Min)
		grow(band.Max)
	}
	if p.HasCeiling {
		grow(p.Ceiling)
	}
	if p.HasPeak {
		grow(p.Peak)
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
	p.CeilingY = y(p.Ceiling)
	p.PeakY = y(p.Peak)
	for v := p.DomainMin; v <= p.DomainMax; v += 6 {
		p.Ticks = append(p.Ticks, plotTick{Pos: y(v), Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	if duration > 0 {
		step := niceStep(duration / 6)
		for t := 0.0; t < duration; t += step {
			p.TimeTicks = append(p.TimeTicks, plotTick{Pos: x(t), Label: (time.Duration(t) * time.Second).String()})
		}
	}
	return p
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

// eventsView is the event record's page, newest first.
type eventsView struct {
	Kind, WorkspaceID, ReportID string
	Kinds                       []string
	Events                      []Event
}

// eventKinds are the kinds the events page offers as a filter.
var eventKinds = []string{
	EventReportCreated, EventReportStatus, EventReportFinished, EventDeliveryFailed, EventDeliverySucceeded,
	EventEndpointDisabled, EventFeedCheckFailed, EventFaultFired, EventRequestRefused, EventURLRefused,
	EventClockAdvanced, EventWorkspaceCreated, EventReset,
}

func (ui *dashboardUI) handleEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := eventsView{Kind: q.Get("kind"), WorkspaceID: q.Get("workspace"), ReportID: q.Get("report"), Kinds: eventKinds}
	events := ui.s.Events(EventFilter{Kind: v.Kind, WorkspaceID: v.WorkspaceID, ReportID: v.ReportID, Limit: maxUIList})
	for i := len(events) - 1; i >= 0; i-- {
		v.Events = append(v.Events, events[i])
	}
	ui.render(w, r, http.StatusOK, "events", uiPage{Title: "Event record", Data: v})
}

// lastSeq is the Seq of the newest event raised, 0 before the first: a cheap sign that the
// fake changed, for the dashboard's poll.
func (r *eventRecord) lastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}
