// Package httpmw holds what every HTTP surface of the fake shares of a request: its call (the
// principal a door let it in as, carried in the request's context), the admin guard, and the
// reading of a path parameter as sent. It imports the core only; the surfaces, the journal and
// the facade import it (fakeserver/DESIGN.md).
package httpmw

import (
	"context"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Call is what the fake learns of one request on its way through the chain: the principal a
// door (REST, GraphQL, the subscription calls) let it in as, and the armed fault that acted on
// it. The journal reads it instead of resolving the credential again.
type Call struct {
	principal core.Principal
	entered   bool
	fault     string
}

type callKey struct{}

// Begin returns r carrying a new Call in its context, and the call. The chain calls it once per
// request, outermost (logRequests).
func Begin(r *http.Request) (*http.Request, *Call) {
	c := &Call{}
	return r.WithContext(context.WithValue(r.Context(), callKey{}, c)), c
}

// CallOf is the call of ctx, or nil when ctx carries none.
func CallOf(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Admit records p as the principal r entered as and returns the request its handler serves:
// r itself, whose call now holds p, or (for a request that did not pass Begin, as a handler
// called on its own) r with a call of its own.
func Admit(r *http.Request, p core.Principal) *http.Request {
	c := CallOf(r.Context())
	if c == nil {
		r, c = Begin(r)
	}
	c.principal, c.entered = p, true
	return r
}

// Entered is the principal a door let the call in as, and whether one did.
func (c *Call) Entered() (core.Principal, bool) {
	if c == nil {
		return core.Principal{}, false
	}
	return c.principal, c.entered
}

// Principal is the principal the request of ctx entered as: the zero Principal when no door let
// it in with a credential.
func Principal(ctx context.Context) core.Principal {
	p, _ := CallOf(ctx).Entered()
	return p
}
