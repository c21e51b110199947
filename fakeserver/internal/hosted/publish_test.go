package hosted

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// recordingAdder keeps the feed it is given instead of hosting it.
type recordingAdder struct {
	id       uuid.UUID
	episodes []Episode
}

func (r *recordingAdder) AddFeed(id uuid.UUID, _ string, _ bool, episodes []Episode) (string, error) {
	r.id, r.episodes = id, episodes
	return "http://127.0.0.1/_feeds/" + id.String() + "/feed.rss", nil
}

// TestMinterHostFeed: the feed's id is minted before its episodes' guids, an episode's own guid
// and day are kept (the day as midnight UTC), the others take a fresh guid and today; a feed
// without a title is refused before anything is minted.
func TestMinterHostFeed(t *testing.T) {
	t.Parallel()
	var minted []uuid.UUID
	now := time.Date(2026, 3, 4, 15, 30, 0, 0, time.FixedZone("x", 3600))
	m := Minter{
		NewID: func() uuid.UUID { id := uuid.New(); minted = append(minted, id); return id },
		Now:   func() time.Time { return now },
	}
	own := time.Date(2025, 12, 31, 23, 0, 0, 0, time.FixedZone("y", -7200)) // 2026-01-01 01:00 UTC
	var into recordingAdder
	id, url, err := m.HostFeed(&into, "Show", false, []Episode{{Title: "a", GUID: "g1", Published: own}, {Title: "b"}})
	if err != nil || url == "" || id != into.id {
		t.Fatalf("HostFeed: %v %q %v", id, url, err)
	}
	tests := []struct {
		name string
		got  Episode
		guid string
		day  time.Time
	}{
		{"own guid and day", into.episodes[0], "g1", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"defaults", into.episodes[1], minted[1].String(), time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		if tt.got.GUID != tt.guid || !tt.got.Published.Equal(tt.day) || tt.got.Published.Location() != time.UTC {
			t.Errorf("%s: guid %q day %v, want %q %v", tt.name, tt.got.GUID, tt.got.Published, tt.guid, tt.day)
		}
	}
	if len(minted) != 2 || minted[0] != id {
		t.Errorf("minted %v, feed %v: the feed's id first, then one guid", minted, id)
	}
	_, _, err = m.HostFeed(&into, "  ", false, []Episode{{Title: "c"}})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeValidation || len(minted) != 2 {
		t.Errorf("no title: %v, %d minted", err, len(minted))
	}
}

// TestFeedID: only the canonical form of an id names a feed.
func TestFeedID(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{id.String(), true},
		{"", false},
		{"not-an-id", false},
		{strings.ToUpper(id.String()), false},
	} {
		got, err := FeedID(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != id) {
			t.Errorf("FeedID(%q) = %v, %v", tt.in, got, err)
		}
	}
}
