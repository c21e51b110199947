package fakeserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

type creditsAnswer struct {
	Balance        float64 `json:"balance"`
	PlanAllowance  float64 `json:"plan_allowance"`
	PlanUsed       float64 `json:"plan_used"`
	PlanRemaining  float64 `json:"plan_remaining"`
	TopupBalance   float64 `json:"topup_balance"`
	TopupExpiresAt *string `json:"topup_expires_at"`
	TopupLots      []struct {
		AmountRemaining int     `json:"amount_remaining"`
		ExpiresAt       *string `json:"expires_at"`
	} `json:"topup_lots"`
	FreeAllowance   bool    `json:"free_allowance"`
	Progress        float64 `json:"progress"`
	FinishDate      string  `json:"finish_date"`
	ChargingEnabled bool    `json:"charging_enabled"`
}

func TestCreditsThroughRESTAndControl(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t) // clock at 2026-01-05T09:00Z
	get := func() creditsAnswer {
		t.Helper()
		status, _, body := call(t, srv, "GET", "/api/rest/v1/credits", bearer(seed.APIKey), "")
		var cr creditsAnswer
		if status != http.StatusOK || json.Unmarshal(body, &cr) != nil {
			t.Fatalf("credits: %d %s", status, body)
		}
		return cr
	}
	cr := get()
	if cr.Balance != 12000 || cr.PlanRemaining != 12000 || cr.FreeAllowance || cr.Progress != 0 ||
		cr.FinishDate != "2026-02-01T00:00:00.000000+00:00" || cr.TopupExpiresAt != nil || cr.TopupLots == nil || len(cr.TopupLots) != 0 || !cr.ChargingEnabled {
		t.Fatalf("seeded credits %+v", cr)
	}
	steps := []struct {
		method, path, body string
		want               int
	}{
		{"PATCH", "/credits", `{"plan_allowance":1000,"plan_used":250}`, 200},
		{"POST", "/topups", `{"amount":300,"expires_at":"2026-03-01T00:00:00Z"}`, 201},
		{"POST", "/topups", `{"amount":40,"expires_at":null}`, 201},
		{"POST", "/topups", `{"amount":60}`, 201},
		{"POST", "/topups", `{"amount":0}`, 400},
		{"POST", "/topups", `{}`, 400},
		{"POST", "/topups", `{"amount":5,"expires_at":"soon"}`, 400},
		{"PATCH", "/credits", `{"plan_used":-1}`, 400},
	}
	for _, s := range steps {
		status, _, body := call(t, srv, s.method, "/_fake/workspaces/"+seed.WorkspaceID+s.path, admin(srv), s.body)
		if status != s.want {
			t.Fatalf("%s %s %s: %d %s", s.method, s.path, s.body, status, body)
		}
	}
	cr = get()
	if cr.PlanAllowance != 1000 || cr.PlanUsed != 250 || cr.PlanRemaining != 750 || cr.TopupBalance != 400 || cr.Balance != 1150 {
		t.Fatalf("after changes %+v", cr)
	}
	if want := 250.0 / 1400; cr.Progress != want {
		t.Fatalf("progress %v, want %v", cr.Progress, want)
	}
	if len(cr.TopupLots) != 3 || cr.TopupLots[0].AmountRemaining != 300 || *cr.TopupLots[1].ExpiresAt != "2027-01-05T09:00:00.000000+00:00" || cr.TopupLots[2].ExpiresAt != nil {
		t.Fatalf("lots soonest first, never-expiring last: %+v", cr.TopupLots)
	}
	if *cr.TopupExpiresAt != "2026-03-01T00:00:00.000000+00:00" {
		t.Fatalf("topup_expires_at %v", *cr.TopupExpiresAt)
	}
	// The March top-up lapses.
	if _, err := srv.Advance(60 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if cr = get(); cr.TopupBalance != 100 || len(cr.TopupLots) != 2 || cr.PlanUsed != 0 {
		t.Fatalf("after two months %+v", cr)
	}
}

func TestEmptyWorkspaceListings(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	for _, path := range []string{"/api/rest/v1/series", "/api/rest/v1/reports?limit=7&offset=3"} {
		status, _, body := call(t, srv, "GET", path, bearer(seed.APIKey), "")
		var page struct {
			Items   []any `json:"items"`
			Limit   int   `json:"limit"`
			Offset  int   `json:"offset"`
			HasMore bool  `json:"has_more"`
		}
		if status != 200 || json.Unmarshal(body, &page) != nil || page.Items == nil || len(page.Items) != 0 || page.HasMore {
			t.Fatalf("%s: %d %s", path, status, body)
		}
	}
	const unknown = "0b0e3c4e-1111-4000-8000-000000000000"
	for _, path := range []string{"/api/rest/v1/reports/" + unknown, "/api/rest/v1/reports/" + unknown + "/transcript", "/api/rest/v1/series/" + unknown, "/api/rest/v1/series/" + unknown + "/episodes"} {
		status, _, body := call(t, srv, "GET", path, bearer(seed.APIKey), "")
		if status != 404 || errorCode(t, body) != "not_found" {
			t.Fatalf("%s: %d %s", path, status, body)
		}
	}
}
