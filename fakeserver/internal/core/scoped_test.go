package core

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestSelectWorkspace: a caller reads its own personal workspace, or an organisation it belongs
// to; anything else is refused the same way whether it exists or not.
func TestSelectWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Minute, NewWorkspace{})
	org, err := f.c.CreateWorkspace(NewWorkspace{Type: Organisation, Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, orgKey := mustKey(t, f.c, org.ID, false)
	owner, err := f.c.Authenticate(orgKey)
	if err != nil {
		t.Fatal(err)
	}
	unknown := uuid.MustParse("00000000-0000-4000-8000-000000000000")
	personal := owner.Account.Personal
	tests := []struct {
		name string
		p    Principal
		org  *uuid.UUID
		want uuid.UUID
		code string
	}{
		{"own personal workspace", f.p, nil, f.ws.ID, ""},
		{"the owner's personal workspace from the organisation's key", owner, nil, personal, ""},
		{"an organisation it owns", owner, &org.ID, org.ID, ""},
		{"an organisation it does not belong to", f.p, &org.ID, uuid.Nil, CodeNotFound},
		{"an organisation that does not exist", owner, &unknown, uuid.Nil, CodeNotFound},
		{"a personal workspace named as an organisation", owner, &personal, uuid.Nil, CodeNotFound},
		{"anonymous", Principal{}, nil, uuid.Nil, CodeInvalidAPIKey},
		{"anonymous naming an organisation", Principal{}, &org.ID, uuid.Nil, CodeInvalidAPIKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.c.SelectWorkspace(tt.p, tt.org)
			if code(err) != tt.code {
				t.Fatalf("err = %v, want code %q", err, tt.code)
			}
			if got.Workspace.ID != tt.want {
				t.Fatalf("acting in %v, want %v", got.Workspace.ID, tt.want)
			}
			if tt.code == "" && got.Account.ID != tt.p.Account.ID {
				t.Fatalf("the acting account changed: %v", got.Account.ID)
			}
		})
	}
}

// TestScopedSeriesLookups: a show's history names its reports and verdicts only to a caller who
// may see its workspace, and only such a caller may act in that workspace through it.
func TestScopedSeriesLookups(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, NewWorkspace{})
	r, err := f.c.CreateReportFromFeed(t.Context(), f.p, FromFeed{FeedURL: "http://feeds.test/show.rss"})
	if err != nil {
		t.Fatal(err)
	}
	f.advance(t, time.Hour)
	if r = f.report(t, r.ID); r.Status != StatusComplete || r.Series == nil {
		t.Fatalf("report %s, series %v; want a complete report of a show", r.Status, r.Series)
	}
	other := newFixture(t, 0, NewWorkspace{})
	stranger := other.p
	tests := []struct {
		name    string
		p       Principal
		visible bool
	}{
		{"its workspace", f.p, true},
		{"another workspace", stranger, false},
		{"anonymous", Principal{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := f.c.SeriesFor(tt.p, *r.Series)
			if !ok || s.ID != *r.Series || len(s.History) != 1 {
				t.Fatalf("SeriesFor = %+v, %v; want the show with one point", s, ok)
			}
			point := s.History[0]
			if tt.visible {
				if point.Report != r.ID || point.Passed == nil || *point.Passed != r.Stats.Passed || point.RequiredFailures == nil {
					t.Fatalf("visible point %+v, want report %v with its verdict", point, r.ID)
				}
			} else if point.Report != uuid.Nil || point.Passed != nil || point.RequiredFailures != nil {
				t.Fatalf("hidden point shows %+v", point)
			}
			acting, ok, err := f.c.ActInSeriesWorkspace(tt.p, *r.Series)
			if err != nil || ok != tt.visible {
				t.Fatalf("ActInSeriesWorkspace ok = %v, %v; want %v", ok, err, tt.visible)
			}
			if ok && acting.Workspace.ID != f.ws.ID {
				t.Fatalf("acting in %v, want %v", acting.Workspace.ID, f.ws.ID)
			}
		})
	}
	if _, ok := f.c.SeriesFor(f.p, uuid.New()); ok {
		t.Fatal("an unknown show was found")
	}
	page := f.c.SeriesByTitleFor(f.p, 10, 0)
	if len(page.Items) != 1 || page.Items[0].History[0].Report != r.ID {
		t.Fatalf("own listing %+v", page)
	}
	if page := f.c.SeriesByTitleFor(stranger, 10, 0); len(page.Items) != 0 {
		t.Fatalf("a stranger lists %d shows", len(page.Items))
	}
}
