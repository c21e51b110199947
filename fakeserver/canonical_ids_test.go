package fakeserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestIDsOnlyInCanonicalForm is a leftover of issue 32: every door that takes an id takes it in
// the canonical 36-character form alone (internal/ids), as the service does; the braced, URN and
// 32-digit forms of an id that exists are refused like any other text that is no id. GraphQL's
// argument parse has its own test in internal/graphqlapi (TestGraphQLIDsOnlyInCanonicalForm).
func TestIDsOnlyInCanonicalForm(t *testing.T) {
	t.Parallel()
	srv, demo := NewTest(t)
	id := demo.WorkspaceID
	forms := map[string]string{
		"braced":    "{" + id + "}",
		"urn":       "urn:uuid:" + id,
		"32 digits": strings.ReplaceAll(id, "-", ""),
	}
	bearer := http.Header{"Authorization": {"Bearer " + demo.APIKey}}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := srv.CreateAPIKey(form, "x"); err == nil {
				t.Error("the Go API took the workspace id")
			}
			if status, _, body := call(t, srv, "GET", "/_fake/requests?workspace_id="+form, admin(srv), ""); status != http.StatusBadRequest {
				t.Errorf("GET /_fake/requests: %d %s, want 400", status, body)
			}
			if status, _, body := call(t, srv, "DELETE", "/webhook/subscribe/"+form, bearer, ""); status != http.StatusNotFound {
				t.Errorf("DELETE /webhook/subscribe/{id}: %d %s, want 404", status, body)
			}
		})
	}
	// The canonical form passes each door.
	if _, err := srv.CreateAPIKey(id, "x"); err != nil {
		t.Errorf("the canonical id: %v", err)
	}
	if status, _, body := call(t, srv, "GET", "/_fake/requests?workspace_id="+id, admin(srv), ""); status != http.StatusOK {
		t.Errorf("GET /_fake/requests with the canonical id: %d %s", status, body)
	}
}
