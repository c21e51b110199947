// Package dashboard is the fake's dashboard at /_fake/ui: its front (login, sessions, the
// security headers, the layout of every page), the landing page, every page (the overview, a
// workspace, a report with its loudness plot, emails, webhook endpoints, an endpoint's
// deliveries with Resend, the request journal, a request, the faults, the hosted feeds, the
// events), the clock's advance form and the pages' stamps, over Deps; the html/template files
// and the one script and style sheet they load, embedded so that the dashboard works offline.
// The facade mounts the handlers and fills Deps. Every value reaches the page through
// html/template's contextual escaping: no template here marks data as safe HTML.
package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/reportview"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static/dashboard.js static/dashboard.css static/favicon.svg
var staticFiles embed.FS

// StaticPrefix is the path under which the pages load their script and style sheet.
const StaticPrefix = "/_fake/ui/static/"

// pageNames are the templates that render a whole page; each is parsed with layout.html.
var pageNames = []string{
	"login", "message", "overview", "workspace", "report", "webhooks", "endpoint", "emails",
	"feeds", "requests", "request", "faults", "events", "landing",
}

// Pages renders the dashboard's pages. It is safe for concurrent use.
type Pages struct {
	pages map[string]*template.Template
}

// funcs are the helpers the templates use to format values; none returns trusted HTML.
var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000Z")
	},
	"dur": func(d time.Duration) string { return d.String() },
	// count is n with its noun agreeing: {{count .Attempts "attempt" "attempts"}}.
	"count": reportview.Plural,
	// num is a number (or the number a pointer holds) to two decimals at most, U+2212 for a
	// minus and ∞ for an infinity; full is it unrounded, for a title attribute.
	"num": func(v any) string {
		switch n := v.(type) {
		case float64:
			return reportview.Number(n)
		case *float64:
			if n != nil {
				return reportview.Number(*n)
			}
		}
		return "—"
	},
	"full": func(v any) string {
		switch n := v.(type) {
		case float64:
			return strconv.FormatFloat(n, 'g', -1, 64)
		case *float64:
			if n != nil {
				return strconv.FormatFloat(*n, 'g', -1, 64)
			}
		}
		return "—"
	},
}

// New parses the embedded templates.
func New() (*Pages, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	p := &Pages{pages: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := layout.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(templateFiles, "templates/"+name+".html"); err != nil {
			return nil, err
		}
		p.pages[name] = t
	}
	return p, nil
}

// Render writes page name with data, or an error naming what failed; nothing is written to w
// when rendering fails, so that a caller can still answer with an error.
func (p *Pages) Render(w io.Writer, name string, data any) error {
	t, ok := p.pages[name]
	if !ok {
		return fmt.Errorf("dashboard: no page %q", name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

var staticTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
}

// Static serves the script and style sheet under StaticPrefix. They hold no data, so they need
// no token: the login form uses the style sheet too.
func Static() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Base(r.URL.Path)
		body, err := staticFiles.ReadFile("static/" + name)
		ctype, known := staticTypes[path.Ext(name)]
		if err != nil || !known || StaticPrefix+name != r.URL.Path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(body)
	})
}

// FaviconPath is where the pages link their icon.
const FaviconPath = StaticPrefix + "favicon.svg"

// Favicon serves the embedded icon, for the /favicon.ico a browser asks for on its own.
func Favicon() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := staticFiles.ReadFile("static/favicon.svg")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = w.Write(body)
	})
}
