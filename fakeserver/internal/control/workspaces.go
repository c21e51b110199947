package control

import (
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// The workspaces, keys and sessions of the control API: each call a thin adapter of the core's
// operation (core.OpenWorkspace, MintAPIKey, LogIn, DropOwners, SwitchAPIKey), which the Go API's
// methods (fakeserver's api_workspaces.go) adapt too.

// workspaceJSON is a workspace as the control API shows it (fakeserver.Workspace).
type workspaceJSON struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

func workspaceJSONOf(ws core.Workspace) workspaceJSON {
	return workspaceJSON{ID: ws.ID.String(), Type: string(ws.Type), Name: ws.Name}
}

// ServeCreateWorkspace is POST /_fake/workspaces: Server.CreateWorkspace over HTTP, answering
// 201 with the workspace.
func (a *API) ServeCreateWorkspace(w http.ResponseWriter, r *http.Request) {
	// fakeserver.WorkspaceSpec as sent.
	var spec struct {
		Type            string   `json:"type"`
		Name            string   `json:"name"`
		PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
		PodcastLimit    *int     `json:"podcast_limit,omitempty"`
		ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
	}
	if !httpmw.DecodeBody(w, r, &spec) {
		return
	}
	ws, err := a.core.OpenWorkspace(core.NewWorkspace{
		Type: core.WorkspaceType(spec.Type), Name: spec.Name,
		PlanAllowance: spec.PlanAllowance, PodcastLimit: spec.PodcastLimit, ChargingEnabled: spec.ChargingEnabled,
	})
	if err == nil && a.workspaceCreated != nil {
		a.workspaceCreated(ws)
	}
	httpmw.Respond(w, http.StatusCreated, workspaceJSONOf(ws), err)
}

// ServeCreateAPIKey is POST /_fake/workspaces/{id}/api-keys: Server.CreateAPIKey (or, with
// legacy, CreateLegacyAPIKey) over HTTP, answering 201 with the key, its only copy.
func (a *API) ServeCreateAPIKey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Description string `json:"description"`
		// Legacy mints a key without the podqa_api_ prefix.
		Legacy bool `json:"legacy"`
	}
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	rec, key, err := a.core.MintAPIKey(httpmw.PathID(r, "id"), body.Description, body.Legacy)
	// fakeserver.APIKey as the control API shows it.
	out := struct {
		ID        string `json:"id"`
		Key       string `json:"key"`
		MaskedKey string `json:"masked_key"`
	}{Key: key, MaskedKey: rec.MaskedKey}
	if err == nil {
		out.ID = rec.ID.String()
	}
	httpmw.Respond(w, http.StatusCreated, out, err)
}

// ServeCreateSession is POST /_fake/workspaces/{id}/sessions: Server.CreateSession over HTTP,
// answering 201 with the sessionid cookie's value.
func (a *API) ServeCreateSession(w http.ResponseWriter, r *http.Request) {
	token, err := a.core.LogIn(httpmw.PathID(r, "id"))
	httpmw.Respond(w, http.StatusCreated, map[string]string{"sessionid": token}, err)
}

// ServeRemoveOwners is DELETE /_fake/workspaces/{id}/owners: Server.RemoveOwners over HTTP,
// answering 204.
func (a *API) ServeRemoveOwners(w http.ResponseWriter, r *http.Request) {
	if err := a.core.DropOwners(httpmw.PathID(r, "id")); err != nil {
		httpmw.WriteError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ServePatchAPIKey is PATCH /_fake/api-keys/{id}: Server.SetAPIKeyDisabled over HTTP, answering
// what the key now is.
func (a *API) ServePatchAPIKey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Disabled *bool `json:"disabled"`
	}
	if !httpmw.DecodeBody(w, r, &body) {
		return
	}
	if body.Disabled == nil {
		httpmw.WriteError(w, core.ErrValidation("disabled is required."))
		return
	}
	_, err := a.core.SwitchAPIKey(httpmw.PathID(r, "id"), *body.Disabled)
	httpmw.Respond(w, http.StatusOK, map[string]bool{"disabled": *body.Disabled}, err)
}
