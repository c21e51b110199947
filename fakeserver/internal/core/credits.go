package core

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Credit rules: 10 credits per started audio minute, with the price of ten minutes at least.
const (
	creditsPerMinute = 10
	minimumCharge    = 100
)

// CostOf is the charge for audio of duration d.
func CostOf(d time.Duration) int {
	minutes := int(math.Ceil(d.Minutes()))
	return max(minutes*creditsPerMinute, minimumCharge)
}

// topupExpiry is how long a purchased top-up lasts.
const topupExpiry = 12 // months

type topup struct {
	remaining int
	expiresAt *time.Time
}

// ledger is a workspace's credits: the plan lot of the current period and top-ups.
type ledger struct {
	periodEnd time.Time
	planUsed  float64
	topups    []*topup
}

// periodEndAfter is the end of the plan period holding now: plans renew on the first of each
// month, UTC.
func periodEndAfter(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

func (c *Core) ledgerLocked(ws uuid.UUID, now time.Time) *ledger {
	l := c.ledgers[ws]
	if l == nil {
		l = &ledger{periodEnd: periodEndAfter(now)}
		c.ledgers[ws] = l
	}
	if !now.Before(l.periodEnd) {
		l.periodEnd, l.planUsed = periodEndAfter(now), 0
	}
	return l
}

func (l *ledger) liveTopups(now time.Time) []*topup {
	var live []*topup
	for _, t := range l.topups {
		if t.remaining > 0 && (t.expiresAt == nil || now.Before(*t.expiresAt)) {
			live = append(live, t)
		}
	}
	// Soonest-expiring first; a top-up that never expires comes last.
	slices.SortStableFunc(live, func(a, b *topup) int {
		switch {
		case a.expiresAt == nil && b.expiresAt == nil:
			return 0
		case a.expiresAt == nil:
			return 1
		case b.expiresAt == nil:
			return -1
		}
		return a.expiresAt.Compare(*b.expiresAt)
	})
	return live
}

// Credits is the REST credits object.
type Credits struct {
	Balance, PlanAllowance, PlanUsed, PlanRemaining, TopupBalance float64
	TopupExpiresAt                                                *time.Time
	TopupLots                                                     []TopupLot
	FreeAllowance                                                 bool
	Progress                                                      float64
	FinishDate                                                    time.Time
	ChargingEnabled                                               bool
}

// TopupLot is one top-up in the credits object.
type TopupLot struct {
	AmountRemaining int
	ExpiresAt       *time.Time
}

func (c *Core) creditsLocked(ws *Workspace, now time.Time) Credits {
	l := c.ledgerLocked(ws.ID, now)
	cr := Credits{
		PlanAllowance:   ws.Plan.Allowance,
		PlanUsed:        l.planUsed,
		PlanRemaining:   math.Max(ws.Plan.Allowance-l.planUsed, 0),
		FreeAllowance:   ws.Plan.Free,
		FinishDate:      l.periodEnd,
		ChargingEnabled: ws.Plan.ChargingEnabled,
		TopupLots:       []TopupLot{},
	}
	for _, t := range l.liveTopups(now) {
		cr.TopupBalance += float64(t.remaining)
		cr.TopupLots = append(cr.TopupLots, TopupLot{AmountRemaining: t.remaining, ExpiresAt: t.expiresAt})
		if t.expiresAt != nil && (cr.TopupExpiresAt == nil || t.expiresAt.Before(*cr.TopupExpiresAt)) {
			cr.TopupExpiresAt = t.expiresAt
		}
	}
	cr.Balance = cr.PlanRemaining + cr.TopupBalance
	cr.Progress = 1
	if cr.Balance > 0 {
		cr.Progress = cr.PlanUsed / (cr.PlanUsed + cr.Balance)
	}
	return cr
}

// Credits returns a workspace's credits.
func (c *Core) Credits(ws uuid.UUID) (Credits, error) {
	c.mu.Lock() // the ledger may roll into a new period
	defer c.mu.Unlock()
	now := c.clock.Now() // under the lock, so a reset cannot fall between
	w, ok := c.workspaces[ws]
	if !ok {
		return Credits{}, ErrNotFound("Workspace")
	}
	return c.creditsLocked(w, now), nil
}

// CreditsFor returns the credits of the workspace p acts in, as the state of the moment
// admits p (see principalLocked).
func (c *Core) CreditsFor(p Principal) (Credits, error) {
	c.mu.Lock() // the ledger may roll into a new period
	defer c.mu.Unlock()
	now := c.clock.Now()
	_, ws, err := c.principalLocked(p, now)
	if err != nil {
		return Credits{}, err
	}
	return c.creditsLocked(ws, now), nil
}

// requireCreditsLocked refuses work costing need credits when the workspace cannot pay: with
// charging enabled, the balance must cover need.
func (c *Core) requireCreditsLocked(ws *Workspace, need int, now time.Time) error {
	if !ws.Plan.ChargingEnabled {
		return nil
	}
	if bal := c.creditsLocked(ws, now).Balance; bal < float64(need) {
		return errorf(CodeInsufficientCredits,
			"This needs %d credits and the workspace has %s; top up or wait for the plan to renew.", need, formatCredits(bal))
	}
	return nil
}

// chargeLocked deducts cost from the soonest-expiring lots first (the plan lot expires at the
// period's end). A shortfall at completion is not carried as debt. It returns what was charged.
func (c *Core) chargeLocked(ws *Workspace, cost int, now time.Time) int {
	if !ws.Plan.ChargingEnabled {
		return cost
	}
	l := c.ledgerLocked(ws.ID, now)
	left := float64(cost)
	planLeft := math.Max(ws.Plan.Allowance-l.planUsed, 0)
	takePlan := func() {
		n := math.Min(left, planLeft)
		l.planUsed += n
		left -= n
	}
	planTaken := false
	for _, t := range l.liveTopups(now) {
		if !planTaken && (t.expiresAt == nil || l.periodEnd.Before(*t.expiresAt) || l.periodEnd.Equal(*t.expiresAt)) {
			takePlan()
			planTaken = true
		}
		n := int(math.Min(left, float64(t.remaining)))
		t.remaining -= n
		left -= float64(n)
	}
	if !planTaken {
		takePlan()
	}
	return cost
}

func formatCredits(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// SetCredits changes a workspace's plan allowance, plan used and charging switch.
func (c *Core) SetCredits(ws uuid.UUID, allowance, used *float64, charging *bool) (Credits, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	w, ok := c.workspaces[ws]
	if !ok {
		return Credits{}, ErrNotFound("Workspace")
	}
	if (allowance != nil && *allowance < 0) || (used != nil && *used < 0) {
		return Credits{}, ErrValidation("plan_allowance and plan_used must not be negative.")
	}
	l := c.ledgerLocked(ws, now)
	if allowance != nil {
		w.Plan.Allowance, w.Plan.Free = *allowance, false
	}
	if used != nil {
		l.planUsed = *used
	}
	if charging != nil {
		w.Plan.ChargingEnabled = *charging
	}
	return c.creditsLocked(w, now), nil
}

// AddTopup buys a top-up lot; without an expiry given it lasts twelve months from now, and an
// explicit null expiry never expires.
func (c *Core) AddTopup(ws uuid.UUID, amount int, expiresAt *time.Time, neverExpires bool) (Credits, error) {
	if amount <= 0 {
		return Credits{}, ErrValidation("amount must be a positive whole number of credits.")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	w, ok := c.workspaces[ws]
	if !ok {
		return Credits{}, ErrNotFound("Workspace")
	}
	t := &topup{remaining: amount}
	switch {
	case neverExpires:
	case expiresAt != nil:
		e := expiresAt.UTC()
		t.expiresAt = &e
	default:
		e := now.AddDate(0, topupExpiry, 0)
		t.expiresAt = &e
	}
	l := c.ledgerLocked(ws, now)
	l.topups = append(l.topups, t)
	return c.creditsLocked(w, now), nil
}
