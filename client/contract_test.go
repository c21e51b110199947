package client

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
)

// openAPISchemas loads the components of the contract the generated code was made from.
func openAPISchemas(t *testing.T) map[string]schema {
	t.Helper()
	raw, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatalf("reading the contract: %v", err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("decoding the contract: %v", err)
	}
	return doc.Components.Schemas
}

// schema is the part of an OpenAPI schema these tests read. (TestSchemaDrift in drift_test.go
// compares the types' fields with the properties.)
type schema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Enum       []string                   `json:"enum"`
}

// TestEnumsMatchContract keeps the enum constants equal to the contract's enums, so that a value
// added to the contract is added here too.
func TestEnumsMatchContract(t *testing.T) {
	t.Parallel()
	schemas := openAPISchemas(t)
	strs := func(vs ...any) []string {
		var out []string
		for _, v := range vs {
			out = append(out, reflect.ValueOf(v).String())
		}
		return out
	}
	tests := []struct {
		schema string
		consts []string
		known  func(string) bool // nil: no IsKnown to check
	}{
		{"ReportStatus", strs(StatusPending, StatusScheduled, StatusInProgress, StatusComplete, StatusFailed, StatusOutOfQuota), nil},
		{"ReportStatusFilter", strs(StatusPending, StatusScheduled, StatusInProgress, StatusComplete, StatusFailed, StatusOutOfQuota, StatusAwaitingReview),
			func(s string) bool { return Status(s).IsKnown() }},
		{"ResultStatus", strs(CheckPass, CheckFail), nil},
		{"Severity", strs(SeverityRequired, SeverityInfo), nil},
		{"ErrorCode", strs(CodeValidationError, CodeInvalidAPIKey, CodeInsufficientCredits, CodeForbidden, CodePlanLimitReached,
			CodeNotFound, CodeMethodNotAllowed, CodeConflict, CodeRateLimited, CodeInternalError), nil},
		{"WebhookEventType", strs(EventReportCompleted, EventReportFailed, EventReportOutOfQuota, EventEpisodeCreated, EventSeriesFeedBroken), nil},
	}
	for _, tt := range tests {
		got := slices.Sorted(slices.Values(tt.consts))
		want := slices.Sorted(slices.Values(schemas[tt.schema].Enum))
		if len(want) == 0 {
			t.Errorf("openapi.json has no enum %s", tt.schema)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("constants for %s = %v, contract %v", tt.schema, got, want)
		}
		if tt.known != nil {
			for _, v := range want {
				if !tt.known(v) {
					t.Errorf("%s value %q is not known to the package", tt.schema, v)
				}
			}
		}
	}
	// Series.kind is an inline enum.
	var kind struct {
		Enum []string `json:"enum"`
	}
	if err := json.Unmarshal(schemas["Series"].Properties["kind"], &kind); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kind.Enum, []string{string(SeriesPodcast)}) {
		t.Errorf("series kinds %v, want [%s]", kind.Enum, SeriesPodcast)
	}
}
