package hosted

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

const base = "http://fake.test"

func get(h http.Handler, url string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	return rec
}

func TestHostServesItsFeeds(t *testing.T) {
	t.Parallel()
	h := New(base, 1<<20, slog.New(slog.DiscardHandler))
	id := uuid.New()
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	feedURL, err := h.AddFeed(id, "Show", false, []Episode{{Title: "One", GUID: "g1", Published: day, DurationS: 1, Channels: 1, SampleRate: 8000,
		Transcript: []core.TranscriptLine{{Start: 0, End: 500, Text: "hello"}}}})
	if err != nil {
		t.Fatal(err)
	}
	audioURL, err := h.AddEpisode(id, Episode{Title: "Two", GUID: "g2", Published: day, DurationS: 1, Channels: 1, SampleRate: 8000, BareAudio: true, Format: "wav"})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.AudioURLs(id); len(got) != 2 || got[0] != audioURL {
		t.Fatalf("audio URLs %v, want the new episode first", got)
	}
	handler := h.Handler()
	tests := []struct {
		name, url, contentType, contains string
		status                           int
	}{
		{"the feed", feedURL, "application/rss+xml; charset=utf-8", "<guid isPermaLink=\"false\">g2</guid>", 200},
		{"an episode's audio", audioURL, "audio/wav", "RIFF", 200},
		{"the artwork", base + "/_feeds/" + id.String() + "/cover.png", "image/png", "\x89PNG", 200},
		{"an unknown feed", base + "/_feeds/" + uuid.NewString() + "/feed.rss", "", "", 404},
		{"an unknown episode", base + "/_feeds/" + id.String() + "/audio/x.wav", "", "", 404},
		{"not an id", base + "/_feeds/x/feed.rss", "", "", 404},
	}
	for _, tt := range tests {
		rec := get(handler, tt.url)
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tt.status || (tt.status == 200 && (rec.Header().Get("Content-Type") != tt.contentType || !strings.Contains(string(body), tt.contains))) {
			t.Errorf("%s: %d %q, %.40q", tt.name, rec.Code, rec.Header().Get("Content-Type"), body)
		}
	}
	if lines, ok := h.Transcript(h.AudioURLs(id)[1]); !ok || len(lines) != 1 || lines[0].Text != "hello" {
		t.Errorf("transcript %v %v", lines, ok)
	}
	broken := true
	if err := h.Change(id, nil, &broken); err != nil || get(handler, feedURL).Code != http.StatusInternalServerError {
		t.Errorf("a broken feed: %v", err)
	}
	h.Reset()
	if get(handler, audioURL).Code != http.StatusNotFound || len(h.AudioURLs(id)) != 0 {
		t.Error("Reset kept a feed")
	}
}

func TestHostRefusesBadEpisodes(t *testing.T) {
	t.Parallel()
	h := New(base, 0, slog.New(slog.DiscardHandler))
	id := uuid.New()
	if _, err := h.AddFeed(id, "Show", false, []Episode{{Title: "One", GUID: "g1", DurationS: 1}}); err != nil {
		t.Fatal(err)
	}
	loud, nan := -3.0, 0.0
	nan = nan / nan
	tests := []struct {
		name string
		e    Episode
	}{
		{"no title", Episode{Title: " ", GUID: "x", DurationS: 1}},
		{"too short", Episode{Title: "T", GUID: "x", DurationS: 0.1}},
		{"too long", Episode{Title: "T", GUID: "x", DurationS: MaxDuration + 1}},
		{"three channels", Episode{Title: "T", GUID: "x", DurationS: 1, Channels: 3}},
		{"rate", Episode{Title: "T", GUID: "x", DurationS: 1, SampleRate: 4000}},
		{"too loud", Episode{Title: "T", GUID: "x", DurationS: 1, LoudnessLUFS: &loud}},
		{"NaN peak", Episode{Title: "T", GUID: "x", DurationS: 1, TruePeakDB: &nan}},
		{"transcript backwards", Episode{Title: "T", GUID: "x", DurationS: 1, Transcript: []core.TranscriptLine{{Start: 5, End: 1}}}},
		{"a guid taken", Episode{Title: "T", GUID: "g1", DurationS: 1}},
	}
	for _, tt := range tests {
		_, err := h.AddEpisode(id, tt.e)
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != core.CodeValidation {
			t.Errorf("%s: %v, want a validation error", tt.name, err)
		}
	}
	if len(h.AudioURLs(id)) != 1 {
		t.Error("a refused episode was added")
	}
	for name, err := range map[string]error{
		"AddEpisode to no feed": func() error {
			_, err := h.AddEpisode(uuid.New(), Episode{Title: "T", GUID: "y", DurationS: 1})
			return err
		}(),
		"Change of no feed": h.Change(uuid.New(), nil, nil),
	} {
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != core.CodeNotFound {
			t.Errorf("%s: %v, want not_found", name, err)
		}
	}
	if _, err := h.AddFeed(uuid.New(), "Dup", false, []Episode{{Title: "A", GUID: "d", DurationS: 1}, {Title: "B", GUID: "d", DurationS: 1}}); err == nil {
		t.Error("a feed with two episodes of one guid was accepted")
	}
}
