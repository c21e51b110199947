package core

import (
	"crypto/sha256"

	"github.com/google/uuid"
)

// Credential is who a request's credential names, as the request journal shows it.
type Credential struct {
	Workspace uuid.UUID
	// Key is the key's id and MaskedKey its masked form; both zero for a browser session.
	Key       uuid.UUID
	MaskedKey string
}

// PeekKey resolves a bearer key like Authenticate but changes nothing (no last_used_at stamp,
// no rate-limit count): ok is false when the key would be refused.
func (c *Core) PeekKey(key string) (Credential, bool) {
	if key == "" {
		return Credential{}, false
	}
	digest := sha256.Sum256([]byte(key))
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, _, err := c.resolveKeyLocked(digest, c.clock.Now())
	if err != nil {
		return Credential{}, false
	}
	return Credential{Workspace: p.Workspace.ID, Key: p.Key.ID, MaskedKey: p.Key.MaskedKey}, true
}

// PeekSession resolves a sessionid cookie like AuthenticateSession; ok is false when it would be
// refused.
func (c *Core) PeekSession(token string) (Credential, bool) {
	p, err := c.AuthenticateSession(token)
	if err != nil {
		return Credential{}, false
	}
	return Credential{Workspace: p.Workspace.ID}, true
}

// MaskKey masks an API key the way the service shows it.
func MaskKey(key string) string { return maskKey(key) }
