package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
)

// TestEnterRefusalReasons: every refused credential answers 401 invalid_api_key, and the
// refusal names its reason, the masked key and never the key.
func TestEnterRefusalReasons(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	personal := mustWorkspace(t, c, Personal, "Ada Lovelace")
	orphan := mustWorkspace(t, c, Organisation, "Orphan Ltd")
	_, personalKey := mustKey(t, c, personal.ID, false)
	orphanRec, orphanKey := mustKey(t, c, orphan.ID, false)
	disabledRec, disabledKey := mustKey(t, c, personal.ID, false)
	if _, err := c.SetKeyDisabled(disabledRec.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveOwners(orphan.ID); err != nil {
		t.Fatal(err)
	}
	unknownKey := KeyPrefix + "doesnotexist0123456789"
	tests := []struct {
		name    string
		cred    Credentials
		door    Door
		reason  RefusalReason
		keyID   uuid.UUID
		masked  string
		session bool
	}{
		{"nothing presented", Credentials{}, RESTRead, RefusalMissing, uuid.Nil, "", false},
		{"session on a write door", Credentials{Session: "x", SessionSent: true}, RESTWrite, RefusalMissing, uuid.Nil, "", false},
		{"session on the subscription door", Credentials{Session: "x", SessionSent: true}, Subscription, RefusalMissing, uuid.Nil, "", false},
		{"basic scheme", Credentials{Authorization: "Basic " + personalKey}, RESTRead, RefusalMalformed, uuid.Nil, "", false},
		{"no scheme", Credentials{Authorization: personalKey}, RESTRead, RefusalMalformed, uuid.Nil, "", false},
		{"bearer without key", Credentials{Authorization: "Bearer  "}, RESTRead, RefusalMalformed, uuid.Nil, "", false},
		{"empty session", Credentials{SessionSent: true}, RESTRead, RefusalMalformed, uuid.Nil, "", true},
		{"unknown key", Credentials{Authorization: "Bearer " + unknownKey}, RESTRead, RefusalUnknownKey, uuid.Nil, MaskKey(unknownKey), false},
		{"disabled key", Credentials{Authorization: "Bearer " + disabledKey}, RESTWrite, RefusalDisabledKey, disabledRec.ID, MaskKey(disabledKey), false},
		{"owner-less organisation", Credentials{Authorization: "bearer " + orphanKey}, Subscription, RefusalOwnerless, orphanRec.ID, MaskKey(orphanKey), false},
		{"unknown session", Credentials{Session: "forged", SessionSent: true}, GraphQL, RefusalUnknownSession, uuid.Nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cred.ClientIP = "192.0.2.10"
			p, err := c.Enter(tt.cred, tt.door)
			var refusal *CredentialRefusal
			if !errors.As(err, &refusal) {
				t.Fatalf("Enter = %+v, %v; want a credential refusal", p, err)
			}
			if refusal.Reason != tt.reason || refusal.KeyID != tt.keyID || refusal.MaskedKey != tt.masked || refusal.Session != tt.session {
				t.Fatalf("refusal %+v, want reason %s, key id %v, masked %q, session %v", refusal, tt.reason, tt.keyID, tt.masked, tt.session)
			}
			if code(err) != CodeInvalidAPIKey {
				t.Fatalf("answer %v, want invalid_api_key", err)
			}
			for _, key := range []string{personalKey, disabledKey, orphanKey, unknownKey} {
				if strings.Contains(err.Error(), key) || strings.Contains(refusal.MaskedKey, key) {
					t.Fatalf("refusal %q shows a key", err.Error())
				}
			}
			if p.Account.ID != uuid.Nil || p.Key != nil {
				t.Fatalf("a refused credential entered as %+v", p)
			}
		})
	}
}

