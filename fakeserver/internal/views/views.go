// Package views makes the JSON views of the core's records that more than one surface shows:
// a report as REST's GET /reports/{id} and GraphQL's report fields carry it, a workspace's
// credits as REST and the control API show them, and the cover URLs of reports. It imports the
// core and the REST contract's types; the surfaces import it, never one another
// (fakeserver/DESIGN.md).
package views

import (
	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Views renders reports over one core: it reads the series and episodes a report names, the
// clock for an analysis's remaining time, and mints cover URLs under the fake's base URL.
type Views struct {
	core    *core.Core
	clock   *clock.Clock
	baseURL string
	covers  coverTokens
}

// New is the views of c, with cover URLs under baseURL whose tokens derive from secret (a key
// of the fake kept for another purpose: the derivation keeps the two uses apart).
func New(c *core.Core, clk *clock.Clock, baseURL string, secret []byte) *Views {
	return &Views{core: c, clock: clk, baseURL: baseURL, covers: newCoverTokens(secret)}
}

// CoverReportID is the report a cover URL's token names, and whether the token is one.
func (v *Views) CoverReportID(token string) (uuid.UUID, bool) { return v.covers.reportID(token) }
