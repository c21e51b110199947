package fakeserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestExportedConstantsMatchTheCore holds the literal values the package exports to the core's,
// which the rules read.
func TestExportedConstantsMatchTheCore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want any
	}{
		{"StandardPodcast", StandardPodcast, core.StandardPodcast},
		{"StandardAESSpeech", StandardAESSpeech, core.StandardAESSpeech},
		{"StandardEBUR128", StandardEBUR128, core.StandardEBUR128},
		{"FeedCheckPeriod", FeedCheckPeriod, core.FeedCheckPeriod},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, the core's is %v", tt.name, tt.got, tt.want)
		}
	}
	srv, demo := NewTest(t)
	list, err := srv.Standards(demo.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 3 || list[0].Name != StandardPodcast || list[1].Name != StandardAESSpeech || list[2].Name != StandardEBUR128 {
		t.Fatalf("built-in standards %+v", list)
	}
}

// TestAddTopupSpec buys top-ups through the Go API and reads them back over REST, as a client
// would; a contradictory spec is refused and changes nothing.
func TestAddTopupSpec(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t) // clock at 2026-01-05T09:00Z
	lots := func() []string {
		t.Helper()
		status, _, body := call(t, srv, "GET", "/api/rest/v1/credits", bearer(demo.APIKey), "")
		var cr creditsAnswer
		if status != http.StatusOK || json.Unmarshal(body, &cr) != nil {
			t.Fatalf("credits: %d %s", status, body)
		}
		var out []string
		for _, l := range cr.TopupLots {
			at := "never"
			if l.ExpiresAt != nil {
				at = *l.ExpiresAt
			}
			out = append(out, at)
		}
		return out
	}
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		spec     TopupSpec
		wantErr  bool
		wantLots []string
	}{
		{"dated", TopupSpec{Amount: 10, ExpiresAt: march}, false, []string{"2026-03-01T00:00:00.000000+00:00"}},
		{"twelve months by default", TopupSpec{Amount: 10}, false, []string{"2026-03-01T00:00:00.000000+00:00", "2027-01-05T09:00:00.000000+00:00"}},
		{"never", TopupSpec{Amount: 10, NeverExpires: true}, false, []string{"2026-03-01T00:00:00.000000+00:00", "2027-01-05T09:00:00.000000+00:00", "never"}},
		{"never with a date", TopupSpec{Amount: 10, ExpiresAt: march, NeverExpires: true}, true, nil},
		{"no amount", TopupSpec{ExpiresAt: march}, true, nil},
	}
	var want []string
	for _, tt := range tests { // in order: each step sees the lots of the steps before
		err := srv.AddTopup(demo.WorkspaceID, tt.spec)
		var apiErr *Error
		if tt.wantErr {
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
				t.Fatalf("%s: err %v, want a 400 *Error", tt.name, err)
			}
		} else {
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			want = tt.wantLots
		}
		if got := lots(); !slices.Equal(got, want) {
			t.Fatalf("%s: lots %q, want %q", tt.name, got, want)
		}
	}
}
