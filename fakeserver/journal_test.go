package fakeserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/internal/apitime"
)

type journalAnswer struct {
	Items []struct {
		ID                   string  `json:"id"`
		At                   string  `json:"at"`
		Method               string  `json:"method"`
		Path                 string  `json:"path"`
		Query                string  `json:"query"`
		Status               int     `json:"status"`
		WorkspaceID          *string `json:"workspace_id"`
		APIKeyID             *string `json:"api_key_id"`
		MaskedKey            *string `json:"masked_key"`
		RequestContentType   string  `json:"request_content_type"`
		RequestBody          string  `json:"request_body"`
		RequestBodyTruncated bool    `json:"request_body_truncated"`
		ErrorCode            *string `json:"error_code"`
		DurationMs           float64 `json:"duration_ms"`
	} `json:"items"`
}

func listJournal(t *testing.T, srv *Server, query string) journalAnswer {
	t.Helper()
	status, _, body := call(t, srv, "GET", "/_fake/requests"+query, admin(srv), "")
	if status != http.StatusOK {
		t.Fatalf("GET /_fake/requests%s: %d %s", query, status, body)
	}
	var a journalAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestJournalRecordsRequests(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	get := bearer(seed.APIKey)
	call(t, srv, "GET", "/api/rest/v1/me", get, "")
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	// A body carrying a key and a secret, and a query carrying a key: both masked.
	call(t, srv, "POST", "/api/rest/v1/reports?x="+seed.APIKey, jsonHeader(get), `{"feed_url":"`+seed.APIKey+`","secret":"whsec_c2VjcmV0"}`)
	call(t, srv, "GET", "/api/rest/v1/reports/42", bearer("podqa_api_wrongwrongwrongwrongwrong"), "")
	call(t, srv, "POST", "/api/graphql", jsonHeader(get), `{"query":"{ nope }"}`)
	// Control calls are not journaled.
	call(t, srv, "GET", "/_fake/clock", admin(srv), "")

	a := listJournal(t, srv, "")
	if len(a.Items) != 4 {
		t.Fatalf("want 4 entries, got %+v", a.Items)
	}
	gq, bad, post, me := a.Items[0], a.Items[1], a.Items[2], a.Items[3]
	if me.Path != "/api/rest/v1/me" || me.Method != "GET" || me.Status != 200 || me.At != apitime.Format(TestStart()) ||
		me.WorkspaceID == nil || *me.WorkspaceID != seed.WorkspaceID || me.APIKeyID == nil || *me.APIKeyID != seed.APIKeyID ||
		me.MaskedKey == nil || !strings.HasSuffix(*me.MaskedKey, "…") || me.ErrorCode != nil || me.DurationMs < 0 || me.ID == "" {
		t.Errorf("GET /me entry: %+v", me)
	}
	if post.At != apitime.Format(TestStart().Add(time.Minute)) || post.Status != 400 || post.ErrorCode == nil || *post.ErrorCode != "validation_error" ||
		post.RequestContentType != "application/json" {
		t.Errorf("POST entry: %+v", post)
	}
	for _, text := range []string{post.RequestBody, post.Query} {
		if strings.Contains(text, seed.APIKey) || strings.Contains(text, "c2VjcmV0") || !strings.Contains(text, "podqa_api_") {
			t.Errorf("credential not masked: %q", text)
		}
	}
	if bad.Status != 401 || bad.WorkspaceID != nil || bad.APIKeyID != nil || bad.MaskedKey != nil || *bad.ErrorCode != "invalid_api_key" {
		t.Errorf("refused key entry: %+v", bad)
	}
	if gq.Path != "/api/graphql" || gq.ErrorCode == nil || *gq.ErrorCode == "" {
		t.Errorf("GraphQL entry: %+v", gq)
	}
	raw, _ := json.Marshal(a)
	if strings.Contains(string(raw), seed.APIKey) || strings.Contains(string(raw), srv.AdminToken()) {
		t.Fatalf("the journal shows a credential: %s", raw)
	}

	tests := []struct {
		query string
		want  int
	}{
		{"?method=post", 2},
		{"?path_prefix=/api/rest/v1/reports", 2},
		{"?status=401", 1},
		{"?workspace_id=" + seed.WorkspaceID, 3},
		{"?since=" + url.QueryEscape(apitime.Format(TestStart().Add(time.Minute))), 3},
		{"?limit=1", 1},
		{"?method=GET&status=200", 1},
	}
	for _, tt := range tests {
		if got := listJournal(t, srv, tt.query); len(got.Items) != tt.want {
			t.Errorf("%s: %d entries, want %d", tt.query, len(got.Items), tt.want)
		}
	}
	if got := srv.Requests(RequestFilter{Method: "post", PathPrefix: "/api/graphql"}); len(got) != 1 {
		t.Errorf("Go twin: %+v", got)
	}

	status, _, _ := call(t, srv, "DELETE", "/_fake/requests", admin(srv), "")
	if status != http.StatusNoContent || len(listJournal(t, srv, "").Items) != 0 {
		t.Fatalf("clear: %d", status)
	}
}

func TestJournalBadFilters(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	for _, q := range []string{"?status=abc", "?status=99", "?limit=0", "?limit=10001", "?limit=x", "?since=yesterday", "?workspace_id=42", "?method=G%20T"} {
		status, _, body := call(t, srv, "GET", "/_fake/requests"+q, admin(srv), "")
		if status != http.StatusBadRequest || errorCode(t, body) != "validation_error" {
			t.Errorf("%s: %d %s", q, status, body)
		}
	}
	if len(srv.Requests(RequestFilter{})) != 1 {
		t.Fatal("a refused filter changed the journal")
	}
}

func TestJournalBodyCapAndRing(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithJournalSize(3))
	big := `{"file_name":"` + strings.Repeat("a", MaxJournalBody) + `"}`
	call(t, srv, "POST", "/api/rest/v1/uploads", jsonHeader(bearer(seed.APIKey)), big)
	got := srv.Requests(RequestFilter{})
	if len(got) != 1 || !got[0].RequestBodyTruncated || len(got[0].RequestBody) != MaxJournalBody {
		t.Fatalf("big body: truncated=%v len=%d", got[0].RequestBodyTruncated, len(got[0].RequestBody))
	}
	for range 4 {
		call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	}
	got = srv.Requests(RequestFilter{Limit: 10})
	if len(got) != 3 {
		t.Fatalf("ring of 3 holds %d", len(got))
	}
	for _, e := range got {
		if e.Path != "/api/rest/v1/me" {
			t.Fatalf("the oldest entry was not dropped: %+v", e)
		}
	}
	off, offSeed := NewTest(t, WithJournalSize(0))
	call(t, off, "GET", "/api/rest/v1/me", bearer(offSeed.APIKey), "")
	if got := off.Requests(RequestFilter{}); len(got) != 0 {
		t.Fatalf("journal off keeps %d", len(got))
	}
}
