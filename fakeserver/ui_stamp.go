package fakeserver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// A dashboard page's stamp is a fingerprint of what that page shows, so that its script
// refreshes it only when its own content changed, and never because of what it does not show.
// The page carries its stamp (body data-version) and the state URL that recomputes it (body
// data-state: /_fake/ui/state?page=<the page's path and query>); the script polls that URL at
// most once a second.
//
// The request journal's stamp leaves the journal out unless the page follows it (?follow=1):
// by default the page is a snapshot, so no tenant's requests re-render an open dashboard; a
// page that follows re-renders when a request it would list arrives (its method, path, status
// and key filters), at most once a second and within its bounded size. No other page shows
// the journal, so no other stamp reads it.

// pageStamp is the stamp of the page at target, a dashboard path and query (dashboard.LocalPath's
// answer for anything else: the overview).
func (s *Server) pageStamp(target string) string {
	u, err := url.Parse(dashboard.LocalPath(target))
	if err != nil {
		u = &url.URL{Path: dashboard.Path + "/"}
	}
	h := sha256.New()
	if s.clock.Manual() {
		// Every page shows the manual clock's instant and what is due at it.
		fmt.Fprintln(h, s.Now().UnixNano())
	}
	p, q := u.Path, u.Query()
	switch {
	case p == dashboard.Path+"/requests":
		s.faultStamp(h, false)
		if q.Get("follow") == "1" {
			s.journalStamp(h, q)
		}
	case strings.HasPrefix(p, dashboard.Path+"/requests/"):
		// A journal entry never changes; only the clock above and the faults it links.
		s.faultStamp(h, false)
	case strings.HasPrefix(p, dashboard.Path+"/endpoints/"):
		if id, ok := uuidAfter(p, dashboard.Path+"/endpoints/"); ok {
			s.endpointStamp(h, id)
		}
	case strings.HasPrefix(p, dashboard.Path+"/workspaces/") && strings.HasSuffix(p, "/webhooks"):
		if id, ok := uuidAfter(strings.TrimSuffix(p, "/webhooks"), dashboard.Path+"/workspaces/"); ok {
			if eps, err := s.core.Endpoints(id); err == nil {
				for _, ep := range eps {
					fmt.Fprintln(h, ep.ID, ep.Enabled)
					s.endpointStamp(h, ep.ID)
				}
			}
		}
	case p == dashboard.Path+"/feeds":
		for _, f := range s.host.Feeds() {
			fmt.Fprintln(h, f.ID, f.Title, f.FeedURL, f.Explicit, f.Broken, len(f.Episodes))
			for _, e := range f.Episodes {
				fmt.Fprintln(h, e.GUID, e.Title, e.Length)
			}
		}
	case p == dashboard.Path+"/faults":
		s.faultStamp(h, true)
	default:
		// The other pages (overview, workspaces, reports, emails, events): what the fake
		// recorded, as uiVersion reads it.
		fmt.Fprintln(h, s.uiVersion())
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func uuidAfter(p, prefix string) (uuid.UUID, bool) {
	id, err := parseID(strings.TrimPrefix(p, prefix), "")
	return id, err == nil
}

// faultStamp writes the armed faults, and with counts how often each matched and fired
// (which any tenant's request moves: only the faults page shows them).
func (s *Server) faultStamp(h hash.Hash, counts bool) {
	for _, f := range s.Faults() {
		if counts {
			fmt.Fprintln(h, f.ID, f.Matches, f.Fired)
		} else {
			fmt.Fprintln(h, f.ID)
		}
	}
}

// journalStamp writes the newest entry the journal page with query q would list: one journal
// read of at most dashboard.MaxList entries.
func (s *Server) journalStamp(h hash.Hash, q url.Values) {
	f := RequestFilter{Method: q.Get("method"), PathPrefix: q.Get("path"), Limit: 1}
	fmt.Sscan(q.Get("status"), &f.Status)
	key := q.Get("key")
	if key != "" {
		f.Limit = dashboard.MaxList
	}
	for _, e := range s.Requests(f) {
		if strings.HasPrefix(e.MaskedKey, key) {
			fmt.Fprintln(h, e.ID)
			return
		}
	}
}

// endpointStamp writes an endpoint's state and its deliveries' (at most its log of 20).
func (s *Server) endpointStamp(h hash.Hash, id uuid.UUID) {
	ep, err := s.core.EndpointByID(id)
	if err != nil {
		return
	}
	fmt.Fprintln(h, ep.Enabled)
	if ds, err := s.core.Deliveries(&id); err == nil {
		for _, d := range ds {
			fmt.Fprintln(h, d.ID, d.Status, d.Attempts)
		}
	}
}
