package core

import (
	"crypto/sha256"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
)

func TestCreateStandardValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, NewWorkspace{})
	no := false
	ok, err := f.c.CreateStandard(f.ws.ID, StandardSpec{Name: "  Strict EBU ", BasedOn: StandardEBUR128,
		UnwantedWords: []string{"um", "you  know"}, ExpectedWords: []string{"Thanks for listening"}, TranscriptIncluded: &no})
	if err != nil {
		t.Fatal(err)
	}
	ebu := builtin(t, StandardEBUR128)
	if ok.Name != "Strict EBU" || ok.Builtin || ok.BasedOn != StandardEBUR128 || ok.Limits.Loudness != ebu.Limits.Loudness ||
		ok.TranscriptIncluded || strings.Join(ok.UnwantedWords, "|") != "um|you know" || !ok.CreatedAt.Equal(start) {
		t.Fatalf("created %+v", ok)
	}
	long := strings.Repeat("a", maxPhraseLength+1)
	many := make([]string, maxWordsPerList+1)
	for i := range many {
		many[i] = "w" + strings.Repeat("x", i%50) + string(rune('a'+i%26))
	}
	tests := []struct {
		name string
		ws   uuid.UUID
		spec StandardSpec
		code string
	}{
		{"no name", f.ws.ID, StandardSpec{Name: " "}, CodeValidation},
		{"long name", f.ws.ID, StandardSpec{Name: strings.Repeat("n", maxStandardName+1)}, CodeValidation},
		{"unknown base", f.ws.ID, StandardSpec{Name: "X", BasedOn: "Broadcast"}, CodeValidation},
		{"a custom base", f.ws.ID, StandardSpec{Name: "X", BasedOn: "Strict EBU"}, CodeValidation},
		{"phrase without a word", f.ws.ID, StandardSpec{Name: "X", UnwantedWords: []string{"ok", " ... "}}, CodeValidation},
		{"phrase too long", f.ws.ID, StandardSpec{Name: "X", ExpectedWords: []string{long}}, CodeValidation},
		{"same phrase twice", f.ws.ID, StandardSpec{Name: "X", ExpectedWords: []string{"Hi there", "hi, there"}}, CodeValidation},
		{"too many", f.ws.ID, StandardSpec{Name: "X", UnwantedWords: many}, CodeValidation},
		{"name taken", f.ws.ID, StandardSpec{Name: "strict ebu"}, CodeConflict},
		{"built-in name", f.ws.ID, StandardSpec{Name: "Podcast"}, CodeConflict},
		{"unknown workspace", uuid.New(), StandardSpec{Name: "X"}, CodeNotFound},
	}
	for _, tt := range tests {
		_, err := f.c.CreateStandard(tt.ws, tt.spec)
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.code {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.code)
		}
	}
	list, err := f.c.Standards(f.ws.ID)
	if err != nil || len(list) != 4 || list[0].Name != StandardPodcast || list[3].ID != ok.ID {
		t.Fatalf("standards after refusals: %v %v", list, err)
	}
	// Another workspace neither sees nor can use it, and may reuse the name.
	other, _ := f.c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Bo"})
	if l, _ := f.c.Standards(other.ID); len(l) != 3 {
		t.Fatalf("other workspace sees %d standards", len(l))
	}
	if _, err := f.c.SetDefaultStandard(other.ID, ok.ID); err == nil {
		t.Fatal("another workspace's standard was usable")
	}
	if _, err := f.c.CreateStandard(other.ID, StandardSpec{Name: "Strict EBU"}); err != nil {
		t.Fatal(err)
	}
}

