// Package core is the fake's domain: workspaces, accounts, API keys, series, reports, credits,
// uploads, standards and webhooks. REST, GraphQL, the webhook subscription endpoints and the
// control API are thin adapters over it; it knows no HTTP.
//
// Concurrency: one RWMutex guards all state. Reads take the read lock; anything that changes state
// takes the write lock for the whole change, so every change is atomic and a refused request
// changes nothing. Scheduled work (analysis steps, feed checks, deliveries) runs from the clock
// without the lock and takes it like any request.
package core

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
)

// KeyPrefix begins every API key the fake mints, as on the service.
const KeyPrefix = "podqa_api_"

// WorkspaceType tells a personal workspace from an organisation.
type WorkspaceType string

// The two kinds of workspace.
const (
	Personal     WorkspaceType = "personal"
	Organisation WorkspaceType = "organisation"
)

// Account is a person's user account. Keys act as an account.
type Account struct {
	ID        uuid.UUID
	Email     string
	FirstName string
	LastName  string
	// Personal is the account's own personal workspace.
	Personal uuid.UUID
}

// Workspace is a personal workspace or an organisation.
type Workspace struct {
	ID   uuid.UUID
	Type WorkspaceType
	Name string
	// Owners are the accounts that own an organisation (for a personal workspace, its user).
	// The core never writes into the slice, it only replaces it, so copies may share it.
	Owners []uuid.UUID
	Plan   Plan
	// seq orders workspaces by creation (see AllWorkspaces).
	seq uint64
}

// Plan is a workspace's subscription: its monthly credit allowance and caps.
type Plan struct {
	Name string
	// Allowance is the credits granted each plan period.
	Allowance float64
	// PodcastLimit is how many shows the workspace may hold.
	PodcastLimit int
	// ChargingEnabled false works out costs but deducts nothing and refuses nothing.
	ChargingEnabled bool
	// Free marks the free tier's allowance (no subscription).
	Free bool
}

// FreePlan is the plan a workspace gets when the control API names none: 1,200 credits a month
// (two hours of audio) and three shows.
func FreePlan() Plan {
	return Plan{Name: "Free", Allowance: 1200, PodcastLimit: 3, ChargingEnabled: true, Free: true}
}

// APIKey is a stored key record. The key itself is never stored: only its SHA-256 digest, which
// is enough for keys of 190 random bits and useless to whoever reads a leaked store.
//
// A stored *APIKey is never written: a change stores a changed copy, so that a Principal can
// share the record without copying it.
type APIKey struct {
	ID          uuid.UUID
	Workspace   uuid.UUID
	Description string
	MaskedKey   string
	CreatedAt   time.Time
	LastUsedAt  *time.Time
	Disabled    bool
	digest      [sha256.Size]byte
}

// Principal is who a request acts as once its credentials are accepted.
type Principal struct {
	Workspace Workspace
	// Account is the account the credential acts as: the key's personal user, or one of an
	// organisation's owners.
	Account Account
	// Key is the key used, or nil for a browser session.
	Key *APIKey
	// gen is the generation of the state the principal was admitted against; session is the
	// digest of the browser session it presented. An operation of a principal admitted before
	// a reset resolves them again in the new state (see principalLocked).
	gen     uint64
	session [sha256.Size]byte
}

