package hosted

import (
	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// FeedHead is a hosted feed as a listing shows it: no episodes, only how many.
type FeedHead struct {
	ID       uuid.UUID
	Title    string
	FeedURL  string
	Explicit bool
	Broken   bool
	Episodes int
}

// FeedPage is one page of the hosted feeds in the order they were added: the limit feeds
// after the feed after (nil: from the first), and whether more follow. A page costs what it
// holds, however many feeds there are. An after that names no feed (a reset ends every cursor)
// is not found.
func (h *Host) FeedPage(after *uuid.UUID, limit int) ([]FeedHead, bool, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	start := 0
	if after != nil {
		f := h.feeds[*after]
		if f == nil {
			return nil, false, core.ErrNotFound("The cursor's feed")
		}
		start = f.pos + 1
	}
	end := min(start+max(limit, 0), len(h.order))
	out := make([]FeedHead, 0, max(end-start, 0))
	for _, f := range h.order[min(start, end):end] {
		out = append(out, FeedHead{ID: f.id, Title: f.title, FeedURL: h.feedURL(f.id), Explicit: f.explicit, Broken: f.broken, Episodes: len(f.episodes)})
	}
	return out, end < len(h.order), nil
}

// FeedListing is FeedPage by a cursor and a limit as sent (core.ListLimit, core.CursorID): the
// page from cursor ("" for the first, else the next cursor of the page before) and the next
// page's cursor ("" on the last). Server.FeedPage and GET /_fake/feeds both.
func (h *Host) FeedListing(cursor string, limit int) ([]FeedHead, string, error) {
	limit, err := core.ListLimit(limit)
	if err != nil {
		return nil, "", err
	}
	after, err := core.CursorID(cursor, "feeds")
	if err != nil {
		return nil, "", err
	}
	heads, more, err := h.FeedPage(after, limit)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if more && len(heads) > 0 {
		next = heads[len(heads)-1].ID.String()
	}
	return heads, next, nil
}
