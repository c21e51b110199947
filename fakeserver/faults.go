package fakeserver

import (
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Fault makes the next Count API requests that match it fail: 503 as the plain-text
// "Service Unavailable" of the service's front (nothing reaches the API, nothing is created or
// charged), 500 as the API's internal_error.
type Fault struct {
	// Method matches one HTTP method; empty matches any.
	Method string `json:"method,omitempty"`
	// PathPrefix matches request paths that begin with it, such as "/api/rest/v1/reports".
	PathPrefix string `json:"path_prefix"`
	// Status is 500 or 503.
	Status int `json:"status"`
	// Count is how many matching requests fail, at least 1.
	Count int `json:"count"`
}

// InjectFault arms f. Faults are matched in the order they were armed.
func (s *Server) InjectFault(f Fault) (string, error) {
	return s.faults.add(f)
}

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.faults.clear() }

type armedFault struct {
	id string
	Fault
}

type faults struct {
	mu    sync.Mutex
	armed []*armedFault
	// newID mints fault ids from the fake's generator (see WithSeed).
	newID func() uuid.UUID
}

func (f *faults) add(fault Fault) (string, error) {
	if fault.Status != http.StatusInternalServerError && fault.Status != http.StatusServiceUnavailable {
		return "", core.ErrValidation("status must be 500 or 503.")
	}
	if fault.Count < 1 {
		return "", core.ErrValidation("count must be at least 1.")
	}
	if !strings.HasPrefix(fault.PathPrefix, "/") {
		return "", core.ErrValidation("path_prefix must begin with /.")
	}
	fault.Method = strings.ToUpper(fault.Method)
	a := &armedFault{id: f.newID().String(), Fault: fault}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = append(f.armed, a)
	return a.id, nil
}

func (f *faults) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = nil
}

// take returns the status of the first fault r matches, spending one of its count, or 0.
func (f *faults) take(r *http.Request) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, a := range f.armed {
		if (a.Method == "" || a.Method == r.Method) && strings.HasPrefix(r.URL.Path, a.PathPrefix) {
			a.Count--
			if a.Count == 0 {
				f.armed = append(f.armed[:i], f.armed[i+1:]...)
			}
			return a.Status
		}
	}
	return 0
}

// injectFaults fails matching requests before they reach the API.
func (s *Server) injectFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch s.faults.take(r) {
		case http.StatusServiceUnavailable:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("Service Unavailable"))
		case http.StatusInternalServerError:
			writeError(w, &core.Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "Internal error."})
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func (s *Server) handleCreateFault(w http.ResponseWriter, r *http.Request) {
	var f Fault
	if !decodeBody(w, r, &f) {
		return
	}
	id, err := s.InjectFault(f)
	f.Method = strings.ToUpper(f.Method)
	respond(w, http.StatusCreated, struct {
		ID string `json:"id"`
		Fault
	}{id, f}, err)
}

func (s *Server) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}