// Core holds the fake's whole state.
type Core struct {
	clock *clock.Clock
	deps  Deps
	// standards are the built-in standards, the process's shared table: read, never written.
	standards []Standard
	stds      standardState

	// rand mints every id, key, token and secret (Deps.Rand, or a random source).
	rand *seeded.Source
	// gen counts resets; work that outlives one checks it (see Reset).
	gen uint64

	mu         sync.RWMutex
	accounts   map[uuid.UUID]*Account
	workspaces map[uuid.UUID]*Workspace
	// wsOrder holds the workspaces in creation order (by seq), for listings by cursor.
	wsOrder    []*Workspace
	keys       map[uuid.UUID]*APIKey
	keyDigests map[[sha256.Size]byte]uuid.UUID
	sessions   map[[sha256.Size]byte]uuid.UUID // session digest -> account

	limits limiter

	// workspaceSeq numbers workspaces in creation order; it never goes back, resets included.
	workspaceSeq uint64

	catalogs  map[uuid.UUID]*catalog // workspace -> its shows
	series    map[uuid.UUID]*Series
	episodes  map[uuid.UUID]*Episode
	reports   map[uuid.UUID]*Report
	reportIdx map[uuid.UUID]*reportIndex // workspace -> its reports, by creation and by update
	reportSeq uint64
	// listVisits counts the reports the listings' walks read (tests bound it per page).
	listVisits   atomic.Uint64
	ledgers      map[uuid.UUID]*ledger
	reservations map[uuid.UUID]*Reservation
	// held counts the uploaded bytes kept in memory (reservations' audio, reports' audio
	// not measured yet and uploads being read), against heldBudget.
	held, heldBudget int64
	// claimed counts the bytes of uploads being read (claimed, neither stored nor released),
	// whichever generation claimed them: a reset keeps them in held.
	claimed int64
	// heldBy and claimedBy are held and claimed by workspace; heldShare bounds each workspace's.
	heldBy, claimedBy map[uuid.UUID]int64
	heldShare         int64
	// uploadNow is the clock an upload's pace is counted on: the wall clock's time.Now, since
	// the pace is the client's on a real socket; tests give their own.
	uploadNow func() time.Time

	wh webhookState // webhook endpoints, deliveries, emails and the feed checker

	notices notices // what the observer is yet to hear (notices.go)

	analyses *analysisPool // measurements of a real clock, off its goroutine

	// inflight is the current state's webhook attempts off the clock's goroutine; a reset
	// replaces it and ends the old one's (inflight.go).
	inflight *inflight
}

// Option configures a Core.
type Option func(*Core)

// WithoutRateLimits turns the service's rate limits off, for load tests against the fake:
// credentials are still resolved and refused, but nothing is counted.
func WithoutRateLimits() Option { return func(c *Core) { c.limits.off = true } }

// New returns an empty core on clock c, reaching the world through deps.
func New(c *clock.Clock, deps Deps, opts ...Option) *Core {
	src := deps.Rand
	if src == nil {
		src = seeded.Random()
	}
	core := &Core{
		clock:     c,
		deps:      deps,
		rand:      src,
		analyses:  newAnalysisPool(),
		standards: builtinStandards(),
		// heldBudget outlives a reset, like the pool: it is the fake's configuration.
		heldBudget: DefaultUploadBudget,
		inflight:   newInflight(),
		heldShare:  DefaultUploadShare,
		claimedBy:  map[uuid.UUID]int64{},
		uploadNow:  time.Now,
	}
	for _, o := range opts {
		o(core)
	}
	core.initStateLocked()
	return core
}

// Clock returns the clock every time rule of the core reads.
func (c *Core) Clock() *clock.Clock { return c.clock }

// NewWorkspace is what CreateWorkspace needs.
type NewWorkspace struct {
	Type WorkspaceType
	Name string
	// Plan settings left nil take FreePlan's; any given makes the plan a custom one.
	PlanAllowance   *float64
	PodcastLimit    *int
	ChargingEnabled *bool
}

func (in NewWorkspace) plan() (Plan, error) {
	p := FreePlan()
	if in.PlanAllowance != nil {
		if *in.PlanAllowance < 0 {
			return Plan{}, ErrValidation("plan_allowance must not be negative.")
		}
		p.Allowance, p.Free, p.Name = *in.PlanAllowance, false, "Custom"
	}
	if in.PodcastLimit != nil {
		if *in.PodcastLimit < 0 {
			return Plan{}, ErrValidation("podcast_limit must not be negative.")
		}
		p.PodcastLimit, p.Free, p.Name = *in.PodcastLimit, false, "Custom"
	}
	if in.ChargingEnabled != nil {
		p.ChargingEnabled = *in.ChargingEnabled
	}
	return p, nil
}

