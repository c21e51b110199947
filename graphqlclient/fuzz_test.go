package graphqlclient

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/podqa/podqa-go/graphqlclient/internal/operations"
)

// FuzzDecodeReport feeds arbitrary answers through the decoding of GetReport: the envelope,
// the generated types and the JSON-string fields. It must never panic, and an answer it
// accepts yields a report with the id it carried.
func FuzzDecodeReport(f *testing.F) {
	f.Add([]byte(`{"data":{"report":{"id":"r","status":"COMPLETE","transcriptIncluded":true,"stats":"{\"passed\":true,\"time_remaining\":0}","results":"[{\"name\":\"peak\",\"value\":-2.5}]","transcript":"[{\"start\":0,\"end\":5,\"text\":\"hi\",\"speaker\":null}]","fileInfo":"{\"size\":10}","createdAt":"2026-01-05T09:00:00.000000+00:00"}}}`))
	f.Add([]byte(`{"data":{"report":null},"errors":[{"message":"Report not found.","path":["report"],"extensions":{"code":"not_found"}}]}`))
	f.Add([]byte(`{"data":{"report":{"id":"r","status":"NEW","stats":"not json"}}}`))
	f.Add([]byte(`{"errors":[{"message":3}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var data operations.GetReportResponse
		err := decodeAnswer("GetReport", raw, &data)
		var ge *Error
		if errors.As(err, &ge) {
			_ = ge.Error()
			return
		}
		if err != nil || data.Report == nil {
			return
		}
		r, err := toReport(data.Report)
		if err == nil && r.ID != data.Report.Id {
			t.Fatalf("id %q, want %q", r.ID, data.Report.Id)
		}
	})
}

// FuzzDecodeOwner feeds arbitrary currentApiKey.owner values: unknown types are kept, nothing
// panics, and only OrganisationType is an organisation.
func FuzzDecodeOwner(f *testing.F) {
	f.Add([]byte(`{"__typename":"OrganisationType","id":"o","name":"Acme"}`))
	f.Add([]byte(`{"__typename":"UserType","id":"u","email":"a@b"}`))
	f.Add([]byte(`{"__typename":"TeamType","id":"t"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := decodeOwner(json.RawMessage(raw))
		if err != nil {
			return
		}
		if o.IsOrganisation() != (o.Type == OwnerOrganisation) {
			t.Fatalf("%+v", o)
		}
	})
}

// FuzzParseErrors feeds arbitrary bodies of refused queries.
func FuzzParseErrors(f *testing.F) {
	f.Add([]byte(`{"errors":[{"message":"Cannot query field","locations":[{"line":1,"column":3}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}],"data":null}`))
	f.Add([]byte(`{"error":{"code":"rate_limited","message":"x"}}`))
	f.Add([]byte(`{"errors":[]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		e := parseErrors("Op", 422, raw)
		if e == nil {
			return
		}
		if len(e.Errors) == 0 {
			t.Fatal("an *Error without entries")
		}
		_ = e.Error()
	})
}
