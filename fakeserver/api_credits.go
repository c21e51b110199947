package fakeserver

import (
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// CreditsChange changes a workspace's plan figures; nil fields stay as they are. PlanAllowance
// and PlanUsed are whole credits, from 0 to MaxPlanCredits.
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
	return s.core.ChangeCredits(workspaceID, change.PlanAllowance, change.PlanUsed, change.ChargingEnabled)
}

// MaxPlanCredits bounds a plan's allowance and credits used as the Go API, the control API and
// the fixtures set them: whole credits, so that no value is rounded out of sight.
const MaxPlanCredits = maxFixtureCredits

// TopupSpec describes a top-up of credits bought for a workspace.
type TopupSpec struct {
	// Amount is how many credits the top-up adds, at least 1.
	Amount int
	// ExpiresAt is when the top-up's unused credits expire; zero means twelve months after it
	// is bought, on the fake's clock.
	ExpiresAt time.Time
	// NeverExpires makes the credits last until they are used; ExpiresAt must then be zero.
	NeverExpires bool
}

// AddTopup buys a top-up for a workspace, as the dashboard's billing page does.
func (s *Server) AddTopup(workspaceID string, spec TopupSpec) (err error) {
	defer apiError(&err)
	_, err = s.addTopup(workspaceID, spec)
	return err
}

func (s *Server) addTopup(workspaceID string, spec TopupSpec) (core.Credits, error) {
	return s.core.BuyTopup(workspaceID, spec.Amount, spec.ExpiresAt, spec.NeverExpires)
}