func TestStandardAssignmentPerShowAndDefault(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, NewWorkspace{})
	ctx := t.Context()
	report := func(in FromFeed) Report {
		t.Helper()
		r, err := f.c.CreateReportFromFeed(ctx, f.p, in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	upload := func() Report {
		t.Helper()
		res, err := f.c.Reserve(f.p, "a.wav", "audio/wav", 60_000)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.c.StoreUpload(res.ID, []byte("http://feeds.test/ep1.wav")); err != nil {
			t.Fatal(err)
		}
		r, _, err := f.c.CreateReportFromUpload(f.p, res.ID, "a.wav", 60_000)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := report(FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if first.Standard.Name != StandardPodcast || !first.Standard.Builtin {
		t.Fatalf("default standard %s", first.Standard.Name)
	}
	aes := builtin(t, StandardAESSpeech)
	custom, err := f.c.CreateStandard(f.ws.ID, StandardSpec{Name: "Show rules", UnwantedWords: []string{"um"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.SetDefaultStandard(f.ws.ID, aes.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := f.c.SetSeriesStandard(*first.Series, &custom.ID); err != nil || got.ID != custom.ID {
		t.Fatalf("assign to show: %v %v", got, err)
	}
	if r := report(FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 1}); r.Standard.ID != custom.ID {
		t.Fatalf("show's report judged by %s", r.Standard.Name)
	}
	if r := report(FromFeed{FeedURL: "http://feeds.test/other.rss"}); r.Standard.ID != aes.ID {
		t.Fatalf("other show's report judged by %s, want the default", r.Standard.Name)
	}
	if r := upload(); r.Standard.ID != aes.ID {
		t.Fatalf("upload judged by %s, want the default", r.Standard.Name)
	}
	// Removing the show's own standard brings the default back; the first report keeps its own.
	if got, err := f.c.SetSeriesStandard(*first.Series, nil); err != nil || got.ID != aes.ID {
		t.Fatalf("clear: %v %v", got, err)
	}
	if r := report(FromFeed{FeedURL: "http://feeds.test/show.rss"}); r.Standard.ID != aes.ID {
		t.Fatalf("after clearing: %s", r.Standard.Name)
	}
	f.advance(t, time.Second)
	if got := f.report(t, first.ID); got.Standard.Name != StandardPodcast || got.Status != StatusComplete {
		t.Fatalf("first report now %s %s", got.Status, got.Standard.Name)
	}
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"unknown series", func() error { _, err := f.c.SetSeriesStandard(uuid.New(), &aes.ID); return err }()},
		{"unknown standard for a show", func() error { id := uuid.New(); _, err := f.c.SetSeriesStandard(*first.Series, &id); return err }()},
		{"unknown standard as default", func() error { _, err := f.c.SetDefaultStandard(f.ws.ID, uuid.New()); return err }()},
		{"unknown workspace", func() error { _, err := f.c.SetDefaultStandard(uuid.New(), aes.ID); return err }()},
	} {
		var e *Error
		if !errors.As(tt.err, &e) || e.Code != CodeNotFound {
			t.Errorf("%s: %v", tt.name, tt.err)
		}
	}
}

// transcriptWorld adds transcription to the scripted world: by URL and by content.
func transcriptWorld(byURL map[string][]TranscriptLine, byContent map[[32]byte][]TranscriptLine) func(Deps) Deps {
	return func(d Deps) Deps {
		d.Transcribe = func(url string) ([]TranscriptLine, bool) { l, ok := byURL[url]; return l, ok }
		d.TranscribeContent = func(sum [32]byte) ([]TranscriptLine, bool) { l, ok := byContent[sum]; return l, ok }
		return d
	}
}

func newTranscriptFixture(t *testing.T, wrap func(Deps) Deps) fixture {
	t.Helper()
	c := New(clock.NewManual(start), wrap(newWorld().deps(0)))
	ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	_, key := mustKey(t, c, ws.ID, false)
	p, err := c.Authenticate(key)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{c: c, p: p, ws: ws}
}

func TestTranscriptsByURLAndByContent(t *testing.T) {
	t.Parallel()
	uploaded := []byte("http://feeds.test/ep1.wav") // the scripted world measures uploads by their bytes
	scripted := []TranscriptLine{line(0, 1000, "Um, hello", "guest", ptr(0.9)), line(1000, 2000, "hi", "host", nil)}
	f := newTranscriptFixture(t, transcriptWorld(
		map[string][]TranscriptLine{"http://feeds.test/ep2.wav": {line(0, 500, "um", "x", nil)}},
		map[[32]byte][]TranscriptLine{sha256.Sum256(uploaded): scripted},
	))
	quiet := false
	std, err := f.c.CreateStandard(f.ws.ID, StandardSpec{Name: "No ums", UnwantedWords: []string{"um"}})
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := f.c.CreateStandard(f.ws.ID, StandardSpec{Name: "Hidden", UnwantedWords: []string{"um"}, TranscriptIncluded: &quiet})
	if err != nil {
		t.Fatal(err)
	}
	uploadAs := func(s Standard, audio []byte) Report {
		t.Helper()
		if _, err := f.c.SetDefaultStandard(f.ws.ID, s.ID); err != nil {
			t.Fatal(err)
		}
		res, _ := f.c.Reserve(f.p, "a.wav", "audio/wav", 1000)
		if err := f.c.StoreUpload(res.ID, audio); err != nil {
			t.Fatal(err)
		}
		r, _, err := f.c.CreateReportFromUpload(f.p, res.ID, "a.wav", 1000)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	feed, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if err != nil {
		t.Fatal(err)
	}
	shown := uploadAs(std, uploaded)
	kept := uploadAs(hidden, uploaded)
	f.advance(t, time.Second)

	got := f.report(t, shown.ID)
	if len(got.Transcript) != 2 || *got.Transcript[0].Speaker != "Speaker 1" || *got.Transcript[1].Speaker != "Speaker 2" || *got.Transcript[0].Confidence != 0.9 {
		t.Fatalf("upload transcript %+v", got.Transcript)
	}
	if r, ok := rowOf(got.Results, "unwanted_words"); !ok || r.Status != Fail || !strings.Contains(string(r.Value), `"description":"\"um\" (90%)"`) {
		t.Fatalf("unwanted_words on the upload: %+v", r)
	}
	if _, ok := rowOf(got.Results, "explicit_flag"); ok {
		t.Fatal("an upload has an explicit_flag row")
	}
	hid := f.report(t, kept.ID)
	if hid.Transcript != nil {
		t.Fatalf("transcript kept though the standard leaves it out: %+v", hid.Transcript)
	}
	if r, ok := rowOf(hid.Results, "unwanted_words"); !ok || r.Status != Fail {
		t.Fatal("the word check needs the transcript even when the report does not keep it")
	}
	fr := f.report(t, feed.ID)
	if len(fr.Transcript) != 1 || fr.Transcript[0].Text != "um" {
		t.Fatalf("feed transcript by URL %+v", fr.Transcript)
	}
	// Audio with no script has no transcript and no word rows.
	other := uploadAs(std, []byte("http://feeds.test/ep2.wav"))
	f.advance(t, time.Second)
	if r := f.report(t, other.ID); r.Transcript != nil || len(r.Results) == 0 {
		t.Fatalf("unscripted upload: %+v", r)
	} else if _, ok := rowOf(r.Results, "unwanted_words"); ok {
		t.Fatal("word row without a transcript")
	}
}

func TestChargingUsesTheMeasuredDuration(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, NewWorkspace{})
	// Declared as half an hour, the file measures 12 min 1 s: 13 started minutes, 130 credits.
	res, err := f.c.Reserve(f.p, "a.wav", "audio/wav", 30*60_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.StoreUpload(res.ID, []byte("http://feeds.test/ep1.wav")); err != nil {
		t.Fatal(err)
	}
	r, estimate, err := f.c.CreateReportFromUpload(f.p, res.ID, "a.wav", 30*60_000)
	if err != nil || estimate != 300 {
		t.Fatalf("estimate %d %v", estimate, err)
	}
	f.advance(t, time.Second)
	done := f.report(t, r.ID)
	if done.Status != StatusComplete || done.CreditsCharged == nil || *done.CreditsCharged != 130 {
		t.Fatalf("charged %v (%s), want 130 from the measured 12:01", done.CreditsCharged, done.Status)
	}
	cr, _ := f.c.Credits(f.ws.ID)
	if cr.PlanUsed != 130 {
		t.Fatalf("plan used %v", cr.PlanUsed)
	}
}

func TestExplicitFlagFollowsTheFeed(t *testing.T) {
	t.Parallel()
	w := newWorld()
	c := New(clock.NewManual(start), transcriptWorld(map[string][]TranscriptLine{
		"http://feeds.test/ep2.wav": {line(0, 1000, "well damn", "", ptr(0.8))},
	}, nil)(w.deps(0)))
	ws, _ := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Ada"})
	_, key := mustKey(t, c, ws.ID, false)
	p, _ := c.Authenticate(key)
	f := fixture{c: c, p: p, ws: ws}
	r, err := c.CreateReportFromFeed(t.Context(), p, FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if err != nil {
		t.Fatal(err)
	}
	f.advance(t, time.Second)
	before := f.report(t, r.ID)
	if before.Stats.Passed {
		t.Fatalf("profanity in an episode not marked explicit passed: %+v", before.Results)
	}
	// The feed now marks the show explicit; the next read of the feed (here, another report)
	// records it, and the finished report's verdict follows without updated_at moving.
	yes := true
	w.feeds["http://feeds.test/show.rss"].Explicit = &yes
	if _, err := c.CreateReportFromFeed(t.Context(), p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 1}); err != nil {
		t.Fatal(err)
	}
	after := f.report(t, r.ID)
	row, _ := rowOf(after.Results, "explicit_flag")
	if !after.Stats.Passed || row.Status != Pass || !strings.Contains(string(row.Value), `"marked_explicit":true`) ||
		!after.UpdatedAt.Equal(before.UpdatedAt) || after.Version == before.Version {
		t.Fatalf("after the flag changed: passed %v row %s updated %v→%v version %d→%d",
			after.Stats.Passed, row.Value, before.UpdatedAt, after.UpdatedAt, before.Version, after.Version)
	}
	// The same flag read again changes nothing.
	if _, err := c.CreateReportFromFeed(t.Context(), p, FromFeed{FeedURL: "http://feeds.test/show.rss", EpisodeIndex: 1}); err != nil {
		t.Fatal(err)
	}
	if again := f.report(t, r.ID); again.Version != after.Version {
		t.Fatal("an unchanged flag re-judged the report")
	}
}

func TestLimitOverrides(t *testing.T) {
	t.Parallel()
	base := builtin(t, StandardPodcast).Limits
	nan := math.NaN()
	bad := []struct {
		name string
		o    LimitOverrides
	}{
		{"inverted range", LimitOverrides{Loudness: &Range{-14, -18}}},
		{"range out of scale", LimitOverrides{MonoLoudness: &Range{-80, -18}}},
		{"NaN peak", LimitOverrides{MaxTruePeak: &nan}},
		{"peak too high", LimitOverrides{MaxTruePeak: ptr(3.5)}},
		{"negative loudness range", LimitOverrides{MaxLoudnessRange: ptr(-1.0)}},
		{"negative clipping", LimitOverrides{MaxClippingRuns: ptr(-1)}},
		{"rates both ways", LimitOverrides{SampleRates: []int{48000}, MinSampleRate: ptr(44100)}},
		{"empty rates", LimitOverrides{SampleRates: []int{}}},
		{"odd rate", LimitOverrides{SampleRates: []int{48000, 100}}},
		{"low minimum rate", LimitOverrides{MinSampleRate: ptr(4000)}},
		{"bitrate negative", LimitOverrides{MinBitrateKbps: ptr(-1.0)}},
		{"no channels", LimitOverrides{Channels: []int{}}},
		{"nine channels", LimitOverrides{Channels: []int{9}}},
		{"negative silence", LimitOverrides{MaxLongSilence: durPtr(-time.Second)}},
		{"day of silence", LimitOverrides{MaxLeadingSilence: durPtr(24 * time.Hour)}},
		{"noise floor above 0", LimitOverrides{MaxNoiseFloor: ptr(1.0)}},
	}
	for _, tt := range bad {
		var e *Error
		if _, err := tt.o.apply(base); !errors.As(err, &e) || e.Code != CodeValidation {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	got, err := LimitOverrides{
		Loudness: &Range{-15, -13}, MinSampleRate: ptr(22050), MinBitrateKbps: ptr(0.0), Channels: []int{2},
		MaxLongSilence: durPtr(1500 * time.Millisecond), MaxClippingRuns: ptr(3),
	}.apply(base)
	if err != nil {
		t.Fatal(err)
	}
	want := base.clone()
	want.Loudness, want.SampleRates, want.MinSampleRate, want.MinBitrateKbps = Range{-15, -13}, nil, 22050, 0
	want.Channels, want.MaxLongSilence, want.MaxClippingRuns = []int{2}, 1500*time.Millisecond, 3
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("applied %+v\nwant %+v", got, want)
	}
	if base.Loudness != (Range{-17, -15}) || len(base.Channels) != 2 {
		t.Fatal("apply changed the base")
	}
	// A standard with these limits judges by them.
	f := newFixture(t, 0, NewWorkspace{})
	std, err := f.c.CreateStandard(f.ws.ID, StandardSpec{Name: "Loud", Limits: LimitOverrides{Loudness: &Range{-15, -13}, MinSampleRate: ptr(22050)}})
	if err != nil {
		t.Fatal(err)
	}
	m := goodMeasurement(-14)
	m.SampleRate, m.ClippingRuns = 32000, ptr(1)
	results := judge(judgeInput{std: std, m: m})
	for name, want := range map[string]string{"loudness_lufs": Pass, "sample_rate": Pass, "clipping": Fail} {
		if r, _ := rowOf(results, name); r.Status != want {
			t.Errorf("%s %s under custom limits, want %s (limit %v)", name, r.Status, want, *r.Limit)
		}
	}
	if r, _ := rowOf(results, "sample_rate"); *r.Limit != "at least 22050 Hz" {
		t.Errorf("sample_rate limit %q", *r.Limit)
	}
}
