package fakeserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// aacRef is one AAC fixture of internal/audio with ffmpeg's figures (its reference.json).
type aacRef struct {
	File      string  `json:"file"`
	LUFS      float64 `json:"integrated_lufs"`
	TruePeak  float64 `json:"true_peak_db"`
	Codec     string  `json:"codec_name"`
	Format    string  `json:"format_name"`
	Rate      int     `json:"sample_rate"`
	Channels  int     `json:"channels"`
	Decoded   int64   `json:"decoded_frames"`
	DurationS float64 `json:"duration"`
}

func aacRefs(t *testing.T) []aacRef {
	t.Helper()
	raw, err := os.ReadFile("internal/audio/testdata/formats/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Files []aacRef }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []aacRef
	for _, f := range doc.Files {
		if f.Codec == "aac" && f.File != "tagged.m4a" {
			out = append(out, f)
		}
	}
	if len(out) < 4 {
		t.Fatalf("%d AAC fixtures", len(out))
	}
	return out
}

// TestAACReportsComplete measures ffmpeg's M4A files (moov before and after the media data)
// and ADTS streams end to end, uploaded and as feed enclosures: each report completes, its
// file_info names codec and container as ffprobe does, and loudness and true peak are within
// 0.1 LU and 0.2 dB of ffmpeg's ebur128 filter.
func TestAACReportsComplete(t *testing.T) {
	t.Parallel()
	for _, ref := range aacRefs(t) {
		data, err := os.ReadFile("internal/audio/testdata/formats/" + ref.File)
		if err != nil {
			t.Fatal(err)
		}
		for _, via := range []string{"upload", "feed"} {
			t.Run(ref.File+" by "+via, func(t *testing.T) {
				t.Parallel()
				srv, seed := NewTest(t, WithAnalysisPace(0))
				var id string
				if via == "upload" {
					id = uploadReport(t, srv, seed.APIKey, data)
				} else {
					feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasSuffix(r.URL.Path, ".rss") {
							w.Header().Set("Content-Type", "application/rss+xml")
							fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Show</title><item><title>One</title><guid>1</guid><enclosure url="http://%s/%s" type="audio/mp4" length="%d"/></item></channel></rss>`, r.Host, ref.File, len(data))
							return
						}
						http.ServeContent(w, r, ref.File, time.Time{}, bytes.NewReader(data))
					}))
					t.Cleanup(feed.Close)
					status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.URL+`/feed.rss"}`)
					var created struct{ ID string }
					if status != http.StatusCreated || json.Unmarshal(body, &created) != nil {
						t.Fatalf("create: %d %s", status, body)
					}
					id = created.ID
				}
				if _, err := srv.Advance(time.Minute); err != nil {
					t.Fatal(err)
				}
				r := getReport(t, srv, seed.APIKey, id)
				if r.Status != "COMPLETE" {
					t.Fatalf("report %+v", r)
				}
				values := map[string]float64{}
				for _, row := range r.Results {
					var v float64
					if json.Unmarshal(row.Value, &v) == nil {
						values[row.Name] = v
					}
				}
				if d := values["loudness_lufs"] - ref.LUFS; math.Abs(d) > 0.1 {
					t.Errorf("loudness %.3f LUFS, ffmpeg %.3f", values["loudness_lufs"], ref.LUFS)
				}
				if d := values["peak"] - ref.TruePeak; math.Abs(d) > 0.2 {
					t.Errorf("true peak %.3f dBTP, ffmpeg %.3f", values["peak"], ref.TruePeak)
				}
				wantDur := ref.DurationS // the edit list's, as ffprobe reports
				if ref.Format == "aac" {
					wantDur = float64(ref.Decoded) / float64(ref.Rate) // ADTS: every frame ffmpeg decodes
				}
				fi := r.FileInfo
				if fi["codec_name"] != "aac" || fi["format_name"] != ref.Format || fi["channels"] != float64(ref.Channels) ||
					fi["sample_rate"] != float64(ref.Rate) || math.Abs(fi["duration"].(float64)-wantDur) > 0.001 || fi["size"] != float64(len(data)) {
					t.Errorf("file_info %v", fi)
				}
			})
		}
	}
}

// TestHEAACReportFailsNamingTheProfile uploads an M4A whose configuration signals SBR: the
// report fails, and the reason sent to the workspace names HE-AAC.
func TestHEAACReportFailsNamingTheProfile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("internal/audio/testdata/formats/tagged.m4a")
	if err != nil {
		t.Fatal(err)
	}
	he := bytes.Replace(data, []byte{0x12, 0x08, 0x56, 0xe5, 0x00}, []byte{0x12, 0x08, 0x56, 0xe5, 0x80}, 1)
	if bytes.Equal(he, data) {
		t.Fatal("the fixture's AudioSpecificConfig moved")
	}
	srv, seed := NewTest(t, WithAnalysisPace(0))
	id := uploadReport(t, srv, seed.APIKey, he)
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if r := getReport(t, srv, seed.APIKey, id); r.Status != "FAILED" {
		t.Fatalf("report %+v", r)
	}
	emails, err := srv.Emails(seed.WorkspaceID)
	if err != nil || len(emails) == 0 || !strings.Contains(emails[0].Text, "profile HE-AAC") {
		t.Fatalf("emails %+v %v", emails, err)
	}
}
