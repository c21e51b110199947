package fakeserver

import (
	"log/slog"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// WorkspaceSpec describes a workspace to create. Plan settings left nil take the free plan's:
// 1,200 credits a month and three shows.
type WorkspaceSpec struct {
	// Type is "personal" or "organisation".
	Type string `json:"type"`
	Name string `json:"name"`
	// PlanAllowance is whole credits, from 0 to MaxPlanCredits.
	PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
	PodcastLimit    *int     `json:"podcast_limit,omitempty"`
	ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
}

// Workspace identifies a created workspace.
type Workspace struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// APIKey is a minted key: Key is its only copy.
type APIKey struct {
	ID        string `json:"id"`
	Key       string `json:"key"`
	MaskedKey string `json:"masked_key"`
}

// CreateWorkspace adds a workspace, as a person signing up (or founding an organisation) would.
// An organisation gets one owner account.
func (s *Server) CreateWorkspace(spec WorkspaceSpec) (_ Workspace, err error) {
	defer apiError(&err)
	ws, err := s.core.OpenWorkspace(core.NewWorkspace{
		Type:            core.WorkspaceType(spec.Type),
		Name:            spec.Name,
		PlanAllowance:   spec.PlanAllowance,
		PodcastLimit:    spec.PodcastLimit,
		ChargingEnabled: spec.ChargingEnabled,
	})
	if err != nil {
		return Workspace{}, err
	}
	s.workspaceCreated(ws)
	return workspaceOf(ws), nil
}

// workspaceCreated raises the event of a workspace the Go API or the control API made.
func (s *Server) workspaceCreated(ws core.Workspace) {
	s.events.raise(s.clock.Now(), slog.LevelInfo, EventWorkspaceCreated, "workspace created", ws.ID.String(), "", slog.String("type", string(ws.Type)))
}

func workspaceOf(ws core.Workspace) Workspace {
	return Workspace{ID: ws.ID.String(), Type: string(ws.Type), Name: ws.Name}
}

// CreateAPIKey mints a key for a workspace, as Settings, Developers, API Keys does.
func (s *Server) CreateAPIKey(workspaceID, description string) (_ APIKey, err error) {
	defer apiError(&err)
	return s.createAPIKey(workspaceID, description, false)
}

// CreateLegacyAPIKey mints a key without the podqa_api_ prefix, like keys made before the prefix
// existed; the service still accepts them.
func (s *Server) CreateLegacyAPIKey(workspaceID, description string) (_ APIKey, err error) {
	defer apiError(&err)
	return s.createAPIKey(workspaceID, description, true)
}

func (s *Server) createAPIKey(workspaceID, description string, legacy bool) (APIKey, error) {
	rec, key, err := s.core.MintAPIKey(workspaceID, description, legacy)
	if err != nil {
		return APIKey{}, err
	}
	return APIKey{ID: rec.ID.String(), Key: key, MaskedKey: rec.MaskedKey}, nil
}

// SetAPIKeyDisabled disables a key (every use then answers 401 invalid_api_key) or enables it
// again.
func (s *Server) SetAPIKeyDisabled(keyID string, disabled bool) (err error) {
	defer apiError(&err)
	_, err = s.core.SwitchAPIKey(keyID, disabled)
	return err
}

// RemoveOwners leaves an organisation with no owner, so every one of its keys answers 401.
func (s *Server) RemoveOwners(workspaceID string) (err error) {
	defer apiError(&err)
	return s.core.DropOwners(workspaceID)
}

// CreateSession logs the user of a personal workspace in and returns the value of the sessionid
// cookie, which works for reads only.
func (s *Server) CreateSession(workspaceID string) (_ string, err error) {
	defer apiError(&err)
	return s.core.LogIn(workspaceID)
}

// parseID reads an id argument by the id rule (core.ParseID): any other text, an id in another
// spelling among it, names nothing, and what it was to name is not found.
func parseID(s, what string) (uuid.UUID, error) { return core.ParseID(s, what) }
