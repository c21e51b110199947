package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/apitime"
)

// call makes one request to the fake and returns the status, headers and body.
func call(t *testing.T, srv *Server, method, path string, header http.Header, body string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(path, "/_fake/") {
		checkControlAnswer(t, method, path, resp.StatusCode, resp.Header, b)
	}
	return resp.StatusCode, resp.Header, b
}

func bearer(key string) http.Header {
	return http.Header{"Authorization": {"Bearer " + key}}
}

func jsonHeader(h http.Header) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json")
	return h
}

type envelope struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an error envelope: %s", body)
	}
	return e.Error.Code
}

type meAnswer struct {
	Workspace struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"workspace"`
	Key *struct {
		ID          string  `json:"id"`
		Description string  `json:"description"`
		MaskedKey   string  `json:"masked_key"`
		CreatedAt   string  `json:"created_at"`
		LastUsedAt  *string `json:"last_used_at"`
	} `json:"key"`
}

func TestGetMe(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	org, err := srv.CreateWorkspace(WorkspaceSpec{Type: "organisation", Name: "Acme Audio"})
	if err != nil {
		t.Fatal(err)
	}
	orgKey, err := srv.CreateAPIKey(org.ID, "org key")
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := srv.CreateLegacyAPIKey(seed.WorkspaceID, "old key")
	if err != nil {
		t.Fatal(err)
	}
	session, err := srv.CreateSession(seed.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	now := apitime.Format(srv.Now())
	tests := []struct {
		name          string
		header        http.Header
		wantWorkspace string
		wantType      string
		wantKey       bool
	}{
		{"personal key", bearer(seed.APIKey), seed.WorkspaceID, "personal", true},
		{"legacy key", bearer(legacy.Key), seed.WorkspaceID, "personal", true},
		{"organisation key", bearer(orgKey.Key), org.ID, "organisation", true},
		{"lower-case scheme", http.Header{"Authorization": {"bearer " + seed.APIKey}}, seed.WorkspaceID, "personal", true},
		{"session cookie", http.Header{"Cookie": {"sessionid=" + session}}, seed.WorkspaceID, "personal", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := call(t, srv, "GET", "/api/rest/v1/me", tt.header, "")
			if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d %s: %s", status, h.Get("Content-Type"), body)
			}
			var me meAnswer
			if err := json.Unmarshal(body, &me); err != nil {
				t.Fatal(err)
			}
			if me.Workspace.ID != tt.wantWorkspace || me.Workspace.Type != tt.wantType {
				t.Fatalf("workspace %+v", me.Workspace)
			}
			if (me.Key != nil) != tt.wantKey {
				t.Fatalf("key %+v, want present %v", me.Key, tt.wantKey)
			}
			if !tt.wantKey {
				if !strings.Contains(string(body), `"key":null`) {
					t.Fatalf("a session's key is not null: %s", body)
				}
				return
			}
			if me.Key.CreatedAt != now || me.Key.LastUsedAt == nil || *me.Key.LastUsedAt != now {
				t.Fatalf("timestamps not in the fixed form at %s: %+v", now, me.Key)
			}
			if !strings.HasSuffix(me.Key.MaskedKey, "…") || strings.Contains(string(body), strings.TrimPrefix(seed.APIKey, "podqa_api_")) {
				t.Fatalf("answer leaks the key: %s", body)
			}
		})
	}
}

func TestRefusedCredentials(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	disabled, _ := srv.CreateAPIKey(seed.WorkspaceID, "to disable")
	if err := srv.SetAPIKeyDisabled(disabled.ID, true); err != nil {
		t.Fatal(err)
	}
	org, _ := srv.CreateWorkspace(WorkspaceSpec{Type: "organisation", Name: "Orphan"})
	orphanKey, _ := srv.CreateAPIKey(org.ID, "orphan")
	if err := srv.RemoveOwners(org.ID); err != nil {
		t.Fatal(err)
	}
	session, _ := srv.CreateSession(seed.WorkspaceID)
	tests := []struct {
		name   string
		method string
		header http.Header
	}{
		{"missing", "GET", nil},
		{"unknown key", "GET", bearer("podqa_api_unknown")},
		{"disabled key", "GET", bearer(disabled.Key)},
		{"owner-less organisation", "GET", bearer(orphanKey.Key)},
		{"basic scheme", "GET", http.Header{"Authorization": {"Basic " + seed.APIKey}}},
		{"forged session", "GET", http.Header{"Cookie": {"sessionid=forged"}}},
		{"session on a write", "POST", jsonHeader(http.Header{"Cookie": {"sessionid=" + session}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/api/rest/v1/me"
			if tt.method == "POST" {
				path = "/api/rest/v1/uploads"
			}
			status, _, body := call(t, srv, tt.method, path, tt.header, "")
			if status != http.StatusUnauthorized || errorCode(t, body) != "invalid_api_key" {
				t.Fatalf("status %d: %s", status, body)
			}
		})
	}
}

func TestRefusedCredentialsLimitPerAddress(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t) // the clock starts on a five-minute boundary
	for i := range 20 {
		if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer("wrong"), ""); status != http.StatusUnauthorized {
			t.Fatalf("refusal %d: %d %s", i+1, status, body)
		}
	}
	status, h, body := call(t, srv, "GET", "/api/rest/v1/me", nil, "")
	if status != http.StatusTooManyRequests || errorCode(t, body) != "rate_limited" || h.Get("Retry-After") != "300" {
		t.Fatalf("21st refusal: %d Retry-After %q %s", status, h.Get("Retry-After"), body)
	}
	// A working key never touches the address counter.
	if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != http.StatusOK {
		t.Fatalf("working key after refusals: %d %s", status, body)
	}
	if _, err := srv.Advance(5 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", nil, ""); status != http.StatusUnauthorized {
		t.Fatalf("after the window: %d", status)
	}
}

func TestPerKeyLimits(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	if _, err := srv.Advance(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, status, body)
		}
	}
	status, h, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	if status != http.StatusTooManyRequests || errorCode(t, body) != "rate_limited" || h.Get("Retry-After") != "15" {
		t.Fatalf("101st request: %d Retry-After %q %s", status, h.Get("Retry-After"), body)
	}
	other, _ := srv.CreateAPIKey(seed.WorkspaceID, "second key")
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(other.Key), ""); status != http.StatusOK {
		t.Fatalf("second key of the same workspace: %d", status)
	}
	if _, err := srv.Advance(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	// Writes: 30 an hour. POST /uploads is not served yet, but the request is admitted and
	// counted before it reaches the handler.
	for i := range 30 {
		status, _, body := call(t, srv, "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)), "{}")
		if status == http.StatusTooManyRequests {
			t.Fatalf("write %d refused: %s", i+1, body)
		}
	}
	status, h, body = call(t, srv, "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)), "{}")
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != "3540" {
		t.Fatalf("31st write: %d Retry-After %q %s", status, h.Get("Retry-After"), body)
	}
}

func TestRoutingAnswers(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	auth := bearer(seed.APIKey)
	tests := []struct {
		name      string
		method    string
		path      string
		header    http.Header
		body      string
		wantCode  int
		wantError string
		wantAllow string
	}{
		{"retired podcasts path", "GET", "/api/rest/v1/podcasts", auth, "", 404, "not_found", ""},
		{"retired podcast by id", "GET", "/api/rest/v1/podcasts/0b0e3c4e-0000-4000-8000-000000000000", auth, "", 404, "not_found", ""},
		{"unknown path without a key", "GET", "/api/rest/v1/nothing", nil, "", 404, "not_found", ""},
		{"wrong method", "DELETE", "/api/rest/v1/me", auth, "", 405, "method_not_allowed", "GET, HEAD"},
		{"wrong method on reports", "PUT", "/api/rest/v1/reports", auth, "", 405, "method_not_allowed", "GET, POST, HEAD"},
		{"write without JSON", "POST", "/api/rest/v1/reports", auth, "feed_url=x", 400, "validation_error", ""},
		{"outside the API", "GET", "/elsewhere", nil, "", 404, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := call(t, srv, tt.method, tt.path, tt.header, tt.body)
			if status != tt.wantCode || errorCode(t, body) != tt.wantError {
				t.Fatalf("%d %s, want %d %s", status, body, tt.wantCode, tt.wantError)
			}
			if h.Get("Allow") != tt.wantAllow {
				t.Fatalf("Allow %q, want %q", h.Get("Allow"), tt.wantAllow)
			}
		})
	}
}

func TestPanicsBecomeInternalErrors(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	h := srv.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret detail") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/rest/v1/me", nil))
	if rec.Code != http.StatusInternalServerError || errorCode(t, rec.Body.Bytes()) != "internal_error" || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	if _, err := srv.InjectFault(Fault{Method: "get", PathPrefix: "/api/rest/v1/me", Status: 503, Count: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.InjectFault(Fault{PathPrefix: "/api/rest/v1/", Status: 500, Count: 1}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		status, h, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
		if status != 503 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") || string(body) != "Service Unavailable" || h.Get("Retry-After") != "" {
			t.Fatalf("fault %d: %d %q %s", i+1, status, h.Get("Content-Type"), body)
		}
	}
	status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	if status != 500 || errorCode(t, body) != "internal_error" {
		t.Fatalf("500 fault: %d %s", status, body)
	}
	if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != 200 {
		t.Fatalf("after the faults: %d %s", status, body)
	}
	bad := []Fault{
		{PathPrefix: "/x", Status: 418, Count: 1},
		{PathPrefix: "/x", Status: 500, Count: -1},
		{PathPrefix: "x", Status: 500, Count: 1},
	}
	for _, f := range bad {
		var e *Error
		if _, err := srv.InjectFault(f); !errors.As(err, &e) || e.Code != "validation_error" {
			t.Errorf("InjectFault(%+v) = %v", f, err)
		}
	}
}

func TestPublicDocuments(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	repoOpenAPI, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	repoSchema, err := os.ReadFile("../schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, contentType string
		want              []byte
		contains          string
	}{
		{"/api/rest/v1/openapi.json", "application/json", repoOpenAPI, ""},
		{"/schema.graphql", "text/plain", repoSchema, ""},
		{"/api/rest/v1/docs", "text/html", nil, "/api/rest/v1/openapi.json"},
		{"/api/rest/v1/docs/assets/swagger-ui-bundle.js", "javascript", nil, "SwaggerUIBundle"},
		{"/api/rest/v1/docs/assets/swagger-ui.css", "text/css", nil, ".swagger-ui"},
	}
	for _, tt := range tests {
		// Keyless, and outside the per-key and refused-credential limits: 150 calls in a minute.
		for range 150 / len(tests) {
			status, h, body := call(t, srv, "GET", tt.path, nil, "")
			if status != 200 || !strings.Contains(h.Get("Content-Type"), tt.contentType) {
				t.Fatalf("%s: %d %s", tt.path, status, h.Get("Content-Type"))
			}
			if tt.want != nil && !bytes.Equal(body, tt.want) {
				t.Fatalf("%s is not the repository's file", tt.path)
			}
			if !bytes.Contains(body, []byte(tt.contains)) {
				t.Fatalf("%s lacks %q", tt.path, tt.contains)
			}
		}
	}
}

func TestWithoutRateLimits(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	for range 120 {
		if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != 200 {
			t.Fatalf("%d %s", status, body)
		}
	}
	for range 25 {
		if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer("wrong"), ""); status != 401 {
			t.Fatalf("refusal answered %d", status)
		}
	}
}
