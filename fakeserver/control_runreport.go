package fakeserver

import (
	"bufio"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
	"github.com/podqa/podqa-go/internal/apitime"
)

// runReportFilesJSON is POST /_fake/report's answer: where the report was written.
type runReportFilesJSON struct {
	RunID     string `json:"run_id"`
	JSON      string `json:"json"`
	HTML      string `json:"html"`
	WrittenAt string `json:"written_at"`
}

// handleWriteRunReport writes the run report into the report dir; without one it answers 409
// (ErrNoReportDir): the control API takes no directory from the network.
func (s *Server) handleWriteRunReport(w http.ResponseWriter, r *http.Request) {
	files, err := s.WriteRunReport()
	respond(w, http.StatusOK, runReportFilesJSON{RunID: files.RunID, JSON: files.JSON, HTML: files.HTML, WrittenAt: apitime.Format(files.WrittenAt)}, err)
}

// handleGetRunReport answers the run report's JSON, as the report's JSON file would hold it now,
// with or without a report dir.
func (s *Server) handleGetRunReport(w http.ResponseWriter, r *http.Request) {
	run := s.runReport()
	w.Header().Set("Content-Type", "application/json")
	buf := bufio.NewWriterSize(w, 64<<10)
	if err := runreport.WriteJSON(buf, run); err != nil {
		s.log.Error("run report answer", "err", err)
		return
	}
	_ = buf.Flush()
}
