package httpmw

import (
	"crypto/subtle"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Admin is the one admin guard: it tells whether a request carries the fake's admin token as its
// bearer credential. The control API and the dashboard both ask it.
type Admin struct {
	token []byte
}

// NewAdmin is the guard of token.
func NewAdmin(token string) Admin { return Admin{token: []byte(token)} }

// Admits reports whether r's Authorization header is the admin token under the Bearer scheme,
// read by the one Bearer parse (core.BearerToken); sent says whether r has the header at all.
func (a Admin) Admits(r *http.Request) (admitted, sent bool) {
	header := r.Header.Get("Authorization")
	if header == "" {
		return false, false
	}
	token, ok := core.BearerToken(header)
	return ok && len(a.token) > 0 && subtle.ConstantTimeCompare([]byte(token), a.token) == 1, true
}

// Is reports whether token is the admin token (a login form's field).
func (a Admin) Is(token string) bool {
	return len(a.token) > 0 && subtle.ConstantTimeCompare([]byte(token), a.token) == 1
}
