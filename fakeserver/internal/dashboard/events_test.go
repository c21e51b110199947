package dashboard

import (
	"log/slog"
	"testing"
	"time"
)

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
