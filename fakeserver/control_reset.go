package fakeserver

import (
	"net/http"

	"github.com/podqa/podqa-go/internal/apitime"
)

func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	now, err := s.Reset()
	respond(w, http.StatusOK, clockAnswer{Now: apitime.Format(now)}, err)
}
