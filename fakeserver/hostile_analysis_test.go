package fakeserver

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDecompressionBombFailsFast: the 8-channel FLAC bomb of issue #19 kept one Advance busy
// for 30 s; it now fails its report at once, with the ceiling named. "At once" is shown by the
// reason, not by a stopwatch: the channel ceiling is checked before the first block is decoded
// (audio's TestBombsStopAtACeiling counts that it stops at the first check).
func TestDecompressionBombFailsFast(t *testing.T) {
	t.Parallel()
	bomb, err := os.ReadFile("internal/audio/testdata/bombs/flac-8ch-65535x2000.flac")
	if err != nil {
		t.Fatal(err)
	}
	srv, seed := NewTest(t, WithAnalysisPace(0))
	id := uploadReport(t, srv, seed.APIKey, bomb)
	if _, err := srv.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	_, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
	var r struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "FAILED" {
		t.Fatalf("report %s", body)
	}
	// The reason reaches the workspace in the failure email.
	emails, err := srv.Emails(seed.WorkspaceID)
	if err != nil || len(emails) == 0 || !strings.Contains(emails[0].Text, "8 channels; at most 2 are measured") {
		t.Fatalf("emails %+v %v", emails, err)
	}
}
