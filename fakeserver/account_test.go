package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

func TestReportAccountOfAnUpload(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	id := uploadReport(t, srv, seed.APIKey, synthWAV(t, 3))
	if _, err := srv.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	acc, err := srv.ReportAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Report.ID != id || acc.Report.Status != "COMPLETE" || acc.Report.Source != "upload" || acc.Failure != "" {
		t.Errorf("summary: %+v, failure %q", acc.Report, acc.Failure)
	}
	// The account names the report as the listing does: by the rule of NameOf (here, with no
	// name given and no title tag, its file name), not only a name it was given.
	page, err := srv.Reports(seed.WorkspaceID, ReportFilter{})
	if err != nil || len(page.Reports) != 1 {
		t.Fatalf("listing: %+v, %v", page, err)
	}
	if acc.Report.Name != "up.wav" || acc.Report.Name != page.Reports[0].Name {
		t.Errorf("account names the report %q, the listing %q; want up.wav", acc.Report.Name, page.Reports[0].Name)
	}
	var steps []string
	for i, st := range acc.Timeline {
		steps = append(steps, st.Status)
		if i > 0 && st.At.Before(acc.Timeline[i-1].At) {
			t.Errorf("timeline goes back at %d: %+v", i, acc.Timeline)
		}
	}
	if want := "PENDING SCHEDULED IN_PROGRESS COMPLETE"; strings.Join(steps, " ") != want {
		t.Errorf("timeline %v, want %s", steps, want)
	}
	if !acc.Timeline[0].At.Equal(acc.Report.CreatedAt) || !acc.Timeline[3].At.Equal(acc.Report.UpdatedAt) {
		t.Errorf("timeline %+v against created %v, updated %v", acc.Timeline, acc.Report.CreatedAt, acc.Report.UpdatedAt)
	}
	m := acc.Measured
	if m == nil || m.Format != "wav" || m.Duration != 3*time.Second || m.SampleRate != 8000 || m.Channels != 1 {
		t.Fatalf("measured: %+v", m)
	}
	if m.IntegratedLUFS < -19.5 || m.IntegratedLUFS > -18.5 {
		t.Errorf("integrated loudness %.2f, synthesised at -19", m.IntegratedLUFS)
	}
	if len(acc.Checks) == 0 {
		t.Fatal("no checks")
	}
	for _, c := range acc.Checks {
		if c.ID == "" || c.Name == "" || c.Value == "" || c.Why == "" {
			t.Errorf("check %+v", c)
		}
	}
}

func TestReportAccountErrors(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	tests := []struct {
		id     string
		status int
	}{
		{"00000000-0000-4000-8000-000000000000", http.StatusNotFound},
		{"not-a-uuid", http.StatusBadRequest},
		{"", http.StatusBadRequest},
	}
	for _, tt := range tests {
		_, err := srv.ReportAccount(tt.id)
		var e *Error
		if !errors.As(err, &e) || e.Status != tt.status {
			t.Errorf("%q: %v, want a %d *Error", tt.id, err, tt.status)
		}
	}
}

