package fakeserver

import "net/http"

// SetAdmitted puts f between a request's admission (an API's door, the control API's token)
// and its operation, for the external tests to place a reset exactly there. Set it before the
// first request.
func SetAdmitted(s *Server, f func(*http.Request)) { s.admitted = f }

// HeldUploadBytes is the uploaded bytes the fake holds.
func HeldUploadBytes(s *Server) int64 { return s.core.HeldUploadBytes() }
