package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestSuccessBodyIsReadWhole decodes a report answered with its length declared, answered in
// chunks, and followed by something that is not JSON, which fails the call instead of being
// ignored.
func TestSuccessBodyIsReadWhole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		declare bool
		wantErr string
	}{
		{name: "length declared", body: completedReportJSON, declare: true},
		{name: "chunked", body: completedReportJSON},
		{name: "trailing garbage", body: completedReportJSON + "}{", declare: true, wantErr: "decoding the response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tt.declare {
					w.Header().Set("Content-Length", strconv.Itoa(len(tt.body)))
				} else {
					w.(http.Flusher).Flush() // no length: the answer goes in chunks
				}
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c, err := New(testKey, WithBaseURL(srv.URL), WithHTTPClient(srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.GetReport(context.Background(), reportID1)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("GetReport = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.ID != reportID1 || len(r.Results) != 14 {
				t.Fatalf("report %s with %d results, want %s with 14", r.ID, len(r.Results), reportID1)
			}
		})
	}
}
