package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

type reservation struct {
	ReportID  string `json:"report_id"`
	UploadURL string `json:"upload_url"`
}

func reserve(t *testing.T, srv *Server, key string, durationMs int) reservation {
	t.Helper()
	body := `{"file_name":"show.wav","file_type":"audio/wav","duration_ms":` + itoa(durationMs) + `}`
	status, _, b := call(t, srv, "POST", "/api/rest/v1/uploads", jsonHeader(bearer(key)), body)
	var res reservation
	if status != http.StatusCreated || json.Unmarshal(b, &res) != nil || len(res.ReportID) != 36 {
		t.Fatalf("reserve: %d %s", status, b)
	}
	return res
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func put(t *testing.T, srv *Server, url, contentType string, header http.Header, body string) (int, []byte) {
	t.Helper()
	h := http.Header{"Content-Type": {contentType}}
	for k, v := range header {
		h[k] = v
	}
	status, _, b := call(t, srv, "PUT", strings.TrimPrefix(url, srv.URL()), h, body)
	return status, b
}

func TestUploadURL(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	res := reserve(t, srv, seed.APIKey, 60_000)
	if !strings.HasPrefix(res.UploadURL, srv.URL()+"/_uploads/"+res.ReportID+"?") {
		t.Fatalf("upload URL %s", res.UploadURL)
	}
	tampered := strings.Replace(res.UploadURL, "content_type=audio%2Fwav", "content_type=audio%2Fmpeg", 1)
	tests := []struct {
		name        string
		url         string
		contentType string
		header      http.Header
		want        int
		code        string
	}{
		{"tampered", tampered, "audio/mpeg", nil, 403, "forbidden"},
		{"wrong content type", res.UploadURL, "audio/mpeg", nil, 400, "validation_error"},
		{"with credentials", res.UploadURL, "audio/wav", bearer(seed.APIKey), 400, "validation_error"},
		{"accepted", res.UploadURL, "audio/wav", nil, 200, ""},
		{"replaced before use", res.UploadURL, "audio/wav", nil, 200, ""},
	}
	for _, tt := range tests {
		status, body := put(t, srv, tt.url, tt.contentType, tt.header, "RIFF....WAVE")
		if status != tt.want || (tt.code != "" && errorCode(t, body) != tt.code) {
			t.Fatalf("%s: %d %s", tt.name, status, body)
		}
	}
	if _, err := srv.Advance(15 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if status, body := put(t, srv, res.UploadURL, "audio/wav", nil, "x"); status != 403 || !strings.Contains(string(body), "expired") {
		t.Fatalf("expired URL: %d %s", status, body)
	}
}

func TestReportFromUpload(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	other, _ := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Other"})
	otherKey, _ := srv.CreateAPIKey(other.ID, "")
	create := func(key, id string, durationMs int) (int, []byte) {
		body := `{"report_id":"` + id + `","original_filename":"My Show.wav","duration_ms":` + itoa(durationMs) + `}`
		status, _, b := call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(key)), body)
		return status, b
	}
	res := reserve(t, srv, seed.APIKey, 61_000)
	if status, b := create(otherKey.Key, res.ReportID, 61_000); status != 404 || errorCode(t, b) != "not_found" {
		t.Fatalf("another workspace's id: %d %s", status, b)
	}
	status, b := create(seed.APIKey, res.ReportID, 12*60_000+1)
	var created struct {
		ID               string `json:"id"`
		Status           string `json:"status"`
		EstimatedCredits *int   `json:"estimated_credits"`
	}
	if status != 201 || json.Unmarshal(b, &created) != nil || created.ID != res.ReportID || created.Status != "PENDING" || created.EstimatedCredits == nil || *created.EstimatedCredits != 130 {
		t.Fatalf("create: %d %s", status, b)
	}
	for range 2 { // used: 409, and it stays 409
		if status, b := create(seed.APIKey, res.ReportID, 61_000); status != 409 || errorCode(t, b) != "conflict" {
			t.Fatalf("reuse: %d %s", status, b)
		}
	}
	if status, b := put(t, srv, res.UploadURL, "audio/wav", nil, "late"); status != 409 {
		t.Fatalf("upload after use: %d %s", status, b)
	}
	status, _, b = call(t, srv, "GET", "/api/rest/v1/reports/"+res.ReportID, bearer(seed.APIKey), "")
	if status != 200 || !strings.Contains(string(b), `"series":null`) || !strings.Contains(string(b), `"original_filename":"My Show.wav"`) {
		t.Fatalf("upload report: %d %s", status, b)
	}

	lapsed := reserve(t, srv, seed.APIKey, 1000)
	if _, err := srv.Advance(7 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if status, b := create(seed.APIKey, lapsed.ReportID, 1000); status != 404 {
		t.Fatalf("lapsed id: %d %s", status, b)
	}
	if status, b := create(seed.APIKey, "0b0e3c4e-1111-4000-8000-000000000000", 1000); status != 404 {
		t.Fatalf("unknown id: %d %s", status, b)
	}
}

func TestUploadNeedsCredits(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	if err := srv.SetCredits(seed.WorkspaceID, CreditsChange{PlanAllowance: ptrTo(500.0)}); err != nil {
		t.Fatal(err)
	}
	// 51 started minutes cost 510 credits: more than the 500 held.
	status, _, b := call(t, srv, "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)), `{"file_name":"a.wav","file_type":"audio/wav","duration_ms":3000001}`)
	if status != 402 || errorCode(t, b) != "insufficient_credits" {
		t.Fatalf("%d %s", status, b)
	}
	reserve(t, srv, seed.APIKey, 3000000)
}

func ptrTo[T any](v T) *T { return &v }