func TestReportAccountOutOfQuota(t *testing.T) {
	t.Parallel()
	logs, withLog := newLogCapture(slog.LevelInfo)
	srv, seed := NewTest(t, withLog)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Show", Episodes: []HostedEpisode{{Title: "One", GUID: "one", Published: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Duration: time.Second, Format: "wav"}}})
	if err != nil {
		t.Fatal(err)
	}
	reportOn(t, srv, seed.APIKey, feed.FeedURL, 0)
	mustAdvance(t, srv, time.Minute)
	series := seriesIDs(t, srv, seed.APIKey)[0]
	if err := srv.SetAutomatedReporting(series, true); err != nil {
		t.Fatal(err)
	}
	used := float64(demoAllowance)
	if err := srv.SetCredits(seed.WorkspaceID, CreditsChange{PlanUsed: &used}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddHostedEpisode(feed.ID, HostedEpisode{Title: "Two", GUID: "two", Published: time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC), Duration: time.Second, Format: "wav"}); err != nil {
		t.Fatal(err)
	}
	mustAdvance(t, srv, time.Hour)
	page, err := srv.Reports(seed.WorkspaceID, ReportFilter{Status: "OUT_OF_QUOTA"})
	if err != nil || len(page.Reports) != 1 || page.Total != 1 {
		t.Fatalf("out of quota reports: %+v %v", page, err)
	}
	sum := page.Reports[0]
	if sum.Source != "automated" || sum.SeriesID != series {
		t.Errorf("summary %+v", sum)
	}
	acc, err := srv.ReportAccount(sum.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(acc.Failure, "needs 100 credits and the workspace has 0") || acc.Measured != nil {
		t.Errorf("failure %q, measured %+v", acc.Failure, acc.Measured)
	}
	if len(acc.Timeline) != 2 || acc.Timeline[0].Status != "PENDING" || acc.Timeline[1].Status != "OUT_OF_QUOTA" || acc.Timeline[1].Reason != acc.Failure {
		t.Errorf("timeline %+v", acc.Timeline)
	}
	if len(acc.Emails) != 1 || acc.Emails[0].Kind != "report_out_of_quota" {
		t.Errorf("emails %+v", acc.Emails)
	}
	var line map[string]any
	for _, l := range logs.lines(t, EventReportFinished) {
		if l["report_id"] == sum.ID {
			line = l
		}
	}
	wantAttrs(t, "out of quota", line, map[string]any{"level": "WARN", "status": "OUT_OF_QUOTA", "balance": 0, "cost": "*", "reason": acc.Failure})
}

// TestReportAccountRoute: GET /_fake/reports/{id} answers the account in its contract's shape,
// and refuses a wrong token (401), a malformed id (400) and an unknown one (404) in the control
// API's error envelope.
func TestReportAccountRoute(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	done := uploadReport(t, srv, seed.APIKey, synthWAV(t, 3))
	failed := uploadReport(t, srv, seed.APIKey, []byte("not audio"))
	mustAdvance(t, srv, 10*time.Second)
	for _, id := range []string{done, failed} {
		path := "/_fake/reports/" + id
		status, _, body := call(t, srv, "GET", path, admin(srv), "") // call checks the contract
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		var got struct {
			Report   struct{ ID, Status string }
			Failure  *string
			Timeline []struct{ Status string }
			Measured *struct {
				DurationS float64 `json:"duration_s"`
			}
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		want, err := srv.ReportAccount(id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Report.ID != id || got.Report.Status != want.Report.Status || len(got.Timeline) != len(want.Timeline) ||
			(got.Failure == nil) != (want.Failure == "") || (got.Measured == nil) != (want.Measured == nil) {
			t.Errorf("%s: %s, want %+v", path, body, want)
		}
		if got.Measured != nil && got.Measured.DurationS != 3 {
			t.Errorf("duration_s %v", got.Measured.DurationS)
		}
	}
	tests := []struct {
		name   string
		path   string
		header http.Header
		status int
		code   string
	}{
		{"wrong token", "/_fake/reports/" + done, bearer("not-the-token"), 401, "invalid_api_key"},
		{"no token", "/_fake/reports/" + done, nil, 401, "invalid_api_key"},
		{"malformed id", "/_fake/reports/nope", admin(srv), 400, "validation_error"},
		{"unknown id", "/_fake/reports/00000000-0000-4000-8000-000000000000", admin(srv), 404, "not_found"},
	}
	for _, tt := range tests {
		status, _, body := call(t, srv, "GET", tt.path, tt.header, "")
		if status != tt.status || errorCode(t, body) != tt.code {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
}

// TestReportAccountLoudnessSeries: an analysed report keeps its short-term loudness once a
// second, as the engine measures it, in at most 16 KiB an hour.
func TestReportAccountLoudnessSeries(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	const seconds = 20
	wav := synthWAV(t, seconds)
	id := uploadReport(t, srv, seed.APIKey, wav)
	mustAdvance(t, srv, 10*time.Second)
	acc, err := srv.ReportAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := audio.Measure(bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	lo := acc.Loudness
	if lo.Step != time.Second || lo.Window != 3*time.Second || len(lo.LUFS) != seconds-2 || len(ref.ShortTerm) != seconds-2 {
		t.Fatalf("series: step %v window %v, %d values (engine: %d)", lo.Step, lo.Window, len(lo.LUFS), len(ref.ShortTerm))
	}
	for i, v := range lo.LUFS {
		want := ref.ShortTerm.LUFS(i)
		if math.IsNaN(want) != math.IsNaN(float64(v)) || (!math.IsNaN(want) && math.Abs(float64(v)-want) > 1e-4) {
			t.Errorf("value %d: %v, the engine measures %v", i, v, want)
		}
	}
	r, ok := srv.core.ReportByID(uuid.MustParse(id))
	if !ok || r.Measurement == nil {
		t.Fatal("no measurement")
	}
	kept := r.Measurement.ShortTermLoudness
	bytesPerHour := float64(cap(kept)) * float64(unsafe.Sizeof(kept[0])) * 3600 / seconds
	t.Logf("kept: %d values in %d bytes for %d s of audio: %.0f bytes an hour", len(kept), cap(kept)*2, seconds, bytesPerHour)
	if bytesPerHour > 16<<10 {
		t.Errorf("the series costs %.0f bytes an hour of audio", bytesPerHour)
	}
	// Seeded reports were never analysed: no series, and nothing made up.
	ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{}})
	if err != nil {
		t.Fatal(err)
	}
	if acc, err := srv.ReportAccount(ids[0]); err != nil || len(acc.Loudness.LUFS) != 0 {
		t.Errorf("seeded report's series: %v %v", acc.Loudness, err)
	}
}
