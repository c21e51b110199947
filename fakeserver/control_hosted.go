package fakeserver

import "net/http"

func (s *Server) handleHostFeed(w http.ResponseWriter, r *http.Request) {
	var spec HostedFeedSpec
	if !decodeBody(w, r, &spec) {
		return
	}
	f, err := s.HostFeed(spec)
	respond(w, http.StatusCreated, f, err)
}

func (s *Server) handleAddHostedEpisode(w http.ResponseWriter, r *http.Request) {
	var e HostedEpisode
	if !decodeBody(w, r, &e) {
		return
	}
	a, err := s.AddHostedEpisode(r.PathValue("id"), e)
	respond(w, http.StatusCreated, a, err)
}

func (s *Server) handleChangeFeed(w http.ResponseWriter, r *http.Request) {
	var change FeedChange
	if !decodeBody(w, r, &change) {
		return
	}
	err := s.ChangeFeed(r.PathValue("id"), change)
	respond(w, http.StatusOK, change, err)
}
