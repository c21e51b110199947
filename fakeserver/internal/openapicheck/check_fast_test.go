package openapicheck

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestValidatorShortcutAgreesWithTheContract checks that every request the validator passes
// without kin-openapi (a route of uuid path parameters only, no query, no body) is one that
// kin-openapi passes too, over canonical and malformed path values. (kin-openapi leaves the uuid
// format to the handler's parameter binding, which answers a malformed id with 400; the shortcut
// is narrower still.)
// restBase is where the REST API lives, as the fake mounts it.
const restBase = "/api/rest/v1"

func TestValidatorShortcutAgreesWithTheContract(t *testing.T) {
	t.Parallel()
	v, err := New(restBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GET " + restBase + "/reports/{report_id}", "GET " + restBase + "/series/{series_id}", "GET " + restBase + "/me"} {
		if !v.uuidOnly[want] {
			t.Errorf("%s does not take the shortcut", want)
		}
	}
	for _, notWant := range []string{"GET " + restBase + "/reports", "POST " + restBase + "/reports", "GET " + restBase + "/series/{series_id}/episodes"} {
		if v.uuidOnly[notWant] {
			t.Errorf("%s takes the shortcut, but has a query or a body to check", notWant)
		}
	}
	contractOnly := &Validator{doc: v.doc, ops: v.ops}
	values := []struct {
		value     string
		canonical bool
	}{
		{"0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"0F8FAD5B-D9CB-469F-A165-70867728950E", true},
		{"00000000-0000-0000-0000-000000000000", true},
		{"0f8fad5b-d9cb-469f-a165-70867728950", false},
		{"0f8fad5b-d9cb-469f-a165-70867728950e0", false},
		{"0f8fad5bxd9cb-469f-a165-70867728950e", false},
		{"0f8fad5b-d9cb-469f-a165-70867728950g", false},
		{"0f8fad5bd9cb469fa16570867728950e", false},
		{"{0f8fad5b-d9cb-469f-a165-70867728950e}", false},
		{"urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e", false},
		{"not-a-uuid", false},
	}
	for key := range v.uuidOnly {
		method, pattern, _ := strings.Cut(key, " ")
		for _, tc := range values {
			segs := strings.Split(pattern, "/")
			for i, seg := range segs {
				if strings.HasPrefix(seg, "{") {
					segs[i] = url.PathEscape(tc.value)
				}
			}
			path := strings.Join(segs, "/")
			r := httptest.NewRequest(method, path, nil)
			if got := canonicalUUIDs(pattern, r.URL.Path); got != (tc.canonical || !strings.Contains(pattern, "{")) {
				t.Errorf("%s %s: canonicalUUIDs = %v", method, path, got)
			}
			shortcut := v.Check(r, pattern)
			full := contractOnly.Check(httptest.NewRequest(method, path, nil), pattern)
			if shortcut == nil && full != nil {
				t.Errorf("%s %s: passed by the shortcut, refused by the contract: %v", method, path, full)
			}
		}
	}
}
