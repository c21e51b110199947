package control

import (
	"bufio"
	"log/slog"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/runreport"
	"github.com/podqa/podqa-go/internal/apitime"
)

// RunReport is the run report's control calls over the fake's run report, which the Go API's
// Server.WriteRunReport adapts too: Gather is the run so far, Write writes it into the report
// dir (an error the answers understand, 409 without a dir: the control API takes no directory
// from the network).
type RunReport struct {
	Gather func() *runreport.Run
	Write  func() (runreport.Written, error)
	// Log takes a GET's failed write to the client.
	Log *slog.Logger
}

// runReportFiles is POST /_fake/report's answer: where the report was written.
type runReportFiles struct {
	RunID     string `json:"run_id"`
	JSON      string `json:"json"`
	HTML      string `json:"html"`
	WrittenAt string `json:"written_at"`
}

// ServeWrite is POST /_fake/report: the run report written into the report dir, and where.
func (c RunReport) ServeWrite(w http.ResponseWriter, r *http.Request) {
	out, err := c.Write()
	httpmw.Respond(w, http.StatusOK, runReportFiles{RunID: out.RunID, JSON: out.Files.JSON, HTML: out.Files.HTML, WrittenAt: apitime.Format(out.WrittenAt)}, err)
}

// ServeGet is GET /_fake/report: the run report's JSON as the report's JSON file would hold it
// now, with or without a report dir.
func (c RunReport) ServeGet(w http.ResponseWriter, r *http.Request) {
	run := c.Gather()
	w.Header().Set("Content-Type", "application/json")
	buf := bufio.NewWriterSize(w, 64<<10)
	if err := runreport.WriteJSON(buf, run); err != nil {
		if c.Log != nil {
			c.Log.Error("run report answer", "err", err)
		}
		return
	}
	_ = buf.Flush()
}
