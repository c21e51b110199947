package dashboard

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// An endpoint's page: its deliveries, newest first, each with what it is about, its body for
// reading and the timeline of its attempts, and the Resend button of each.

// Delivery is one row of an endpoint's delivery log: fakeserver.WebhookDelivery's fields, which
// the facade copies (its request headers as Header).
type Delivery struct {
	ID, EndpointID, EventType, WebhookID string
	Attempts, FailedAttempts             int
	Status                               string
	ResponseCode                         *int
	LastError                            *string
	Test                                 bool
	CreatedAt                            time.Time
	LastAttemptAt, NextAttemptAt         time.Time
	Body                                 json.RawMessage
	ReportID                             string
	Resends                              int
	RequestHeaders                       []Header
	ResponseBody                         string
	ResponseBodyTruncated                bool
}

// Header is one request header of a delivery attempt as sent: fakeserver.WebhookHeader.
type Header struct {
	Name, Value string
}

// maxEndpointPageBytes is the size of an endpoint's page whatever tenants send
// (TestEndpointPageBoundedWhateverTenantsSend).
const maxEndpointPageBytes = 2560 << 10

// endpointPage is one endpoint's deliveries, newest first, each with its attempts.
type endpointPage struct {
	Endpoint   Endpoint
	Deliveries []deliveryShown
}

// deliveryShown is a delivery, what it is about, its body for reading, and the timeline of its
// attempts.
type deliveryShown struct {
	Delivery
	Subject subject
	// Pretty is the body indented, cut at maxDeliveryBody; BodyCut counts the bytes cut.
	Pretty   string
	BodyCut  int
	Timeline []attempt
}

// attempt is one attempt of a delivery, or the next one queued.
type attempt struct {
	N       int
	At      time.Time
	Resend  bool
	Status  string
	Code    string
	Latency string
	Error   string
	Next    time.Time
	Queued  bool
}

// ServeEndpoint is one endpoint's page.
func (ui *UI) ServeEndpoint(w http.ResponseWriter, r *http.Request) {
	id, err := core.ParseID(httpmw.PathID(r, "id"), "Webhook endpoint")
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	ep, err := ui.deps.Endpoint(id)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	ds, err := ui.deps.Deliveries(id.String())
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	v := endpointPage{Endpoint: ep}
	log := ui.attemptsOnEndpoint(id.String())
	for _, d := range ds { // newest first, at most the endpoint's log of 20
		ud := deliveryShown{Delivery: d, Subject: ui.eventSubject(d.Body), Timeline: attemptsOf(d, log, ui.deps.DeliverySucceededKind)}
		ud.Pretty, ud.BodyCut = prettyBody(d.Body)
		v.Deliveries = append(v.Deliveries, ud)
	}
	notice, ok := resentNotice(v.Deliveries, r.URL.Query().Get("resent"))
	ui.Render(w, r, http.StatusOK, "endpoint", Page{Title: "Webhook endpoint", Notice: notice, NoticeOK: ok, Data: v})
}

// maxDeliveryBody bounds the pretty-printed body a delivery shows on its endpoint's page;
// past it the body is cut with a marker naming the control call that returns it whole. With
// MaxWebhookAnswer of the receiver's answer and an endpoint's log of 20 deliveries, the page
// stays under maxEndpointPageBytes however large the bodies are (see docs/fakeserver.md).
const maxDeliveryBody = 16 << 10

// subject is what a delivery is about, read from its body: a report (linked when the fake
// holds it), or a series and an episode.
type subject struct {
	ReportID, ReportName string
	// ReportLink is the report's dashboard page; empty when the fake holds no such report (a
	// test event's canned sample).
	ReportLink   string
	SeriesID     string
	SeriesTitle  string
	EpisodeTitle string
}

// eventSubject reads a delivery body's subject; anything it cannot read stays empty.
func (ui *UI) eventSubject(body []byte) subject {
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
	var out subject
	if json.Unmarshal(body, &ev) != nil {
		return out
	}
	series, episode := ev.Data.Series, ev.Data.Episode
	if r := ev.Data.Report; r != nil {
		out.ReportID, out.ReportName = r.ID, r.Filename
		series, episode = r.Series, r.Episode
		if id, err := core.ParseID(r.ID, "Report"); err == nil {
			if _, ok := ui.deps.Core.ReportByID(id); ok {
				out.ReportLink = Path + "/reports/" + id.String()
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
		*f, _ = CutRunes(*f, maxSubject)
	}
	return out
}

// MaxAttemptError bounds the error an attempt's line shows, in characters (a report's page cuts
// its deliveries' errors at it too).
const MaxAttemptError = 300

// maxSubject bounds each name a delivery's subject line shows, in characters.
const maxSubject = 160

// prettyBody is a delivery's body indented for reading, cut at maxDeliveryBody bytes (at a
// character boundary) with the count of what was cut.
func prettyBody(body []byte) (string, int) {
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") != nil {
		buf.Reset()
		buf.Write(body)
	}
	text, cut := httpmw.CutText(buf.String(), maxDeliveryBody)
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
		latency = RoundDuration(d)
	}
	errText, _ = CutRunes(errText, MaxAttemptError)
	return code, latency, errText
}

// ServeResend is the Resend button of a delivery: POST /_fake/ui/deliveries/{id}/resend, under
// the dashboard's same-origin check like every form of it. It makes the attempt and returns to
// the delivery on its endpoint's page; an unknown delivery is 404, a disabled endpoint 409.
func (ui *UI) ServeResend(w http.ResponseWriter, r *http.Request) {
	d, err := ui.deps.Resend(r.Context(), httpmw.PathID(r, "id"))
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("%s/endpoints/%s?resent=%s#delivery-%s", Path, d.EndpointID, d.ID, d.ID), http.StatusSeeOther)
}

// resentNotice is the notice an endpoint's page shows after a Resend, and whether it tells of
// a success (the resent attempt delivered the event).
func resentNotice(ds []deliveryShown, id string) (string, bool) {
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
