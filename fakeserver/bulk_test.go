package fakeserver

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestSeedReports checks that seeded reports list newest first by creation, complete at their
// own instants (so out of creation order), and carry a passing verdict and a charge.
func TestSeedReports(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{
		{CompleteAfter: 2 * time.Minute},
		{FileName: "b.wav", CompleteAfter: 0},
		{CompleteAfter: time.Minute, Duration: 30 * time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		ID               string `json:"id"`
		Status           string `json:"status"`
		UpdatedAt        string `json:"updated_at"`
		OriginalFilename string `json:"original_filename"`
	}
	list := func(query string) []item {
		t.Helper()
		status, _, body := call(t, srv, "GET", "/api/rest/v1/reports?limit=100"+query, bearer(seed.APIKey), "")
		var page struct{ Items []item }
		if status != 200 || json.Unmarshal(body, &page) != nil {
			t.Fatalf("list: %d %s", status, body)
		}
		return page.Items
	}
	all := list("")
	if got := []string{all[0].ID, all[1].ID, all[2].ID}; !slices.Equal(got, []string{ids[2], ids[1], ids[0]}) {
		t.Fatalf("order = %v, want newest created first %v", got, ids)
	}
	if all[1].Status != "COMPLETE" || all[0].Status != "IN_PROGRESS" || all[2].Status != "IN_PROGRESS" {
		t.Fatalf("statuses before advancing = %+v", all)
	}
	if all[1].OriginalFilename != "b.wav" || all[0].OriginalFilename != "seeded-3.wav" {
		t.Fatalf("file names = %q, %q", all[1].OriginalFilename, all[0].OriginalFilename)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	done := list("&status=COMPLETE&updated_since=" + "2026-01-05T09:00:30%2B00:00")
	if len(done) != 1 || done[0].ID != ids[2] || done[0].UpdatedAt != "2026-01-05T09:01:00.000000+00:00" {
		t.Fatalf("completed after a minute = %+v, want only %s at 09:01", done, ids[2])
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+ids[2], bearer(seed.APIKey), "")
	var full struct {
		Stats          struct{ Passed *bool }
		CreditsCharged string `json:"credits_charged"`
	}
	if status != 200 || json.Unmarshal(body, &full) != nil {
		t.Fatalf("get: %d %s", status, body)
	}
	if full.Stats.Passed == nil || !*full.Stats.Passed || full.CreditsCharged != "300.00" {
		t.Fatalf("seeded report: passed %v, charged %q; want passing and 300.00 for 30 minutes", full.Stats.Passed, full.CreditsCharged)
	}
}

// TestSeedReportsRefusesBadInput checks that a bad entry refuses the whole call.
func TestSeedReportsRefusesBadInput(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	tests := []struct {
		name      string
		workspace string
		reports   []SeededReport
		code      int
	}{
		{"negative delay", seed.WorkspaceID, []SeededReport{{}, {CompleteAfter: -time.Second}}, 400},
		{"negative duration", seed.WorkspaceID, []SeededReport{{Duration: -time.Minute}}, 400},
		{"too long", seed.WorkspaceID, []SeededReport{{Duration: 25 * time.Hour}}, 400},
		{"unknown workspace", "00000000-0000-4000-8000-000000000000", []SeededReport{{}}, 404},
		{"not a uuid", "ws", []SeededReport{{}}, 404},
	}
	for _, tt := range tests {
		_, err := srv.SeedReports(tt.workspace, tt.reports)
		var e *Error
		if !errors.As(err, &e) || e.Status != tt.code {
			t.Errorf("%s: err = %v, want status %d", tt.name, err, tt.code)
		}
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports", bearer(seed.APIKey), "")
	var page struct{ Items []json.RawMessage }
	if status != 200 || json.Unmarshal(body, &page) != nil || len(page.Items) != 0 {
		t.Fatalf("after refusals the list holds %s", body)
	}
}

// TestSeedReportsOverHTTP: the control call seeds reports that complete as the clock reaches
// them, and refuses a bad batch whole.
func TestSeedReportsOverHTTP(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	path := "/_fake/workspaces/" + seed.WorkspaceID + "/reports"
	tests := []struct {
		name, body string
		status     int
	}{
		{"empty", `{"reports":[]}`, 400},
		{"negative delay", `{"reports":[{"complete_after_s":-1}]}`, 400},
		{"too long", `{"reports":[{"duration_s":100000}]}`, 400},
		{"not JSON", `{"reports":`, 400},
	}
	for _, tt := range tests {
		if status, _, body := call(t, srv, "POST", path, admin(srv), tt.body); status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, status, body, tt.status)
		}
	}
	status, _, body := call(t, srv, "POST", path, admin(srv), `{"reports":[{"complete_after_s":60},{"file_name":"x.wav","duration_s":90}]}`)
	var seeded struct{ IDs []string }
	if status != 201 || json.Unmarshal(body, &seeded) != nil || len(seeded.IDs) != 2 {
		t.Fatalf("seed: %d %s", status, body)
	}
	statusOf := func(id string) string {
		t.Helper()
		_, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
		var r struct{ Status string }
		_ = json.Unmarshal(body, &r)
		return r.Status
	}
	if a, b := statusOf(seeded.IDs[0]), statusOf(seeded.IDs[1]); a != "IN_PROGRESS" || b != "COMPLETE" {
		t.Fatalf("before the clock moves: %s, %s", a, b)
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if a := statusOf(seeded.IDs[0]); a != "COMPLETE" {
		t.Fatalf("after a minute: %s", a)
	}
}
