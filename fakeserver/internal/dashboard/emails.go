package dashboard

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// A workspace's emails, and the overview of the fake's workspaces.

const (
	// MaxName bounds a name a page shows: a workspace's, a report's, a standard's, an email's
	// subject and addresses.
	MaxName = 160
	// MaxText bounds a long text: an email's body, a report's failure and its reasons.
	MaxText = 1200
	// maxRecipients bounds the addresses an email's line shows.
	maxRecipients = 5
	// maxEmailsPageBytes and maxOverviewPageBytes are the emails page's and the overview's
	// sizes whatever tenants send (TestEmailsAndOverviewBoundedWhateverTenantsSend).
	maxEmailsPageBytes   = 3 << 20
	maxOverviewPageBytes = 512 << 10
)

// Email is an email the service would have sent: fakeserver.Email's fields, which the facade
// converts (a conversion that stops compiling if the two drift).
type Email struct {
	ID          string
	WorkspaceID string
	Kind        string
	To          []string
	Subject     string
	Text        string
	SentAt      time.Time
}

// Workspace is a workspace as the pages name it: fakeserver.Workspace's fields.
type Workspace struct {
	ID, Type, Name string
}

// EmailShown is an email as the emails page and a report's page show it.
type EmailShown struct {
	Email
	// MoreTo counts the addresses not shown; TextCut says the text was cut.
	MoreTo  int
	TextCut bool
}

// EmailRow is an email with its texts cut.
func EmailRow(e Email) EmailShown {
	row := EmailShown{Email: e}
	row.Subject, _ = CutRunes(e.Subject, MaxName)
	row.Kind, _ = CutRunes(e.Kind, 40)
	row.To = nil
	for i, to := range e.To {
		if i == maxRecipients {
			row.MoreTo = len(e.To) - i
			break
		}
		to, _ = CutRunes(to, MaxName)
		row.To = append(row.To, to)
	}
	row.Text, row.TextCut = CutRunes(e.Text, MaxText)
	return row
}

// WorkspaceRow is a workspace with its name cut.
func WorkspaceRow(ws Workspace) Workspace {
	ws.Name, _ = CutRunes(ws.Name, MaxName)
	return ws
}

// WorkspaceID is the workspace the {id} of a workspace's page names; one the fake does not
// hold, in any spelling but the canonical one, is 404.
func (ui *UI) WorkspaceID(r *http.Request) (uuid.UUID, error) {
	id, ok := core.CanonicalID(httpmw.PathID(r, "id"))
	if !ok {
		return uuid.Nil, core.ErrNotFound("Workspace")
	}
	if _, err := ui.deps.Core.Workspace(id); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// emailsView is a workspace's simulated emails, newest first.
type emailsView struct {
	WorkspaceID string
	Emails      []EmailShown
	// Capped says older emails were sent than the page shows; Total counts them all.
	Capped bool
	Total  int
}

// ServeEmails is a workspace's emails, the newest MaxList.
func (ui *UI) ServeEmails(w http.ResponseWriter, r *http.Request) {
	ws, err := ui.WorkspaceID(r)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	es, err := ui.deps.Emails(ws)
	if err != nil {
		ui.RenderError(w, r, err)
		return
	}
	v := emailsView{WorkspaceID: ws.String(), Total: len(es)}
	for _, e := range es { // newest first
		if len(v.Emails) == MaxList {
			v.Capped = true
			break
		}
		v.Emails = append(v.Emails, EmailRow(e))
	}
	ui.Render(w, r, http.StatusOK, "emails", Page{Title: "Emails", Data: v})
}

// overviewOf is the overview of every workspace, the oldest MaxList listed.
func overviewOf(all []Workspace, feeds, faults int) overviewView {
	v := overviewView{Total: len(all), Feeds: feeds, Faults: faults}
	for _, ws := range all[:min(len(all), MaxList)] {
		v.Workspaces = append(v.Workspaces, WorkspaceRow(ws))
	}
	return v
}

// overviewView is the overview: the fake's clock and what it holds.
type overviewView struct {
	// Workspaces are the oldest MaxList; Total counts them all (GET /_fake/workspaces
	// lists them by cursor).
	Workspaces    []Workspace
	Total         int
	Feeds, Faults int
}

// ServeOverview is the overview.
func (ui *UI) ServeOverview(w http.ResponseWriter, r *http.Request) {
	v := overviewOf(ui.deps.Workspaces(), len(ui.deps.Host.Feeds()), len(ui.deps.Faults()))
	ui.Render(w, r, http.StatusOK, "overview", Page{Title: "Overview", Data: v})
}
