package fakeserver

import "net/http"

func (s *Server) handleCreateFault(w http.ResponseWriter, r *http.Request) {
	var f Fault
	if !decodeBody(w, r, &f) {
		return
	}
	id, err := s.InjectFault(f)
	if err != nil {
		writeError(w, err)
		return
	}
	f, _ = f.validate()
	writeJSON(w, http.StatusCreated, ArmedFault{ID: id, Fault: f})
}

func (s *Server) handleListFaults(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]ArmedFault{"items": s.Faults()})
}

func (s *Server) handleRemoveFault(w http.ResponseWriter, r *http.Request) {
	if err := s.RemoveFault(r.PathValue("id")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}
