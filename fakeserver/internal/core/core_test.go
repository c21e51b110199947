package core

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
)

var start = time.Date(2026, 5, 1, 12, 0, 30, 0, time.UTC)

func newCore(t *testing.T) *Core {
	t.Helper()
	return New(clock.NewManual(start), Deps{})
}

func mustWorkspace(t *testing.T, c *Core, typ WorkspaceType, name string) Workspace {
	t.Helper()
	ws, err := c.CreateWorkspace(NewWorkspace{Type: typ, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func mustKey(t *testing.T, c *Core, ws uuid.UUID, legacy bool) (APIKey, string) {
	t.Helper()
	rec, key, err := c.CreateAPIKey(ws, "test", legacy)
	if err != nil {
		t.Fatal(err)
	}
	return rec, key
}

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestCreateWorkspaceValidates(t *testing.T) {
	t.Parallel()
	neg := -1.0
	negInt := -1
	tests := []struct {
		name string
		in   NewWorkspace
	}{
		{"unknown type", NewWorkspace{Type: "team", Name: "x"}},
		{"empty name", NewWorkspace{Type: Personal, Name: "  "}},
		{"negative allowance", NewWorkspace{Type: Personal, Name: "x", PlanAllowance: &neg}},
		{"negative podcast limit", NewWorkspace{Type: Personal, Name: "x", PodcastLimit: &negInt}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCore(t)
			if _, err := c.CreateWorkspace(tt.in); code(err) != CodeValidation {
				t.Fatalf("err = %v, want validation_error", err)
			}
			if len(c.workspaces) != 0 || len(c.accounts) != 0 {
				t.Fatal("a refused workspace changed the state")
			}
		})
	}
}

func TestKeysAreStoredOnlyAsDigests(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	ws := mustWorkspace(t, c, Personal, "Ada Lovelace")
	rec, key := mustKey(t, c, ws.ID, false)
	if !strings.HasPrefix(key, KeyPrefix) || len(key) < len(KeyPrefix)+32 {
		t.Fatalf("key %q lacks the prefix or entropy", key)
	}
	if !strings.HasSuffix(rec.MaskedKey, "…") || strings.Contains(rec.MaskedKey, key[len(KeyPrefix)+6:]) {
		t.Fatalf("masked key %q shows too much of %q", rec.MaskedKey, key)
	}
	stored := c.keys[rec.ID]
	if stored.digest != sha256.Sum256([]byte(key)) {
		t.Fatal("stored digest does not match the key")
	}
	// Nothing in the store holds the key's text.
	for _, k := range c.keys {
		if strings.Contains(k.MaskedKey+k.Description, key) {
			t.Fatal("key text stored")
		}
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	personal := mustWorkspace(t, c, Personal, "Ada Lovelace")
	org := mustWorkspace(t, c, Organisation, "Acme Audio")
	orphan := mustWorkspace(t, c, Organisation, "Orphan Ltd")
	_, personalKey := mustKey(t, c, personal.ID, false)
	_, legacyKey := mustKey(t, c, personal.ID, true)
	_, orgKey := mustKey(t, c, org.ID, false)
	_, orphanKey := mustKey(t, c, orphan.ID, false)
	disabledRec, disabledKey := mustKey(t, c, personal.ID, false)
	if _, err := c.SetKeyDisabled(disabledRec.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveOwners(orphan.ID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		key       string
		workspace uuid.UUID
		wantErr   bool
	}{
		{"personal key", personalKey, personal.ID, false},
		{"legacy key without prefix", legacyKey, personal.ID, false},
		{"organisation key", orgKey, org.ID, false},
		{"missing", "", uuid.Nil, true},
		{"unknown", KeyPrefix + "nope", uuid.Nil, true},
		{"disabled", disabledKey, uuid.Nil, true},
		{"owner-less organisation", orphanKey, uuid.Nil, true},
		{"key with its prefix cut off", strings.TrimPrefix(personalKey, KeyPrefix), uuid.Nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := c.Authenticate(tt.key)
			if tt.wantErr {
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInvalidAPIKey {
					t.Fatalf("err = %v, want 401 invalid_api_key", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Workspace.ID != tt.workspace || p.Key == nil {
				t.Fatalf("principal %+v, want workspace %v", p, tt.workspace)
			}
			if p.Account.ID == uuid.Nil {
				t.Fatal("no acting account")
			}
		})
	}
	// An organisation key acts as one of the organisation's owners.
	p, _ := c.Authenticate(orgKey)
	ws, _ := c.Workspace(org.ID)
	if p.Account.ID != ws.Owners[0] {
		t.Fatalf("org key acts as %v, owners %v", p.Account.ID, ws.Owners)
	}
}

func TestLastUsedAtStampedAtMostOnceAMinute(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	ws := mustWorkspace(t, c, Personal, "Ada")
	rec, key := mustKey(t, c, ws.ID, false)
	if rec.LastUsedAt != nil {
		t.Fatal("a new key has last_used_at")
	}
	steps := []struct {
		advance time.Duration
		want    time.Duration // offset of last_used_at from start
	}{
		{0, 0},
		{30 * time.Second, 0},
		{29 * time.Second, 0},
		{time.Second, time.Minute},
		{5 * time.Minute, 6 * time.Minute},
	}
	for i, s := range steps {
		if _, err := c.Clock().Advance(s.advance); err != nil {
			t.Fatal(err)
		}
		p, err := c.Authenticate(key)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Key.LastUsedAt; got == nil || !got.Equal(start.Add(s.want)) {
			t.Fatalf("step %d: last_used_at = %v, want %v", i, got, start.Add(s.want))
		}
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	personal := mustWorkspace(t, c, Personal, "Ada")
	org := mustWorkspace(t, c, Organisation, "Acme")
	if _, err := c.CreateSession(org.ID); code(err) != CodeValidation {
		t.Fatalf("session for an organisation: %v", err)
	}
	token, err := c.CreateSession(personal.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.AuthenticateSession(token)
	if err != nil || p.Workspace.ID != personal.ID || p.Key != nil {
		t.Fatalf("session principal %+v, %v", p, err)
	}
	if _, err := c.AuthenticateSession("forged"); code(err) != CodeInvalidAPIKey {
		t.Fatalf("forged session: %v", err)
	}
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	c := newCore(t) // clock at hh:00:30
	ws := mustWorkspace(t, c, Personal, "Ada")
	_, key := mustKey(t, c, ws.ID, false)
	_, other := mustKey(t, c, ws.ID, false)
	p, _ := c.Authenticate(key)
	q, _ := c.Authenticate(other)

	for i := range keyRequestsPerMinute {
		if err := c.Admit(p, false); err != nil {
			t.Fatalf("request %d refused: %v", i+1, err)
		}
	}
	err := c.Admit(p, false)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRateLimited || e.RetryAfter != 30 {
		t.Fatalf("101st request: %+v, want 429 with Retry-After 30", err)
	}
	if err := c.Admit(q, false); err != nil {
		t.Fatalf("a second key shares the first key's bucket: %v", err)
	}
	if _, err := c.Clock().Advance(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Admit(p, false); err != nil {
		t.Fatalf("new minute window still refused: %v", err)
	}

	// Writes: 30 an hour, counted apart from the minute window.
	for i := range keyWritesPerHour {
		if i%50 == 49 {
			_, _ = c.Clock().Advance(time.Minute)
		}
		if err := c.Admit(q, true); err != nil {
			t.Fatalf("write %d refused: %v", i+1, err)
		}
	}
	err = c.Admit(q, true)
	if !errors.As(err, &e) || e.Code != CodeRateLimited || !strings.Contains(e.Message, "30 write") {
		t.Fatalf("31st write: %v", err)
	}
	wantWait := int(start.Truncate(time.Hour).Add(time.Hour).Sub(c.Clock().Now()) / time.Second)
	if e.RetryAfter != wantWait {
		t.Fatalf("write Retry-After = %d, want %d", e.RetryAfter, wantWait)
	}
	if err := c.Admit(q, false); err != nil {
		t.Fatalf("a read after the write limit: %v", err)
	}
}

func TestRefusedCredentialsPerAddress(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	for i := range refusedPerFiveMinutes {
		if err := c.RefuseCredentials("192.0.2.1"); code(err) != CodeInvalidAPIKey {
			t.Fatalf("refusal %d: %v", i+1, err)
		}
	}
	err := c.RefuseCredentials("192.0.2.1")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRateLimited || e.RetryAfter != 270 {
		t.Fatalf("21st refusal: %+v, want 429 after 270 s", err)
	}
	if err := c.RefuseCredentials("192.0.2.2"); code(err) != CodeInvalidAPIKey {
		t.Fatalf("another address: %v", err)
	}
	if _, err := c.Clock().Advance(270 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.RefuseCredentials("192.0.2.1"); code(err) != CodeInvalidAPIKey {
		t.Fatalf("after the window: %v", err)
	}
}
