package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/hosted"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// The dashboard at /_fake/ui: server-rendered pages on the admin token. This file is their
// front (headers, login, session cookie, the layout every page shows); the facade's uiRows
// (routes.go) mount it with the page handlers of the other files.

// Cookie names the dashboard's session cookie. Its value is a random session token, never
// the admin token, so that a copied cookie dies with a logout.
const Cookie = "podqa_ui"

// Path is where the dashboard lives; its cookie is scoped to it.
const Path = "/_fake/ui"

// StatePath is the state the dashboard's script polls.
const StatePath = Path + "/state"

// maxSessions bounds the sessions kept: the oldest is dropped beyond it, which logs it out.
const maxSessions = 64

// MaxForm bounds the body of the dashboard's forms (the login's token, an advance).
const MaxForm = 4 << 10

// CSP is the policy of every dashboard answer: the page's script and styles are the two
// embedded files, nothing inline runs, audio plays from the fake itself, and no site may frame
// the page or receive its forms.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Page is what the layout of every dashboard page shows around the page's own Data.
type Page struct {
	Title string
	// Authed is false on the login form, which shows nothing of the fake.
	Authed      bool
	Now         time.Time
	ManualClock bool
	// Version changes when what the page shows changes (its stamp): the page's script polls
	// StateURL and reloads the page's main part when it differs.
	Version  string
	StateURL string
	// Back is the page's own path and query, where the clock's advance returns to.
	Back string
	// Notice is a line above the page's content; NoticeOK styles it as a success (a resend
	// that succeeded) instead of a problem (an error, a resend that failed).
	Notice   string
	NoticeOK bool
	Data     any
}

// Deps is what the dashboard needs of the fake it serves.
type Deps struct {
	// Admin is the fake's admin guard.
	Admin httpmw.Admin
	// Admitted runs once a request is let in: the tests' seam between admission and operation.
	Admitted func(*http.Request)
	// Core is the fake's state; Clock its clock; Host the podcast host of its hosted feeds;
	// URL its base URL; LastEventSeq the Seq of the newest event its record raised.
	Core  *core.Core
	Clock *clock.Clock
	// Advance moves the clock as Server.Advance does (what falls due runs, the event is
	// raised), its refusals as httpmw answers them.
	Advance      func(time.Duration) (time.Time, error)
	Host         *hosted.Host
	URL          func() string
	LastEventSeq func() uint64
	// Events reads the event record; EventKinds are the kinds its page offers as a filter.
	Events     func(EventFilter) []Event
	EventKinds []string
	// Workspaces lists every workspace, oldest first; Emails a workspace's emails, newest first.
	Workspaces func() []Workspace
	Emails     func(uuid.UUID) ([]Email, error)
	// Endpoints lists a workspace's webhook endpoints, without their secrets; Endpoint is one
	// of them.
	Endpoints func(uuid.UUID) ([]Endpoint, error)
	Endpoint  func(uuid.UUID) (Endpoint, error)
	// Account is a report's account (Server.ReportAccount): a malformed id is a 400, an
	// unknown one a 404.
	Account func(reportID string) (Account, error)
	// Deliveries is an endpoint's delivery log, newest first; Resend makes a new attempt of a
	// delivery now (Server.ResendDelivery). DeliveryFailedKind and DeliverySucceededKind are
	// the kinds of the events an attempt raises, which an endpoint's page reads its timelines
	// from.
	Deliveries                                func(endpointID string) ([]Delivery, error)
	Resend                                    func(ctx context.Context, deliveryID string) (Delivery, error)
	DeliveryFailedKind, DeliverySucceededKind string

	// Requests reads the request journal, which keeps JournalSize entries and lists at most
	// MaxRequests at once; Faults lists the armed faults; FaultFiredKind is the kind of the
	// event a fault raises when it fires, which a journal row links once its fault is spent.
	Requests       func(RequestFilter) []JournalEntry
	JournalSize    int
	MaxRequests    int
	Faults         func() []ArmedFault
	FaultFiredKind string
}

// UI is one fake's dashboard front: the process's parsed pages and the fake's logged-in
// sessions.
type UI struct {
	deps  Deps
	pages *Pages

	mu       sync.Mutex
	sessions [][sha256.Size]byte // hashes of the live session tokens, oldest first
}

// NewUI is the front of one fake over the parsed pages.
func NewUI(pages *Pages, deps Deps) *UI { return &UI{deps: deps, pages: pages} }

// Headers sets the dashboard's security headers on every answer, errors included.
func Headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the admin token as a bearer header or a live session
// cookie. A wrong bearer header is refused even with a good cookie.
func (ui *UI) authorized(r *http.Request) bool {
	if ok, sent := ui.deps.Admin.Admits(r); sent {
		return ok
	}
	c, err := r.Cookie(Cookie)
	if err != nil || c.Value == "" {
		return false
	}
	sum := sha256.Sum256([]byte(c.Value))
	ui.mu.Lock()
	defer ui.mu.Unlock()
	return slices.ContainsFunc(ui.sessions, func(h [sha256.Size]byte) bool {
		return subtle.ConstantTimeCompare(h[:], sum[:]) == 1
	})
}

