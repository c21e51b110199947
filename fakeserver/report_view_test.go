package fakeserver

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
)

// TestReportViewSharedByRESTAndGraphQL: REST's body of a report is exactly the Report schema
// (it decodes into the generated type and encodes back to the same bytes), and GraphQL's
// JSON-text fields are the same bytes as REST's nested objects, for a running and a finished
// report.
func TestReportViewSharedByRESTAndGraphQL(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	ids, err := srv.SeedReports(seed.WorkspaceID, []SeededReport{{Duration: 30 * time.Minute}, {CompleteAfter: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, id, status string
		present          []string // nested objects that must not be null
	}{
		{"finished", ids[0], "COMPLETE", []string{"stats", "results", "file_info"}},
		{"running", ids[1], "IN_PROGRESS", []string{"stats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+tt.id, bearer(seed.APIKey), "")
			if status != 200 {
				t.Fatalf("GET: %d %s", status, body)
			}
			var typed restserver.Report
			if err := json.Unmarshal(body, &typed); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(typed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(again, '\n'), body) {
				t.Fatalf("REST body is not the Report schema's encoding:\n got %s\nwant %s", body, again)
			}
			if string(typed.Status) != tt.status {
				t.Fatalf("status %s, want %s", typed.Status, tt.status)
			}
			var rest map[string]json.RawMessage
			if err := json.Unmarshal(body, &rest); err != nil {
				t.Fatal(err)
			}
			var d struct{ Report gqlReport }
			gqlData(t, srv, seed.APIKey, `query($id: UUID!) { report(id: $id) { `+reportFields+` } }`, map[string]any{"id": tt.id}, &d)
			gotByField := map[string]*string{
				"stats": d.Report.Stats, "file_info": d.Report.FileInfo, "metadata": d.Report.Metadata,
				"results": d.Report.Results, "cover_image": d.Report.CoverImage,
			}
			for field, got := range gotByField {
				want := string(rest[field])
				switch {
				case got == nil && want != "null":
					t.Errorf("%s: GraphQL null, REST %s", field, want)
				case got != nil && *got != want:
					t.Errorf("%s: GraphQL %s, REST %s", field, *got, want)
				}
			}
			for _, field := range tt.present {
				if gotByField[field] == nil {
					t.Errorf("%s is null on both sides", field)
				}
			}
		})
	}
}
