package core

import (
	"math"
	"time"
)

// MaxPlanCredits bounds a plan's allowance and credits used as the Go API, the control API and
// the fixtures set them: whole credits, so that no value is rounded out of sight
// (fakeserver.MaxPlanCredits).
const MaxPlanCredits = 1_000_000_000

// CheckWholeCredits refuses credits that are not a whole number from 0 to MaxPlanCredits,
// naming the field.
func CheckWholeCredits(name string, v *float64) error {
	if v != nil && (!(*v >= 0 && *v <= MaxPlanCredits) || *v != math.Trunc(*v)) {
		return ErrValidation("%s must be a whole number of credits from 0 to %d.", name, MaxPlanCredits)
	}
	return nil
}

// ChangeCredits is SetCredits of the workspace workspaceID names as it was sent (404 unless
// it is a canonical id of a workspace), its plan figures whole credits: Server.SetCredits and
// PATCH /_fake/workspaces/{id}/credits both.
func (c *Core) ChangeCredits(workspaceID string, allowance, used *float64, charging *bool) (Credits, error) {
	id, ok := CanonicalID(workspaceID)
	if !ok {
		return Credits{}, ErrNotFound("Workspace")
	}
	if err := CheckWholeCredits("plan_allowance", allowance); err != nil {
		return Credits{}, err
	}
	if err := CheckWholeCredits("plan_used", used); err != nil {
		return Credits{}, err
	}
	return c.SetCredits(id, allowance, used, charging)
}

// BuyTopup is AddTopup of the workspace workspaceID names as it was sent (404 unless it is a
// canonical id of a workspace); a zero expiresAt is twelve months after now, and a top-up that
// never expires has none: Server.AddTopup and POST /_fake/workspaces/{id}/topups both.
func (c *Core) BuyTopup(workspaceID string, amount int, expiresAt time.Time, neverExpires bool) (Credits, error) {
	id, ok := CanonicalID(workspaceID)
	if !ok {
		return Credits{}, ErrNotFound("Workspace")
	}
	if neverExpires && !expiresAt.IsZero() {
		return Credits{}, ErrValidation("A top-up that never expires has no expiry time.")
	}
	var at *time.Time
	if !expiresAt.IsZero() {
		at = &expiresAt
	}
	return c.AddTopup(id, amount, at, neverExpires)
}
