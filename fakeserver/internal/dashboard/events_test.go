package dashboard

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestEventRowNamesItsIDs: an event's workspace and report ids are each named in its row, a
// row about a workspace alone names only that one, and a row about neither has an empty cell.
func TestEventRowNamesItsIDs(t *testing.T) {
	t.Parallel()
	ws, rep := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	for _, tt := range []struct {
		name        string
		event       Event
		want, avoid []string
	}{
		{"both", Event{Kind: "report.created", WorkspaceID: ws, ReportID: rep}, []string{
			`<td class="ids"><div><small>workspace</small> <a href="/_fake/ui/workspaces/` + ws + `"><code>` + ws + `</code></a></div>` +
				`<div><small>report</small> <a href="/_fake/ui/reports/` + rep + `"><code>` + rep + `</code></a></div></td>`}, nil},
		{"a workspace alone", Event{Kind: "workspace.created", WorkspaceID: ws}, []string{
			`<td class="ids"><div><small>workspace</small> <a href="/_fake/ui/workspaces/` + ws + `">`}, []string{"<small>report</small>"}},
		{"neither", Event{Kind: "clock.advanced"}, []string{`<td class="ids"></td>`}, []string{"<small>workspace</small>", "<small>report</small>"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page := renderPage(t, "events", eventsView{Events: []uiEvent{eventRow(tt.event)}})
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %s", w)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(page, a) {
					t.Errorf("the page shows %s", a)
				}
			}
		})
	}
}

// TestEventsPageBoundedWhateverTenantsSend: the events page, with 200 events each holding a
// message and three times the attributes it shows, every text far past its cap in characters
// escaped to five bytes, stays under its documented size; a row shows maxEventAttrs
// attributes and counts the rest.
func TestEventsPageBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	long := fiveByteText(100 << 10)
	var attrs []slog.Attr
	for range 3 * maxEventAttrs {
		attrs = append(attrs, slog.String(fiveByteText(200), long))
	}
	ev := eventsView{Kind: ShownFilter(long), WorkspaceID: ShownFilter(long), ReportID: ShownFilter(long), Kinds: []string{"webhook.attempt_failed", "fault.fired"}, Capped: true}
	for range MaxList {
		ev.Events = append(ev.Events, eventRow(Event{Seq: 1, At: time.Unix(0, 0), Kind: "webhook.attempt_failed", Message: long, WorkspaceID: long, ReportID: long, Attrs: attrs}))
	}
	if r := ev.Events[0]; len(r.Attrs) != maxEventAttrs || r.MoreAttrs != 2*maxEventAttrs {
		t.Errorf("an event row shows %d attributes and counts %d more", len(r.Attrs), r.MoreAttrs)
	}
	got := renderSize(t, "events", ev)
	t.Logf("events page: %d bytes (bound %d)", got, maxEventsPageBytes)
	if got > maxEventsPageBytes {
		t.Errorf("events page: %d bytes, over its bound of %d", got, maxEventsPageBytes)
	}
	if len(ShownFilter(long)) > maxFilter {
		t.Errorf("a filter is shown back as %d bytes", len(ShownFilter(long)))
	}
}
