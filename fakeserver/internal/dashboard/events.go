package dashboard

import (
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// The event record's page: the newest MaxList events the filters select, newest first.

// Event is one thing that happened in the fake: fakeserver.Event's fields, which the facade
// converts (a conversion that stops compiling if the two drift).
type Event struct {
	Seq                   uint64
	At                    time.Time
	Level                 slog.Level
	Kind                  string
	Message               string
	WorkspaceID, ReportID string
	Attrs                 []slog.Attr
}

// EventFilter selects events of the record: fakeserver.EventFilter's fields.
type EventFilter struct {
	Kind, WorkspaceID, ReportID string
	Since                       time.Time
	AfterSeq                    uint64
	Limit                       int
}

const (
	// maxEventText bounds an event's message and each of its attributes' values;
	// maxEventAttrs the attributes an event's row shows.
	maxEventText  = 120
	maxEventAttrs = 12
	// maxFilter bounds a filter's value a page shows back in its form.
	maxFilter = 64
	// maxEventsPageBytes is the events page's size whatever tenants send
	// (TestEventsPageBoundedWhateverTenantsSend).
	maxEventsPageBytes = 3 << 20
)

// uiEvent is an event of the record as its page's row shows it.
type uiEvent struct {
	Event
	Attrs []uiAttr
	// MoreAttrs counts the attributes not shown.
	MoreAttrs int
}

// uiAttr is an attribute of an event as text, its value cut at maxEventText.
type uiAttr struct {
	Key, Value string
}

// eventRow is an event as the events page shows it.
func eventRow(e Event) uiEvent {
	row := uiEvent{Event: e}
	row.Message, _ = CutRunes(e.Message, maxEventText)
	row.WorkspaceID, _ = CutRunes(e.WorkspaceID, 36)
	row.ReportID, _ = CutRunes(e.ReportID, 36)
	for i, a := range e.Attrs {
		if i == maxEventAttrs {
			row.MoreAttrs = len(e.Attrs) - i
			break
		}
		key, _ := CutRunes(a.Key, 40)
		value, _ := CutRunes(a.Value.Resolve().String(), maxEventText)
		row.Attrs = append(row.Attrs, uiAttr{Key: key, Value: value})
	}
	return row
}

// ShownFilter is a filter's value as a page's form shows it back: a value longer than any
// the filter takes is cut (the filter was refused or matched nothing).
func ShownFilter(v string) string {
	if utf8.RuneCountInString(v) <= maxFilter {
		return v
	}
	cut, _ := CutRunes(v, maxFilter)
	return strings.TrimSuffix(cut, "…")
}

// eventsView is the event record's page, newest first.
type eventsView struct {
	Kind, WorkspaceID, ReportID string
	Kinds                       []string
	Events                      []uiEvent
	// Capped says older events matched than the page shows (GET /_fake/events lists them).
	Capped bool
}

// ServeEvents is the event record's page.
func (ui *UI) ServeEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := EventFilter{Kind: q.Get("kind"), WorkspaceID: q.Get("workspace"), ReportID: q.Get("report"), Limit: MaxList + 1}
	v := eventsView{Kind: ShownFilter(f.Kind), WorkspaceID: ShownFilter(f.WorkspaceID), ReportID: ShownFilter(f.ReportID), Kinds: ui.deps.EventKinds}
	events := ui.deps.Events(f)
	if len(events) > MaxList {
		events, v.Capped = events[len(events)-MaxList:], true
	}
	for i := len(events) - 1; i >= 0; i-- {
		v.Events = append(v.Events, eventRow(events[i]))
	}
	ui.Render(w, r, http.StatusOK, "events", Page{Title: "Event record", Data: v})
}