// TestEnterAccepts: the doors let in what they allow.
func TestEnterAccepts(t *testing.T) {
	t.Parallel()
	c := newCore(t)
	personal := mustWorkspace(t, c, Personal, "Ada Lovelace")
	rec, key := mustKey(t, c, personal.ID, false)
	session, err := c.CreateSession(personal.ID)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cred    Credentials
		door    Door
		withKey bool
		anon    bool
	}{
		{"key on a read", Credentials{Authorization: "Bearer " + key}, RESTRead, true, false},
		{"key on a write, scheme in any case", Credentials{Authorization: "BEARER " + key}, RESTWrite, true, false},
		{"key beats a session", Credentials{Authorization: "Bearer " + key, Session: "forged", SessionSent: true}, GraphQL, true, false},
		{"session on a read", Credentials{Session: session, SessionSent: true}, RESTRead, false, false},
		{"session on GraphQL", Credentials{Session: session, SessionSent: true}, GraphQL, false, false},
		{"nothing on GraphQL", Credentials{}, GraphQL, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cred.ClientIP = "192.0.2.20"
			p, err := c.Enter(tt.cred, tt.door)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.anon:
				if p.Account.ID != uuid.Nil || p.Key != nil {
					t.Fatalf("anonymous caller entered as %+v", p)
				}
			case tt.withKey:
				if p.Key == nil || p.Key.ID != rec.ID || p.Workspace.ID != personal.ID {
					t.Fatalf("entered as %+v, want key %v", p, rec.ID)
				}
			default:
				if p.Key != nil || p.Workspace.ID != personal.ID {
					t.Fatalf("session entered as %+v", p)
				}
			}
		})
	}
}

// TestEnterLimitRefusals: each bucket names itself, whom it counts and when it refills on the
// core's clock, and answers 429 with Retry-After up to that instant.
func TestEnterLimitRefusals(t *testing.T) {
	t.Parallel()
	// The clock starts at 12:00:30: the minute window ends at 12:01, the hour at 13:00, the
	// five-minute window at 12:05.
	tests := []struct {
		name      string
		bucket    Bucket
		door      Door
		useKey    bool
		badKey    bool
		before    int // requests admitted before the refusal
		refillsAt time.Time
		retry     int
	}{
		{"key minute", BucketKeyMinute, RESTRead, true, false, keyRequestsPerMinute, start.Truncate(time.Minute).Add(time.Minute), 30},
		{"key writes", BucketKeyWrites, RESTWrite, true, false, keyWritesPerHour, start.Truncate(time.Hour).Add(time.Hour), 3570},
		{"anonymous", BucketAnonymous, GraphQL, false, false, anonymousPerMinute, start.Truncate(time.Minute).Add(time.Minute), 30},
		{"refused credentials", BucketRefusedCredentials, RESTRead, false, true, refusedPerFiveMinutes, start.Truncate(5 * time.Minute).Add(5 * time.Minute), 270},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCore(t)
			ws := mustWorkspace(t, c, Personal, "Ada")
			rec, key := mustKey(t, c, ws.ID, false)
			cred := Credentials{ClientIP: "192.0.2.30"}
			switch {
			case tt.useKey:
				cred.Authorization = "Bearer " + key
			case tt.badKey:
				cred.Authorization = "Bearer " + KeyPrefix + "wrong"
			}
			for i := range tt.before {
				_, err := c.Enter(cred, tt.door)
				var limited *LimitRefusal
				if errors.As(err, &limited) {
					t.Fatalf("request %d refused early: %v", i+1, err)
				}
			}
			_, err := c.Enter(cred, tt.door)
			var limited *LimitRefusal
			if !errors.As(err, &limited) {
				t.Fatalf("request %d: %v, want a limit refusal", tt.before+1, err)
			}
			if limited.Bucket != tt.bucket || !limited.RefillsAt.Equal(tt.refillsAt) || !limited.At.Equal(start) || limited.Limit != tt.before {
				t.Fatalf("refusal %+v, want bucket %s refilling at %v", limited, tt.bucket, tt.refillsAt)
			}
			wantSubject := cred.ClientIP
			if tt.useKey {
				wantSubject = rec.ID.String()
			}
			if limited.Subject != wantSubject {
				t.Fatalf("subject %q, want %q", limited.Subject, wantSubject)
			}
			if tt.badKey != (limited.Cause != nil) || (tt.badKey && limited.Cause.Reason != RefusalUnknownKey) {
				t.Fatalf("cause %+v", limited.Cause)
			}
			var answer *Error
			if !errors.As(err, &answer) || answer.Code != CodeRateLimited || answer.RetryAfter != tt.retry {
				t.Fatalf("answer %+v, want 429 after %d s", answer, tt.retry)
			}
			// At the refill instant the bucket admits again.
			if _, err := c.Clock().Advance(tt.refillsAt.Sub(c.Clock().Now())); err != nil {
				t.Fatal(err)
			}
			_, err = c.Enter(cred, tt.door)
			if errors.As(err, &limited) {
				t.Fatalf("at the refill instant: %v", err)
			}
		})
	}
}

