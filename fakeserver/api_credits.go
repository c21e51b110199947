package fakeserver

import (
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// CreditsChange changes a workspace's plan figures; nil fields stay as they are.
type CreditsChange struct {
	PlanAllowance   *float64 `json:"plan_allowance,omitempty"`
	PlanUsed        *float64 `json:"plan_used,omitempty"`
	ChargingEnabled *bool    `json:"charging_enabled,omitempty"`
}

// SetCredits changes a workspace's plan allowance, credits used this period, or charging
// switch. Read the result over REST (GET /credits), as a client would.
func (s *Server) SetCredits(workspaceID string, change CreditsChange) (err error) {
	defer apiError(&err)
	_, err = s.setCredits(workspaceID, change)
	return err
}

func (s *Server) setCredits(workspaceID string, change CreditsChange) (core.Credits, error) {
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return core.Credits{}, err
	}
	return s.core.SetCredits(id, change.PlanAllowance, change.PlanUsed, change.ChargingEnabled)
}

// AddTopup buys a top-up of amount credits for a workspace. With expiresAt nil it lasts twelve
// months; with neverExpires it never does.
func (s *Server) AddTopup(workspaceID string, amount int, expiresAt *time.Time, neverExpires bool) (err error) {
	defer apiError(&err)
	_, err = s.addTopup(workspaceID, amount, expiresAt, neverExpires)
	return err
}

func (s *Server) addTopup(workspaceID string, amount int, expiresAt *time.Time, neverExpires bool) (core.Credits, error) {
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return core.Credits{}, err
	}
	return s.core.AddTopup(id, amount, expiresAt, neverExpires)
}
