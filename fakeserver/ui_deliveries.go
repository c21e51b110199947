package fakeserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// maxUIDeliveryBody bounds the pretty-printed body a delivery shows on its endpoint's page;
// past it the body is cut with a marker naming the control call that returns it whole. With
// MaxWebhookAnswer of the receiver's answer and an endpoint's log of 20 deliveries, the page
// stays under maxEndpointPageBytes however large the bodies are (see docs/fakeserver.md).
const maxUIDeliveryBody = 16 << 10

// uiSubject is what a delivery is about, read from its body: a report (linked when the fake
// holds it), or a series and an episode.
type uiSubject struct {
	ReportID, ReportName string
	// ReportLink is the report's dashboard page; empty when the fake holds no such report (a
	// test event's canned sample).
	ReportLink   string
	SeriesID     string
	SeriesTitle  string
	EpisodeTitle string
}

// eventSubject reads a delivery body's subject; anything it cannot read stays empty.
func (s *Server) eventSubject(body []byte) uiSubject {
	type ref struct {
		ID    string  `json:"id"`
		Title *string `json:"title"`
	}
	var ev struct {
		Data struct {
			Report *struct {
				ID       string `json:"id"`
				Filename string `json:"filename"`
				Series   *ref   `json:"series"`
				Episode  *ref   `json:"episode"`
			} `json:"report"`
			Series  *ref `json:"series"`
			Episode *ref `json:"episode"`
		} `json:"data"`
	}
	var out uiSubject
	if json.Unmarshal(body, &ev) != nil {
		return out
	}
	series, episode := ev.Data.Series, ev.Data.Episode
	if r := ev.Data.Report; r != nil {
		out.ReportID, out.ReportName = r.ID, r.Filename
		series, episode = r.Series, r.Episode
		if id, err := parseID(r.ID, "Report"); err == nil {
			if _, ok := s.core.ReportByID(id); ok {
				out.ReportLink = dashboard.Path + "/reports/" + id.String()
			}
		}
	}
	if series != nil {
		out.SeriesID = series.ID
		if series.Title != nil {
			out.SeriesTitle = *series.Title
		}
	}
	if episode != nil && episode.Title != nil {
		out.EpisodeTitle = *episode.Title
	}
	if out.ReportID != "" {
		// Named as the service's lists name a report: its episode's title, else its file's name.
		out.ReportName = cmp.Or(out.EpisodeTitle, out.ReportName)
	}
	// Tenants choose these (file names, feed titles): the page shows a bounded part of each.
	for _, f := range []*string{&out.ReportID, &out.ReportName, &out.SeriesID, &out.SeriesTitle, &out.EpisodeTitle} {
		*f, _ = dashboard.CutRunes(*f, maxUISubject)
	}
	return out
}

// maxUIAttemptError bounds the error an attempt's line shows, in characters.
const maxUIAttemptError = 300

// maxUISubject bounds each name a delivery's subject line shows, in characters.
const maxUISubject = 160

// prettyBody is a delivery's body indented for reading, cut at maxUIDeliveryBody bytes (at a
// character boundary) with the count of what was cut.
func prettyBody(body []byte) (string, int) {
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") != nil {
		buf.Reset()
		buf.Write(body)
	}
	text, cut := cutText(buf.String(), maxUIDeliveryBody)
	if !cut {
		return text, 0
	}
	return text, buf.Len() - len(text)
}

// attemptLine is what an attempt's line shows after its status, each thing once: the HTTP
// status, the latency rounded, and the error only where it says more than the status.
func attemptLine(code, latency, errText string) (string, string, string) {
	if code != "" {
		if errText == "HTTP "+code {
			errText = ""
		} else {
			errText = strings.TrimPrefix(errText, "HTTP "+code+": ")
		}
	}
	if d, err := time.ParseDuration(latency); err == nil {
		latency = dashboard.RoundDuration(d)
	}
	errText, _ = dashboard.CutRunes(errText, maxUIAttemptError)
	return code, latency, errText
}

// handleResend is the Resend button of a delivery: POST /_fake/ui/deliveries/{id}/resend, under
// the dashboard's same-origin check like every form of it. It makes the attempt and returns to
// the delivery on its endpoint's page; an unknown delivery is 404, a disabled endpoint 409.
func (ui *dashboardUI) handleResend(w http.ResponseWriter, r *http.Request) {
	d, err := ui.s.ResendDelivery(r.Context(), httpmw.PathID(r, "id"))
	if err != nil {
		ui.renderError(w, r, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("%s/endpoints/%s?resent=%s#delivery-%s", dashboard.Path, d.EndpointID, d.ID, d.ID), http.StatusSeeOther)
}

// resentNotice is the notice an endpoint's page shows after a Resend, and whether it tells of
// a success (the resent attempt delivered the event).
func resentNotice(ds []uiDelivery, id string) (string, bool) {
	for _, d := range ds {
		if d.ID == id {
			outcome := d.Status
			if d.ResponseCode != nil {
				outcome += " · HTTP " + strconv.Itoa(*d.ResponseCode)
			}
			return fmt.Sprintf("Resent delivery %s: attempt %d, %s.", id, d.Attempts, outcome), d.Status == "succeeded"
		}
	}
	return "", false
}
