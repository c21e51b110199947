package clientproof_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
)

// TestFlowsAgainstTheFake drives every write operation and the reads that follow them against
// the fake on its manual clock: a report from a hosted feed, one from the series it added, the
// episodes seen, the transcript, and the three-step upload.
func TestFlowsAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	ctx := context.Background()
	c := clienttest.NewClient(t, srv, seed.APIKey)
	speaker := "host"
	// WAV, as the upload below names it: the client's flows do not depend on the codec, and an
	// MP3 costs an encode and a true-peak calibration under -race.
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Flow", Episodes: []fakeserver.HostedEpisode{
		{Title: "Two", GUID: "two", Duration: 4 * time.Second, Format: "wav", Transcript: []fakeserver.TranscriptLine{{Start: 0, End: 900 * time.Millisecond, Text: "Hello.", Speaker: &speaker}}},
		{Title: "One", GUID: "one", Duration: 3 * time.Second, Format: "wav"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	fromFeed, err := c.CreateReportFromFeed(ctx, feed.FeedURL, client.CreateReportParams{})
	if err != nil || fromFeed.Status != client.StatusPending {
		t.Fatalf("from feed: %+v %v", fromFeed, err)
	}
	series, err := c.ListSeries(ctx, client.ListParams{})
	if err != nil || len(series.Items) != 1 || series.Items[0].Title != "Flow" {
		t.Fatalf("series: %+v %v", series, err)
	}
	fromSeries, err := c.CreateReportFromSeries(ctx, series.Items[0].ID, client.CreateReportParams{EpisodeIndex: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{fromFeed.ID, fromSeries.ID} {
		r, err := c.GetReport(ctx, id)
		if err != nil || r.Status != client.StatusComplete || !r.Status.IsFinal() || !r.Passed() {
			t.Fatalf("report %s: %+v %v", id, r, err)
		}
	}
	episodes, err := c.ListEpisodes(ctx, series.Items[0].ID, client.ListParams{})
	if err != nil || len(episodes.Items) != 2 || episodes.Items[0].GUID != "one" {
		t.Fatalf("episodes newest seen first: %+v %v", episodes.Items, err)
	}
	tr, err := c.GetTranscript(ctx, fromFeed.ID)
	if err != nil || len(tr.Entries) != 1 || tr.Entries[0].Text != "Hello." || tr.Entries[0].Speaker != "Speaker 1" {
		t.Fatalf("transcript: %+v %v", tr, err)
	}

	// Upload: reserve, PUT the audio with the exact Content-Type and no credentials, create.
	res, err := c.ReserveUpload(ctx, "take.wav", "audio/wav", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	audio := hostedAudio(t, srv, feed)
	req, _ := http.NewRequest(http.MethodPut, res.UploadURL, bytes.NewReader(audio))
	req.Header.Set("Content-Type", "audio/wav")
	resp, err := srv.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %v %v", resp, err)
	}
	resp.Body.Close()
	up, err := c.CreateReportFromUpload(ctx, res.ReportID, "take.wav", 2*time.Second)
	if err != nil || up.EstimatedCredits == nil || *up.EstimatedCredits != 100 {
		t.Fatalf("from upload: %+v %v", up, err)
	}
	if _, err := c.CreateReportFromUpload(ctx, res.ReportID, "take.wav", 2*time.Second); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("second use: %v", err)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	r, err := c.GetReport(ctx, up.ID)
	if err != nil || r.Status != client.StatusComplete || r.Series != nil {
		t.Fatalf("upload report: %+v %v", r, err)
	}
	credits, err := c.GetCredits(ctx)
	if err != nil || credits.PlanUsed != 300 {
		t.Fatalf("three minimum charges: %+v %v", credits, err)
	}
}

// hostedAudio downloads the newest episode's audio of a hosted feed.
func hostedAudio(t *testing.T, srv *fakeserver.Server, feed fakeserver.HostedFeed) []byte {
	t.Helper()
	audio := downloadNewestEpisode(srv, feed.FeedURL)
	if len(audio) == 0 {
		t.Fatal("no audio downloaded")
	}
	return audio
}
