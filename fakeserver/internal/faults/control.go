package faults

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// The control API's calls of the faults (POST, GET and DELETE /_fake/faults, DELETE
// /_fake/faults/{id}), which the facade mounts behind the admin guard beside internal/control's,
// as the journal's own control calls are.

// faultJSON is a fault as the control API spells it: Retry-After in whole seconds, latency and
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

// armedFaultJSON is an armed fault as GET /_fake/faults lists it.
type armedFaultJSON struct {
	ID string `json:"id"`
	faultJSON
	Matches int `json:"matches"`
	Fired   int `json:"fired"`
}

func (j faultJSON) fault() Fault {
	return Fault{
		Method: j.Method, PathPrefix: j.PathPrefix, Status: j.Status,
		RetryAfter: httpmw.Scaled(int64(j.RetryAfterS), time.Second), Count: j.Count,
		Latency: httpmw.Scaled(int64(j.LatencyMS), time.Millisecond), Jitter: httpmw.Scaled(int64(j.JitterMS), time.Millisecond),
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

func armedFaultView(a Armed) armedFaultJSON {
	return armedFaultJSON{ID: a.ID, faultJSON: faultView(a.Fault), Matches: a.Matches, Fired: a.Fired}
}

// ServeCreateFault is POST /_fake/faults: Server.InjectFault over HTTP (Arm), answering
// the fault as armed.
func (f *Faults) ServeCreateFault(w http.ResponseWriter, r *http.Request) {
	var body faultJSON
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	fault, id, err := f.Arm(body.fault())
	if err != nil {
		httpmw.WriteError(w, err)
		return
	}
	httpmw.WriteJSON(w, http.StatusCreated, armedFaultView(Armed{ID: id, Fault: fault}))
}

// ServeListFaults is GET /_fake/faults: Server.Faults over HTTP.
func (f *Faults) ServeListFaults(w http.ResponseWriter, r *http.Request) {
	armed := f.List()
	items := make([]armedFaultJSON, len(armed))
	for i, a := range armed {
		items[i] = armedFaultView(a)
	}
	httpmw.WriteJSON(w, http.StatusOK, map[string][]armedFaultJSON{"items": items})
}

// ServeRemoveFault is DELETE /_fake/faults/{id}: Server.RemoveFault over HTTP.
func (f *Faults) ServeRemoveFault(w http.ResponseWriter, r *http.Request) {
	if err := f.Remove(httpmw.PathID(r, "id")); err != nil {
		httpmw.WriteError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ServeClearFaults is DELETE /_fake/faults: Server.ClearFaults over HTTP.
func (f *Faults) ServeClearFaults(w http.ResponseWriter, r *http.Request) {
	f.Clear()
	w.WriteHeader(http.StatusNoContent)
}

// Spec is f as the control API spells it, the spec of an armed fault in the run report.
func Spec(f Fault) json.RawMessage {
	spec, _ := json.Marshal(faultView(f)) // plain fields: it cannot fail
	return spec
}