// Guard lets in what authorized lets in; anything else gets 401: the login form for a
// browser, the control API's error shape for any other client, and never the page's data.
func (ui *UI) Guard(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ui.authorized(r) {
			if ui.deps.Admitted != nil {
				ui.deps.Admitted(r)
			}
			next(w, r)
			return
		}
		ui.refuse(w, r, false)
	})
}

// refuse answers 401 to a request without the admin token; failed says a login was tried.
func (ui *UI) refuse(w http.ResponseWriter, r *http.Request, failed bool) {
	if !WantsHTML(r) {
		httpmw.WriteError(w, &httpmw.Error{Status: http.StatusUnauthorized, Code: core.CodeInvalidAPIKey, Message: "The dashboard needs Authorization: Bearer <admin_token> or a login at " + Path + "/login."})
		return
	}
	ui.Render(w, r, http.StatusUnauthorized, "login", Page{Title: "Log in", Data: loginView{Failed: failed, Next: loginNext(r)}})
}

// loginNext is where the login form returns to: the page asked for, or the one the form
// carried, when it is a page of the dashboard (LocalPath); else the overview.
func loginNext(r *http.Request) string {
	var next string
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		next = r.URL.RequestURI()
	case r.URL.Path == Path+"/login":
		next = r.PostFormValue("next") // the body is bounded by ServeLogin
	}
	if next = LocalPath(next); strings.HasPrefix(next, Path+"/login") || strings.HasPrefix(next, StatePath) {
		return Path + "/"
	}
	return next
}

// LocalPath is back if it is a page of the dashboard, else the overview: the advance form and
// the login return only within the dashboard, on the same origin, by a path with no dot
// segments.
func LocalPath(back string) string {
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		strings.HasPrefix(back, "//") || strings.Contains(back, "\\") || !strings.HasPrefix(u.Path, Path+"/") {
		return Path + "/"
	}
	if clean := path.Clean(u.Path); clean != u.Path && clean+"/" != u.Path {
		return Path + "/"
	}
	return (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).RequestURI() // escaped from the decoded path
}

// StateURL is the state URL of the page at target.
func StateURL(target string) string {
	return StatePath + "?" + url.Values{"page": {target}}.Encode()
}

// WantsHTML reports whether the client asked for HTML, as a browser navigating does.
func WantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// loginView is the login form's data: whether a login failed, and the page to return to.
type loginView struct {
	Failed bool
	Next   string
}

// ServeLoginForm is the login form.
func (ui *UI) ServeLoginForm(w http.ResponseWriter, r *http.Request) {
	ui.Render(w, r, http.StatusOK, "login", Page{Title: "Log in", Data: loginView{Next: LocalPath(r.URL.Query().Get("next"))}})
}

// ServeLogin takes the admin token from the form's body (never from the URL: PostFormValue
// reads the body only) and starts a session.
func (ui *UI) ServeLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	token := r.PostFormValue("token")
	if !ui.deps.Admin.Is(token) {
		ui.refuse(w, r, true)
		return
	}
	session := rand.Text()
	ui.mu.Lock()
	ui.sessions = append(ui.sessions, sha256.Sum256([]byte(session)))
	if len(ui.sessions) > maxSessions {
		ui.sessions = slices.Delete(ui.sessions, 0, len(ui.sessions)-maxSessions)
	}
	ui.mu.Unlock()
	http.SetCookie(w, ui.cookie(r, session, 0))
	http.Redirect(w, r, loginNext(r), http.StatusSeeOther)
}

// ServeLogout ends the session the cookie names and clears the cookie.
func (ui *UI) ServeLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(Cookie); err == nil {
		sum := sha256.Sum256([]byte(c.Value))
		ui.mu.Lock()
		ui.sessions = slices.DeleteFunc(ui.sessions, func(h [sha256.Size]byte) bool { return h == sum })
		ui.mu.Unlock()
	}
	http.SetCookie(w, ui.cookie(r, "", -1))
	http.Redirect(w, r, Path+"/login", http.StatusSeeOther)
}

// cookie is the session cookie: HttpOnly, SameSite=Strict, scoped to the dashboard, Secure
// when the request came over TLS. maxAge 0 lasts the browser session, -1 deletes it.
func (ui *UI) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: Cookie, Value: value, Path: Path, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	}
}

// Render writes a page, or the control API's 500 when it cannot be rendered.
func (ui *UI) Render(w http.ResponseWriter, r *http.Request, status int, name string, page Page) {
	if page.Authed = name != "login"; page.Authed {
		ui.fill(r, &page)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var buf strings.Builder
	if err := ui.pages.Render(&buf, name, page); err != nil {
		w.Header().Del("Content-Type")
		httpmw.WriteError(w, &httpmw.Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "The page could not be rendered: " + err.Error()})
		return
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(buf.String()))
	}
}

// RenderError shows a refusal (an unknown id, a bad filter: an *httpmw.Error or a refusal of
// the core) as a page in the control API's status, or in its JSON shape for a client that did
// not ask for HTML.
func (ui *UI) RenderError(w http.ResponseWriter, r *http.Request, err error) {
	e := httpmw.AsError(err)
	if !WantsHTML(r) {
		httpmw.WriteError(w, e)
		return
	}
	ui.Render(w, r, e.Status, "message", Page{Title: "Error", Notice: e.Message})
}
