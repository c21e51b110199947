package drift_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/drift"
)

// TestOrganisationKey: with an organisation's key, drift's GraphQL calls and the import's read
// the organisation (organisationId passed), and nothing differs.
func TestOrganisationKey(t *testing.T) {
	t.Parallel()
	live, _ := fakeserver.NewTest(t)
	ws, err := live.CreateWorkspace(fakeserver.WorkspaceSpec{Type: "organisation", Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := live.CreateAPIKey(ws.ID, "ci")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := live.SeedReports(ws.ID, make([]fakeserver.SeededReport, 3)); err != nil {
		t.Fatal(err)
	}
	opts := []drift.Option{drift.WithHTTPClient(live.Client()), drift.WithClock(live.Clock())}
	rep, err := drift.Check(context.Background(), live.URL(), append(opts, drift.WithAPIKey(key.Key))...)
	if err != nil || rep.Drifted() {
		t.Fatalf("check: %v %+v", err, rep)
	}
	// Every GraphQL call of a workspace's lists names the organisation (user, currentApiKey and
	// report(id) take none).
	for _, e := range live.Requests(fakeserver.RequestFilter{PathPrefix: "/api/graphql"}) {
		lists := strings.Contains(e.RequestBody, "seriesList(") || strings.Contains(e.RequestBody, "reports(")
		if lists && !strings.Contains(e.RequestBody, ws.ID) {
			t.Errorf("a GraphQL call without organisationId: %s", e.RequestBody)
		}
	}
	var doc bytes.Buffer
	sum, err := drift.Import(context.Background(), live.URL(), key.Key, &doc, opts...)
	if err != nil || sum.WorkspaceType != "organisation" || sum.WorkspaceName != "Acme" || sum.Reports != 3 || len(sum.Warnings) != 0 {
		t.Fatalf("import: %v %+v", err, sum)
	}
	f, err := fakeserver.LoadFixtures(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if f.Workspaces[0].Type != "organisation" || len(f.Workspaces[0].RecordedReports) != 3 {
		t.Fatalf("fixtures %+v", f.Workspaces[0])
	}
}
