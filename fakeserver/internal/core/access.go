package core

import (
	"strings"

	"github.com/google/uuid"
)

// This file holds the one rule for letting a request in: which credential it presents, whether
// that credential is accepted, and whether a limit refuses it. REST, GraphQL and the webhook
// subscription calls all go through Enter; each only shapes the answer.

// RefusalReason says why a credential was refused. Every reason gets the same answer, 401
// invalid_api_key, so that a caller learns nothing; the reason is for the fake's own account.
type RefusalReason string

// The reasons a credential is refused.
const (
	// RefusalMissing: the request presents no credential.
	RefusalMissing RefusalReason = "missing"
	// RefusalMalformed: the Authorization header is not "Bearer <key>", or the key or session
	// is empty.
	RefusalMalformed RefusalReason = "malformed"
	// RefusalUnknownKey: no key has this value.
	RefusalUnknownKey RefusalReason = "unknown_key"
	// RefusalDisabledKey: the key exists and is disabled.
	RefusalDisabledKey RefusalReason = "disabled_key"
	// RefusalOwnerless: the key belongs to an organisation that has no owner to act as.
	RefusalOwnerless RefusalReason = "ownerless_organisation"
	// RefusalUnknownSession: no browser session has this sessionid.
	RefusalUnknownSession RefusalReason = "unknown_session"
)

// CredentialRefusal is a refused credential. It unwraps to ErrInvalidAPIKey, the answer of every
// adapter.
type CredentialRefusal struct {
	Reason RefusalReason
	// MaskedKey is the presented key masked as the service shows keys ("podqa_api_abc123…"), or
	// "" when no key was presented; never the key itself.
	MaskedKey string
	// KeyID is the refused key's id when the key exists (disabled, owner-less); uuid.Nil otherwise.
	KeyID uuid.UUID
	// Session is true when the refused credential was a sessionid cookie.
	Session bool
}

func (e *CredentialRefusal) Error() string {
	return "credential refused (" + string(e.Reason) + "): " + ErrInvalidAPIKey().Message
}

// Unwrap returns the answer, so that errors.As finds the *Error adapters write.
func (e *CredentialRefusal) Unwrap() error { return ErrInvalidAPIKey() }

// Credentials are what a request presents to be let in.
type Credentials struct {
	// Authorization is the Authorization header's value as sent; "" when absent.
	Authorization string
	// Session is the sessionid cookie's value; SessionSent tells an empty cookie from none.
	Session     string
	SessionSent bool
	// ClientIP is the caller's address: refused credentials and anonymous requests count
	// against it.
	ClientIP string
}

// Door is what one kind of request may present and what it costs.
type Door struct {
	// Sessions lets a sessionid cookie stand in for a key when no Authorization is sent.
	Sessions bool
	// Anonymous lets a request that presents nothing in, counted against its address; it
	// enters with the zero Principal.
	Anonymous bool
	// Write counts the request against the key's hourly write limit as well.
	Write bool
}

// The doors of the service's APIs.
var (
	// RESTRead: a REST read, with a key or a browser session.
	RESTRead = Door{Sessions: true}
	// RESTWrite: a REST write, with a key only.
	RESTWrite = Door{Write: true}
	// Subscription: the webhook subscription calls, writes with a key only.
	Subscription = Door{Write: true}
	// GraphQL: a GraphQL query, with a key, a browser session, or nothing (report(id) needs
	// no credential).
	GraphQL = Door{Sessions: true, Anonymous: true}
)

// Enter resolves a request's credentials and applies the limits for door. It returns the
// principal, or one of two typed refusals:
//   - *CredentialRefusal: the credential was refused and counted against the address;
//   - *LimitRefusal: a limit refused the request (the key's minute or write window, the
//     anonymous window, or too many refused credentials from the address, whose Cause says
//     which credential tipped it over).
//
// Both unwrap to the *Error adapters answer with. A GraphQL caller whose credential is refused
// may go on as the anonymous caller; that is the adapter's answer, not a rule here.
func (c *Core) Enter(cred Credentials, door Door) (Principal, error) {
	p, refusal := c.resolve(cred, door)
	if refusal != nil {
		if refusal.Reason == RefusalMissing && door.Anonymous {
			if r := c.admitAnonymous(cred.ClientIP); r != nil {
				return Principal{}, r
			}
			return Principal{}, nil
		}
		if r := c.countRefusal(cred.ClientIP, refusal); r != nil {
			return Principal{}, r
		}
		return Principal{}, refusal
	}
	if r := c.admitKey(p, door.Write); r != nil {
		return Principal{}, r
	}
	return p, nil
}

// resolve picks the credential a request presents: its Authorization header when sent, else
// (where the door allows) its sessionid cookie.
func (c *Core) resolve(cred Credentials, door Door) (Principal, *CredentialRefusal) {
	switch {
	case cred.Authorization != "":
		token, ok := BearerToken(cred.Authorization)
		if !ok {
			return Principal{}, &CredentialRefusal{Reason: RefusalMalformed}
		}
		return c.authenticateKey(token)
	case cred.SessionSent && door.Sessions:
		return c.authenticateSession(cred.Session)
	default:
		return Principal{}, &CredentialRefusal{Reason: RefusalMissing}
	}
}

// BearerToken is the one reading of an Authorization header: the token of "Bearer <token>",
// the scheme in any case and the token without surrounding space, and whether the header has
// that shape at all. The doors, the journal and the admin guard all read it so.
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}
