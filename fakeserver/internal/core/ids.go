package core

import "github.com/google/uuid"

// NoID is the id nothing in the fake holds (every id it mints is random): an id given in any
// spelling but the canonical one is read as NoID, so that the request is answered exactly as for
// an id the workspace does not hold.
var NoID = uuid.Nil

// CanonicalID is the one rule for an id given to the fake, in a path, an argument or a Go call:
// a UUID in its lower-case canonical form (36 characters, hyphens at 8, 13, 18 and 23), as the
// service writes ids. Any other text, an upper-case or percent-encoded id among it, is no id.
func CanonicalID(s string) (uuid.UUID, bool) {
	if !IsCanonicalID(s) {
		return NoID, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil
}

// IsCanonicalID reports whether s passes CanonicalID, without parsing it.
func IsCanonicalID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
		default:
			return false
		}
	}
	return true
}

// ParseID reads an id argument by the id rule (CanonicalID): any other text, an id in another
// spelling among it, names nothing, and what it was to name (what: "Workspace", "API key", …)
// is not found. The Go API and the control API read an id argument through it alike.
func ParseID(s, what string) (uuid.UUID, error) {
	id, ok := CanonicalID(s)
	if !ok {
		return NoID, ErrNotFound(what)
	}
	return id, nil
}
