package control

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/faults"
)

// FuzzFaultBodies posts arbitrary bodies to POST /_fake/faults: each is armed (201, listed once,
// and its answer armed again gives the same fault) or refused with 400 validation_error and
// nothing armed; never a 5xx or a panic.
func FuzzFaultBodies(f *testing.F) {
	armed := faults.New(1, true, uuid.New)
	defer armed.Close()
	api := New(Deps{Faults: armed})
	for _, s := range []string{
		`{"method":"GET","path_prefix":"/api/rest/v1/reports","status":503,"count":2}`,
		`{"path_prefix":"/api/rest/v1/","status":502,"probability":0.3,"latency_ms":200,"jitter_ms":50}`,
		`{"method":"PUT","path_prefix":"/_uploads/","reset":"after_body","throttle_bytes_per_s":65536,"count":1}`,
		`{"path_prefix":"/x","truncate_after_bytes":0,"after":3}`,
		`{"path_prefix":"/x","status":429,"retry_after_s":30}`,
		`{"path_prefix":"/x","status":429,"probability":1e-300}`,
		`{"path_prefix":"/x","status":500,"reset":"before_body"}`,
		`{"path_prefix":"/x","latency_ms":1e9}`, `{"path_prefix":"/x","probability":"NaN"}`,
		`{}`, `[]`, `null`, `{"a":`, "\xff", ``,
	} {
		f.Add([]byte(s))
	}
	do := func(body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/_fake/faults", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		api.ServeCreateFault(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		defer armed.Clear()
		rec := do(body)
		switch rec.Code {
		case http.StatusCreated:
			var got armedFaultJSON
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("%q: answer %s: %v", body, rec.Body, err)
			}
			list := armed.List()
			if len(list) != 1 || list[0].ID != got.ID || !reflect.DeepEqual(armedFaultView(list[0]), got) {
				t.Fatalf("%q: armed %+v, listed %+v", body, got, list)
			}
			again := do(must(json.Marshal(got.faultJSON)))
			var second armedFaultJSON
			if again.Code != http.StatusCreated || json.Unmarshal(again.Body.Bytes(), &second) != nil || !reflect.DeepEqual(second.faultJSON, got.faultJSON) {
				t.Fatalf("%q: re-arming %+v: %d %s", body, got.faultJSON, again.Code, again.Body)
			}
		case http.StatusBadRequest:
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code != "validation_error" || e.Error.Message == "" || len(armed.List()) != 0 {
				t.Fatalf("%q: %s, %d armed", body, rec.Body, len(armed.List()))
			}
		default:
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
