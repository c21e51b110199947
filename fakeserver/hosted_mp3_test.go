package fakeserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHostedMP3Episode: an episode hosted as mp3 is served as audio/mpeg with its exact length,
// which the feed's enclosure states too, and its report measures it as an MP3 at the loudness
// asked, tags and cover included; refusals of the format's fields are validation errors.
func TestHostedMP3Episode(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	loud := -16.5
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "MP3 Show", Episodes: []HostedEpisode{
		{Title: "Coded", GUID: "m", Duration: 12 * time.Second, LoudnessLUFS: &loud, Format: "mp3", BitRate: 160},
	}})
	if err != nil {
		t.Fatal(err)
	}
	audioURL := srv.host.AudioURLs(mustUUID(t, feed.ID))[0]
	if !strings.HasSuffix(audioURL, ".mp3") {
		t.Fatalf("audio URL %s", audioURL)
	}
	resp, err := srv.Client().Get(audioURL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Header.Get("Content-Type") != "audio/mpeg" || resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) || string(body[:3]) != "ID3" {
		t.Fatalf("audio: %v %q %q, %d bytes starting %q", err, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Length"), len(body), body[:3])
	}
	resp, err = srv.Client().Get(feed.FeedURL)
	if err != nil {
		t.Fatal(err)
	}
	rss, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf(`length="%d" type="audio/mpeg"`, len(body)); !strings.Contains(string(rss), want) {
		t.Fatalf("feed lacks %s:\n%s", want, rss)
	}

	status, b := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.FeedURL+`"}`)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, b)
	}
	var created struct{ ID string }
	_ = json.Unmarshal(b, &created)
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	r := getReport(t, srv, seed.APIKey, created.ID)
	if r.Status != "COMPLETE" || !*r.Stats.Passed || r.FileInfo["codec_name"] != "mp3" || r.FileInfo["format_name"] != "mp3" || r.FileInfo["size"] != float64(len(body)) {
		t.Fatalf("report %s passed %v file_info %v", r.Status, r.Stats.Passed, r.FileInfo)
	}
	var lufs float64
	if err := json.Unmarshal(r.Results[0].Value, &lufs); err != nil || math.Abs(lufs-loud) > 0.05 {
		t.Fatalf("measured %v LUFS (%v), asked %v", lufs, err, loud)
	}

	for name, e := range map[string]HostedEpisode{
		"unknown format":         {Title: "X", Duration: 1 * time.Second, Format: "ogg"},
		"mp3 at 96000 Hz":        {Title: "X", Duration: 1 * time.Second, Format: "mp3", SampleRate: 96000},
		"320 kbit/s at 22050 Hz": {Title: "X", Duration: 1 * time.Second, SampleRate: 22050, BitRate: 320},
		"odd bit rate":           {Title: "X", Duration: 1 * time.Second, Format: "mp3", BitRate: 100},
		"bit rate with wav":      {Title: "X", Duration: 1 * time.Second, Format: "wav", BitRate: 128},
	} {
		_, err := srv.AddHostedEpisode(feed.ID, e)
		var fe *Error
		if !errors.As(err, &fe) || fe.Status != http.StatusBadRequest {
			t.Errorf("%s: %v, want a 400 *Error", name, err)
		}
	}
}
