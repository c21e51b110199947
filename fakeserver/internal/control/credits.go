package control

import (
	"encoding/json"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
	"github.com/podqa/podqa-go/internal/apitime"
)

// ServePatchCredits is PATCH /_fake/workspaces/{id}/credits: Server.SetCredits over HTTP
// (core.ChangeCredits), answering the workspace's credits.
func (a *API) ServePatchCredits(w http.ResponseWriter, r *http.Request) {
	// fakeserver.CreditsChange as sent.
	var change struct {
		PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
		PlanUsed        *float64 `json:"plan_used,omitempty"`
		ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
	}
	if !httpmw.DecodeBody(w, r, &change) {
		return
	}
	cr, err := a.core.ChangeCredits(httpmw.PathID(r, "id"), change.PlanAllowance, change.PlanUsed, change.ChargingEnabled)
	httpmw.Respond(w, http.StatusOK, views.Credits(cr), err)
}

// ServeAddTopup is POST /_fake/workspaces/{id}/topups: Server.AddTopup over HTTP
// (core.BuyTopup), answering the workspace's credits; expires_at null is a top-up that never
// expires.
func (a *API) ServeAddTopup(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Amount    *int            `json:"amount"`
		ExpiresAt json.RawMessage `json:"expires_at"`
	}
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	if body.Amount == nil {
		httpmw.WriteError(w, core.ErrValidation("amount is required."))
		return
	}
	never := string(body.ExpiresAt) == "null"
	var expiresAt apitime.Time
	if len(body.ExpiresAt) > 0 && !never {
		if err := json.Unmarshal(body.ExpiresAt, &expiresAt); err != nil {
			httpmw.WriteError(w, core.ErrValidation("expires_at must be a date-time or null."))
			return
		}
	}
	cr, err := a.core.BuyTopup(httpmw.PathID(r, "id"), *body.Amount, expiresAt.Time, never)
	httpmw.Respond(w, http.StatusCreated, views.Credits(cr), err)
}
