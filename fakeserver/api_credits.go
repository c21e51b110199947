package fakeserver

import (
	"math"
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
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return core.Credits{}, err
	}
	if err := checkWholeCredits("plan_allowance", change.PlanAllowance); err != nil {
		return core.Credits{}, err
	}
	if err := checkWholeCredits("plan_used", change.PlanUsed); err != nil {
		return core.Credits{}, err
	}
	return s.core.SetCredits(id, change.PlanAllowance, change.PlanUsed, change.ChargingEnabled)
}

// MaxPlanCredits bounds a plan's allowance and credits used as the Go API, the control API and
// the fixtures set them: whole credits, so that no value is rounded out of sight.
const MaxPlanCredits = maxFixtureCredits

// checkWholeCredits refuses credits that are not a whole number from 0 to MaxPlanCredits.
func checkWholeCredits(name string, v *float64) error {
	if v != nil && (!(*v >= 0 && *v <= MaxPlanCredits) || *v != math.Trunc(*v)) {
		return core.ErrValidation("%s must be a whole number of credits from 0 to %d.", name, MaxPlanCredits)
	}
	return nil
}

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
	id, err := parseID(workspaceID, "Workspace")
	if err != nil {
		return core.Credits{}, err
	}
	if spec.NeverExpires && !spec.ExpiresAt.IsZero() {
		return core.Credits{}, core.ErrValidation("A top-up that never expires has no expiry time.")
	}
	var expiresAt *time.Time
	if !spec.ExpiresAt.IsZero() {
		expiresAt = &spec.ExpiresAt
	}
	return s.core.AddTopup(id, spec.Amount, expiresAt, spec.NeverExpires)
}
