package fakeserver

import (
	"math"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// faultJSON is a Fault as the control API spells it: Retry-After in whole seconds, latency and
// jitter in whole milliseconds.
type faultJSON struct {
	Method             string   `json:"method,omitempty"`
	PathPrefix         string   `json:"path_prefix"`
	Status             int      `json:"status,omitempty"`
	RetryAfterS        int      `json:"retry_after_s,omitempty"`
	Count              int      `json:"count,omitempty"`
	LatencyMS          int      `json:"latency_ms,omitempty"`
	JitterMS           int      `json:"jitter_ms,omitempty"`
	Reset              string   `json:"reset,omitempty"`
	TruncateAfterBytes *int64   `json:"truncate_after_bytes,omitempty"`
	ThrottleBytesPerS  int64    `json:"throttle_bytes_per_s,omitempty"`
	Probability        *float64 `json:"probability,omitempty"`
	After              int      `json:"after,omitempty"`
}

// armedFaultJSON is an ArmedFault as GET /_fake/faults lists it.
type armedFaultJSON struct {
	ID string `json:"id"`
	faultJSON
	Matches int `json:"matches"`
	Fired   int `json:"fired"`
}

// scaled is n units as a duration, pinned to the largest or smallest duration where n units
// overflow, so that validation refuses it rather than a wrapped value.
func scaled(n int64, unit time.Duration) time.Duration {
	switch {
	case n > math.MaxInt64/int64(unit):
		return math.MaxInt64
	case n < math.MinInt64/int64(unit):
		return math.MinInt64
	}
	return time.Duration(n) * unit
}

func (j faultJSON) fault() Fault {
	return Fault{
		Method: j.Method, PathPrefix: j.PathPrefix, Status: j.Status,
		RetryAfter: scaled(int64(j.RetryAfterS), time.Second), Count: j.Count,
		Latency: scaled(int64(j.LatencyMS), time.Millisecond), Jitter: scaled(int64(j.JitterMS), time.Millisecond),
		Reset: j.Reset, TruncateAfterBytes: j.TruncateAfterBytes, ThrottleBytesPerS: j.ThrottleBytesPerS,
		Probability: j.Probability, After: j.After,
	}
}

func faultView(f Fault) faultJSON {
	return faultJSON{
		Method: f.Method, PathPrefix: f.PathPrefix, Status: f.Status,
		RetryAfterS: int(f.RetryAfter / time.Second), Count: f.Count,
		LatencyMS: int(f.Latency / time.Millisecond), JitterMS: int(f.Jitter / time.Millisecond),
		Reset: f.Reset, TruncateAfterBytes: f.TruncateAfterBytes, ThrottleBytesPerS: f.ThrottleBytesPerS,
		Probability: f.Probability, After: f.After,
	}
}

func armedFaultView(a ArmedFault) armedFaultJSON {
	return armedFaultJSON{ID: a.ID, faultJSON: faultView(a.Fault), Matches: a.Matches, Fired: a.Fired}
}

func (s *Server) handleCreateFault(w http.ResponseWriter, r *http.Request) {
	var body faultJSON
	if !decodeBody(w, r, &body) {
		return
	}
	f := body.fault()
	id, err := s.InjectFault(f)
	if err != nil {
		writeError(w, err)
		return
	}
	f, _ = f.validate()
	writeJSON(w, http.StatusCreated, armedFaultView(ArmedFault{ID: id, Fault: f}))
}

func (s *Server) handleListFaults(w http.ResponseWriter, r *http.Request) {
	armed := s.Faults()
	items := make([]armedFaultJSON, len(armed))
	for i, a := range armed {
		items[i] = armedFaultView(a)
	}
	writeJSON(w, http.StatusOK, map[string][]armedFaultJSON{"items": items})
}

func (s *Server) handleRemoveFault(w http.ResponseWriter, r *http.Request) {
	if err := s.RemoveFault(httpmw.PathID(r, "id")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}
