package fakeserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// TestHostedEpisodeTagsReachTheReport: tags, chapters and a cover written into a hosted
// episode's audio are read back by the analysis into the report's metadata and cover_image
// (served at its URL); by default an episode carries passing tags and cover; bare audio fails
// the two informational checks without failing the report.
func TestHostedEpisodeTagsReachTheReport(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 1500, 1500))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	var cover bytes.Buffer
	if err := png.Encode(&cover, img); err != nil {
		t.Fatal(err)
	}
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Tagged Show", Episodes: []fakeserver.HostedEpisode{
		{Title: "Bare", GUID: "bare", Duration: 2 * time.Second, BareAudio: true},
		{Title: "Default", GUID: "default", Duration: 2 * time.Second},
		{Title: "Tagged", GUID: "tagged", Duration: 3 * time.Second, Cover: cover.Bytes(), Tags: &fakeserver.HostedTags{
			Artist: "The Host", Album: "The Album", Year: 2025, Comment: "Notes",
			Chapters: []fakeserver.HostedChapter{{Start: 0, End: 1500 * time.Millisecond, Title: "Intro"}, {Start: 1500 * time.Millisecond, End: 3000 * time.Millisecond, Title: "Talk"}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ids := map[string]string{}
	for i, name := range []string{"bare", "default", "tagged"} {
		r, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{EpisodeIndex: i})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = r.ID
	}
	if _, err := srv.Advance(10 * time.Minute); err != nil {
		t.Fatal(err)
	}
	get := func(name string) *client.Report {
		t.Helper()
		r, err := c.GetReport(ctx, ids[name])
		if err != nil || r.Status != client.StatusComplete || !r.Passed() {
			t.Fatalf("%s: %+v %v", name, r, err)
		}
		return r
	}
	status := func(r *client.Report, check string) client.CheckStatus {
		res, ok := r.Result(check)
		if !ok {
			return "absent"
		}
		return res.Status
	}
	text := func(v client.JSONValue) string { s, _ := v.Text(); return s }

	tagged := get("tagged")
	if m := tagged.Metadata; m == nil || text(m.Title) != "Tagged" || text(m.Artist) != "The Host" || text(m.Album) != "The Album" ||
		text(m.Year) != "2025" || len(m.Chapters) != 2 {
		t.Fatalf("metadata %+v", tagged.Metadata)
	}
	var chapter struct {
		Start, End int
		Title      string
	}
	if err := json.Unmarshal(tagged.Metadata.Chapters[1].Raw(), &chapter); err != nil || chapter.Start != 1500 || chapter.End != 3000 || chapter.Title != "Talk" {
		t.Fatalf("second chapter %s: %v", tagged.Metadata.Chapters[1].Raw(), err)
	}
	ci := tagged.CoverImage
	if w, _ := ci.Width.Int(); w != 1500 {
		t.Fatalf("cover %+v", ci)
	}
	if size, _ := ci.FileSize.Int(); size != int64(cover.Len()) {
		t.Fatalf("cover size %+v, want %d", ci, cover.Len())
	}
	url, _ := ci.URL.Text()
	resp, err := srv.Client().Get(url)
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(served, cover.Bytes()) {
		t.Fatalf("cover URL %s answered %d with %d bytes", url, resp.StatusCode, len(served))
	}
	for name, want := range map[string]client.CheckStatus{"tagged": client.CheckPass, "default": client.CheckPass, "bare": client.CheckFail} {
		r := get(name)
		if got, got2 := status(r, "metadata"), status(r, "cover_image"); got != want || got2 != want {
			t.Errorf("%s: metadata %s, cover_image %s; want %s", name, got, got2, want)
		}
	}
}
