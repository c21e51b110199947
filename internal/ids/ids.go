// Package ids holds the one rule for the ids of the service: a UUID in its canonical form, 36
// characters with hyphens. uuid.Parse alone also accepts the braced, URN and 32-digit forms,
// which the service never sends and does not accept.
package ids

import (
	"fmt"

	"github.com/google/uuid"
)

// Canonical returns s as a UUID when it is one in its canonical 36-character form.
func Canonical(s string) (uuid.UUID, bool) {
	if len(s) != 36 {
		return uuid.Nil, false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, false
	}
	return u, true
}

// Parse is Canonical for an argument named what, refusing anything else with an error that
// wraps invalid and names the argument.
func Parse(what, id string, invalid error) (uuid.UUID, error) {
	u, ok := Canonical(id)
	if !ok {
		return uuid.Nil, fmt.Errorf("%w: %s %q is not a UUID", invalid, what, id)
	}
	return u, nil
}
