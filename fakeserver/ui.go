package fakeserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// The dashboard at /_fake/ui: server-rendered pages on the admin token. Its routes are
// uiRows in routes.go; this file is their front (headers, login, session cookie, the
// same-origin check on POSTs), ui_pages.go builds what each page shows.

// uiCookie names the dashboard's session cookie. Its value is a random session token, never
// the admin token, so that a copied cookie dies with a logout.
const uiCookie = "podqa_ui"

// uiPath is where the dashboard lives; its cookie is scoped to it.
const uiPath = "/_fake/ui"

// maxUISessions bounds the sessions kept: the oldest is dropped beyond it, which logs it out.
const maxUISessions = 64

// maxUIForm bounds the body of the dashboard's forms (the login's token, an advance).
const maxUIForm = 4 << 10

// uiCSP is the policy of every dashboard answer: the page's script and styles are the two
// embedded files, nothing inline runs, audio plays from the fake itself, and no site may frame
// the page or receive its forms.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// dashboardUI is the dashboard's state: the parsed pages and the logged-in sessions.
type dashboardUI struct {
	s     *Server
	pages *dashboard.Pages

	mu       sync.Mutex
	sessions [][sha256.Size]byte // hashes of the live session tokens, oldest first
}

// uiHeaders sets the dashboard's security headers on every answer, errors included.
func uiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", uiCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the admin token as a bearer header or a live session
// cookie. A wrong bearer header is refused even with a good cookie.
func (ui *dashboardUI) authorized(r *http.Request) bool {
	if ok, sent := ui.s.admin.Admits(r); sent {
		return ok
	}
	c, err := r.Cookie(uiCookie)
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

// guard lets in what authorized lets in; anything else gets 401: the login form for a
// browser, the control API's error shape for any other client, and never the page's data.
func (ui *dashboardUI) guard(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ui.authorized(r) {
			if ui.s.admitted != nil { // the tests' seam between admission and operation
				ui.s.admitted(r)
			}
			next(w, r)
			return
		}
		ui.refuse(w, r, false)
	})
}

// refuse answers 401 to a request without the admin token; failed says a login was tried.
func (ui *dashboardUI) refuse(w http.ResponseWriter, r *http.Request, failed bool) {
	if !wantsHTML(r) {
		writeError(w, &Error{Status: http.StatusUnauthorized, Code: core.CodeInvalidAPIKey, Message: "The dashboard needs Authorization: Bearer <admin_token> or a login at " + uiPath + "/login."})
		return
	}
	ui.render(w, r, http.StatusUnauthorized, "login", uiPage{Title: "Log in", Data: loginView{Failed: failed, Next: loginNext(r)}})
}

// loginNext is where the login form returns to: the page asked for, or the one the form
// carried, when it is a page of the dashboard (localUIPath); else the overview.
func loginNext(r *http.Request) string {
	var next string
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		next = r.URL.RequestURI()
	case r.URL.Path == uiPath+"/login":
		next = r.PostFormValue("next") // the body is bounded by handleLogin
	}
	if next = localUIPath(next); strings.HasPrefix(next, uiPath+"/login") || strings.HasPrefix(next, uiPath+"/state") {
		return uiPath + "/"
	}
	return next
}

// wantsHTML reports whether the client asked for HTML, as a browser navigating does.
func wantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// loginView is the login form's data: whether a login failed, and the page to return to.
type loginView struct {
	Failed bool
	Next   string
}

func (ui *dashboardUI) handleLoginForm(w http.ResponseWriter, r *http.Request) {
	ui.render(w, r, http.StatusOK, "login", uiPage{Title: "Log in", Data: loginView{Next: localUIPath(r.URL.Query().Get("next"))}})
}

// handleLogin takes the admin token from the form's body (never from the URL: PostFormValue
// reads the body only) and starts a session.
func (ui *dashboardUI) handleLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUIForm)
	token := r.PostFormValue("token")
	if !ui.s.admin.Is(token) {
		ui.refuse(w, r, true)
		return
	}
	session := rand.Text()
	ui.mu.Lock()
	ui.sessions = append(ui.sessions, sha256.Sum256([]byte(session)))
	if len(ui.sessions) > maxUISessions {
		ui.sessions = slices.Delete(ui.sessions, 0, len(ui.sessions)-maxUISessions)
	}
	ui.mu.Unlock()
	http.SetCookie(w, ui.cookie(r, session, 0))
	http.Redirect(w, r, loginNext(r), http.StatusSeeOther)
}

// handleLogout ends the session the cookie names and clears the cookie.
func (ui *dashboardUI) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(uiCookie); err == nil {
		sum := sha256.Sum256([]byte(c.Value))
		ui.mu.Lock()
		ui.sessions = slices.DeleteFunc(ui.sessions, func(h [sha256.Size]byte) bool { return h == sum })
		ui.mu.Unlock()
	}
	http.SetCookie(w, ui.cookie(r, "", -1))
	http.Redirect(w, r, uiPath+"/login", http.StatusSeeOther)
}

// cookie is the session cookie: HttpOnly, SameSite=Strict, scoped to the dashboard, Secure
// when the request came over TLS. maxAge 0 lasts the browser session, -1 deletes it.
func (ui *dashboardUI) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: uiCookie, Value: value, Path: uiPath, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	}
}

// render writes a page, or the control API's 500 when it cannot be rendered.
func (ui *dashboardUI) render(w http.ResponseWriter, r *http.Request, status int, name string, page uiPage) {
	if page.Authed = name != "login"; page.Authed {
		ui.s.fillPage(r, &page)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var buf strings.Builder
	if err := ui.pages.Render(&buf, name, page); err != nil {
		w.Header().Del("Content-Type")
		writeError(w, &Error{Status: http.StatusInternalServerError, Code: core.CodeInternal, Message: "The page could not be rendered: " + err.Error()})
		return
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(buf.String()))
	}
}

// renderError shows an error of the Go API (unknown id, bad filter) as a page in the control
// API's status, or in its JSON shape for a client that did not ask for HTML.
func (ui *dashboardUI) renderError(w http.ResponseWriter, r *http.Request, err error) {
	e := asError(err)
	if !wantsHTML(r) {
		writeError(w, e)
		return
	}
	ui.render(w, r, e.Status, "message", uiPage{Title: "Error", Notice: e.Message})
}