// CreateWorkspace adds a workspace. A personal workspace comes with its user account; an
// organisation comes with one owner account (which has a personal workspace of its own), since an
// organisation without an owner cannot be used.
func (c *Core) CreateWorkspace(in NewWorkspace) (Workspace, error) {
	if in.Type != Personal && in.Type != Organisation {
		return Workspace{}, ErrValidation("type must be %q or %q.", Personal, Organisation)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return Workspace{}, ErrValidation("name is required.")
	}
	plan, err := in.plan()
	if err != nil {
		return Workspace{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if in.Type == Personal {
		acct := c.newAccountLocked(name)
		ws := c.workspaces[acct.Personal]
		ws.Plan = plan
		return cloneWorkspace(ws), nil
	}
	owner := c.newAccountLocked("Owner of " + name)
	c.workspaceSeq++
	ws := &Workspace{ID: c.rand.UUID(), Type: Organisation, Name: name, Owners: []uuid.UUID{owner.ID}, Plan: plan, seq: c.workspaceSeq}
	c.workspaces[ws.ID] = ws
	c.wsOrder = append(c.wsOrder, ws)
	return cloneWorkspace(ws), nil
}

func (c *Core) newAccountLocked(display string) *Account {
	id := c.rand.UUID()
	first, last, _ := strings.Cut(display, " ")
	acct := &Account{
		ID:        id,
		Email:     "user-" + id.String()[:8] + "@example.test",
		FirstName: first,
		LastName:  last,
		// The service names a personal workspace by its user's id.
		Personal: id,
	}
	c.accounts[id] = acct
	c.workspaceSeq++
	ws := &Workspace{ID: acct.Personal, Type: Personal, Name: display, Owners: []uuid.UUID{id}, Plan: FreePlan(), seq: c.workspaceSeq}
	c.workspaces[acct.Personal] = ws
	c.wsOrder = append(c.wsOrder, ws)
	return acct
}

// Workspace returns the workspace with id.
func (c *Core) Workspace(id uuid.UUID) (Workspace, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ws, ok := c.workspaces[id]
	if !ok {
		return Workspace{}, ErrNotFound("Workspace")
	}
	return cloneWorkspace(ws), nil
}

// RemoveOwners leaves an organisation with no owner, so that every key of it is refused.
func (c *Core) RemoveOwners(id uuid.UUID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ws, ok := c.workspaces[id]
	if !ok {
		return ErrNotFound("Workspace")
	}
	if ws.Type != Organisation {
		return ErrValidation("only an organisation's owners can be removed; a personal workspace always has its user.")
	}
	ws.Owners = nil
	return nil
}

// CreateAPIKey mints a key for a workspace and returns its record and the key itself, which is
// shown once and never stored. A legacy key has no prefix, like keys made before the prefix
// existed.
func (c *Core) CreateAPIKey(workspace uuid.UUID, description string, legacy bool) (APIKey, string, error) {
	secret := c.rand.Token(24)
	key := KeyPrefix + secret
	if legacy {
		key = secret
	}
	rec, err := c.AddAPIKey(workspace, description, key)
	return rec, key, err
}

// AddAPIKey stores a key whose text the caller chose (fixtures do); a key already in use is a
// conflict.
func (c *Core) AddAPIKey(workspace uuid.UUID, description, key string) (APIKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.workspaces[workspace]; !ok {
		return APIKey{}, ErrNotFound("Workspace")
	}
	digest := sha256.Sum256([]byte(key))
	if _, taken := c.keyDigests[digest]; taken {
		return APIKey{}, errorf(CodeConflict, "This key is already in use.")
	}
	rec := &APIKey{
		ID:          c.rand.UUID(),
		Workspace:   workspace,
		Description: description,
		MaskedKey:   maskKey(key),
		CreatedAt:   c.clock.Now(),
		digest:      digest,
	}
	c.keys[rec.ID] = rec
	c.keyDigests[rec.digest] = rec.ID
	return *rec, nil
}

// SetKeyDisabled disables or re-enables a key.
func (c *Core) SetKeyDisabled(id uuid.UUID, disabled bool) (APIKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[id]
	if !ok {
		return APIKey{}, ErrNotFound("API key")
	}
	changed := *k // a new record: a principal may hold the old one (see APIKey)
	changed.Disabled = disabled
	c.keys[id] = &changed
	return changed, nil
}

// lastUsedGranularity is how often last_used_at is stamped at most.
const lastUsedGranularity = time.Minute

// Authenticate resolves a bearer key, stamping its last_used_at at most once a minute. A
// refusal is a *CredentialRefusal (unknown, disabled, malformed, owner-less organisation) that
// unwraps to ErrInvalidAPIKey.
func (c *Core) Authenticate(key string) (Principal, error) {
	p, refusal := c.authenticateKey(key)
	if refusal != nil {
		return Principal{}, refusal
	}
	return p, nil
}

func (c *Core) authenticateKey(key string) (Principal, *CredentialRefusal) {
	if key == "" {
		return Principal{}, &CredentialRefusal{Reason: RefusalMalformed}
	}
	// A key's bytes on the stack: []byte(key) would copy a key longer than 32 bytes to the heap.
	var buf [128]byte
	digest := sha256.Sum256(append(buf[:0], key...))
	now := c.clock.Now()

	c.mu.RLock()
	p, stamp, refusal := c.resolveKeyLocked(digest, now)
	c.mu.RUnlock()
	if refusal != nil {
		refusal.MaskedKey = maskKey(key)
		return Principal{}, refusal
	}
	if !stamp {
		return p, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := c.keys[p.Key.ID]; k != nil && (k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= lastUsedGranularity) {
		used := now   // its own variable, so that now is not moved to the heap on every call
		stamped := *k // a new record: a principal may hold the old one (see APIKey)
		stamped.LastUsedAt = &used
		c.keys[stamped.ID] = &stamped
		p.Key = &stamped
	}
	return p, nil
}

func (c *Core) resolveKeyLocked(digest [sha256.Size]byte, now time.Time) (Principal, bool, *CredentialRefusal) {
	id, ok := c.keyDigests[digest]
	if !ok {
		return Principal{}, false, &CredentialRefusal{Reason: RefusalUnknownKey}
	}
	k := c.keys[id]
	if k.Disabled {
		return Principal{}, false, &CredentialRefusal{Reason: RefusalDisabledKey, KeyID: k.ID}
	}
	ws := c.workspaces[k.Workspace]
	acct, ok := c.actingAccountLocked(ws)
	if !ok {
		return Principal{}, false, &CredentialRefusal{Reason: RefusalOwnerless, KeyID: k.ID}
	}
	stamp := k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= lastUsedGranularity
	// The principal shares the key's record and the workspace's owners: neither is ever written
	// once stored, so a request's principal costs no allocation.
	return Principal{Workspace: *ws, Account: *acct, Key: k, gen: c.gen}, stamp, nil
}

// actingAccountLocked picks the account a workspace's keys act as: its user, or an organisation's
// first owner (the service picks an arbitrary one).
func (c *Core) actingAccountLocked(ws *Workspace) (*Account, bool) {
	if len(ws.Owners) == 0 {
		return nil, false
	}
	acct, ok := c.accounts[ws.Owners[0]]
	return acct, ok
}

// CreateSession opens a browser session for the user of a personal workspace and returns the
// value of its sessionid cookie.
func (c *Core) CreateSession(personal uuid.UUID) (string, error) {
	token := c.rand.Token(24)
	c.mu.Lock()
	defer c.mu.Unlock()
	ws, ok := c.workspaces[personal]
	if !ok {
		return "", ErrNotFound("Workspace")
	}
	if ws.Type != Personal {
		return "", ErrValidation("a browser session belongs to a person: name a personal workspace.")
	}
	c.sessions[sha256.Sum256([]byte(token))] = ws.Owners[0]
	return token, nil
}

// AuthenticateSession resolves a sessionid cookie to its user's personal workspace. A refusal
// is a *CredentialRefusal that unwraps to ErrInvalidAPIKey.
func (c *Core) AuthenticateSession(token string) (Principal, error) {
	p, refusal := c.authenticateSession(token)
	if refusal != nil {
		return Principal{}, refusal
	}
	return p, nil
}

func (c *Core) authenticateSession(token string) (Principal, *CredentialRefusal) {
	if token == "" {
		return Principal{}, &CredentialRefusal{Reason: RefusalMalformed, Session: true}
	}
	digest := sha256.Sum256([]byte(token))
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.resolveSessionLocked(digest)
}

func (c *Core) resolveSessionLocked(digest [sha256.Size]byte) (Principal, *CredentialRefusal) {
	acctID, ok := c.sessions[digest]
	if !ok {
		return Principal{}, &CredentialRefusal{Reason: RefusalUnknownSession, Session: true}
	}
	acct := c.accounts[acctID]
	return Principal{Workspace: cloneWorkspace(c.workspaces[acct.Personal]), Account: *acct, gen: c.gen, session: digest}, nil
}

// maskKey keeps enough of the key's start to tell keys apart and far too little to use one.
func maskKey(key string) string {
	const shown = 6
	head := key
	if rest, ok := strings.CutPrefix(key, KeyPrefix); ok {
		head = KeyPrefix + rest[:min(shown, len(rest))]
	} else {
		head = key[:min(shown, len(key))]
	}
	return head + "…"
}

func cloneWorkspace(ws *Workspace) Workspace {
	out := *ws
	out.Owners = slices.Clone(ws.Owners)
	return out
}
