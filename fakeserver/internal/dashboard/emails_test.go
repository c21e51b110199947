package dashboard

import (
	"testing"
	"time"
)

// TestEmailsAndOverviewBoundedWhateverTenantsSend: the emails page (200 emails, each with a
// long subject, ten times the addresses it shows and a long text) and the overview (ten times
// the workspaces it lists, each with a long name), every text far past its cap in characters
// escaped to five bytes, stay under their documented sizes.
func TestEmailsAndOverviewBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	long := fiveByteText(100 << 10)
	id := "00000000-0000-4000-8000-000000000000"
	var to []string
	for range 10 * maxRecipients {
		to = append(to, long)
	}
	email := Email{ID: id, WorkspaceID: id, Kind: long, To: to, Subject: long, Text: long, SentAt: time.Unix(0, 0)}
	em := emailsView{WorkspaceID: id, Capped: true, Total: 100000}
	for range MaxList {
		em.Emails = append(em.Emails, EmailRow(email))
	}
	if r := em.Emails[0]; !r.TextCut || r.MoreTo != 9*maxRecipients {
		t.Errorf("an email shows its whole text (%v) or counts %d more addresses", !r.TextCut, r.MoreTo)
	}
	var wss []Workspace
	for range 10 * MaxList {
		wss = append(wss, Workspace{ID: id, Type: "organization", Name: long})
	}
	ov := overviewOf(wss, 3, 3)
	if len(ov.Workspaces) != MaxList || ov.Total != len(wss) {
		t.Errorf("the overview lists %d of %d workspaces", len(ov.Workspaces), ov.Total)
	}
	for _, tc := range []struct {
		page      string
		got, most int
	}{
		{"emails page", renderSize(t, "emails", em), maxEmailsPageBytes},
		{"overview", renderSize(t, "overview", ov), maxOverviewPageBytes},
	} {
		t.Logf("%s: %d bytes (bound %d)", tc.page, tc.got, tc.most)
		if tc.got > tc.most {
			t.Errorf("%s: %d bytes, over its bound of %d", tc.page, tc.got, tc.most)
		}
	}
}