// TestWithoutRateLimitsCountsNothing: the core option admits past every limit and still refuses
// credentials.
func TestWithoutRateLimitsCountsNothing(t *testing.T) {
	t.Parallel()
	c := New(clock.NewManual(start), Deps{}, WithoutRateLimits())
	ws := mustWorkspace(t, c, Personal, "Ada")
	_, key := mustKey(t, c, ws.ID, false)
	doors := []struct {
		cred Credentials
		door Door
		want string
	}{
		{Credentials{Authorization: "Bearer " + key}, RESTWrite, ""},
		{Credentials{}, GraphQL, ""},
		{Credentials{Authorization: "Bearer nope"}, RESTRead, CodeInvalidAPIKey},
	}
	for _, d := range doors {
		for i := range 200 {
			d.cred.ClientIP = "192.0.2.40"
			if _, err := c.Enter(d.cred, d.door); code(err) != d.want {
				t.Fatalf("request %d through %+v: %v, want %q", i+1, d.door, err, d.want)
			}
		}
	}
	c.limits.mu.Lock()
	n := len(c.limits.windows)
	c.limits.mu.Unlock()
	if n != 0 {
		t.Fatalf("the limiter holds %d records", n)
	}
	c.Reset(start)
	if !c.limits.off {
		t.Fatal("a reset turned the limits back on")
	}
}

// TestEnterSharesTheKeyRecord: letting a key in allocates nothing once its last use is stamped
// (the principal shares the stored key record and the workspace's owners), and a principal keeps
// the record it entered with when the key changes afterwards (disabled, stamped again).
func TestEnterSharesTheKeyRecord(t *testing.T) {
	// Not parallel: testing.AllocsPerRun refuses to run in a parallel test.
	clk := clock.NewManual(start)
	c := New(clk, Deps{})
	ws := mustWorkspace(t, c, Organisation, "Shared Ltd")
	rec, key := mustKey(t, c, ws.ID, false)
	cred := Credentials{Authorization: "Bearer " + key, ClientIP: "192.0.2.10"}
	first, err := c.Enter(cred, RESTRead)
	if err != nil || first.Key == nil || first.Key.LastUsedAt == nil {
		t.Fatalf("Enter = %+v, %v; want the key, stamped", first, err)
	}
	if allocs := testing.AllocsPerRun(50, func() { // under the per-key limit of 100 a minute
		if _, err := c.Enter(cred, RESTRead); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("Enter allocates %v times, want 0", allocs)
	}
	stampedAt := *first.Key.LastUsedAt
	clk.Advance(2 * lastUsedGranularity)
	second, err := c.Enter(cred, RESTRead)
	if err != nil || !second.Key.LastUsedAt.After(stampedAt) {
		t.Fatalf("Enter after %v = %+v, %v; want a new stamp", 2*lastUsedGranularity, second.Key, err)
	}
	if _, err := c.SetKeyDisabled(rec.ID, true); err != nil {
		t.Fatal(err)
	}
	if !first.Key.LastUsedAt.Equal(stampedAt) || first.Key.Disabled || second.Key.Disabled {
		t.Errorf("principals changed after they entered: first %+v, second %+v", first.Key, second.Key)
	}
	if _, err := c.Enter(cred, RESTRead); err == nil {
		t.Error("a disabled key entered")
	}
	if len(first.Workspace.Owners) != 1 || first.Workspace.Owners[0] != ws.Owners[0] {
		t.Errorf("principal's owners %v, want %v", first.Workspace.Owners, ws.Owners)
	}
}
