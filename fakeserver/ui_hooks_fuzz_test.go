package fakeserver

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// FuzzStatePage fuzzes the page a state poll names: any value answers 200 with a stamp.
func FuzzStatePage(f *testing.F) {
	for _, s := range []string{"/_fake/ui/requests?follow=1&key=podqa", "/_fake/ui/endpoints/nope", "//evil.test/", "/_fake/ui/workspaces/x/webhooks", "", "%zz", "/_fake/ui/requests?status=abc&follow=1"} {
		f.Add(s)
	}
	srv, _ := NewTest(f)
	stamp := regexp.MustCompile(`"version":"[0-9a-f]{24}"`)
	f.Fuzz(func(t *testing.T, page string) {
		w := uiDo(t, srv, uiReq{method: "GET", target: dashboard.StatePath + "?" + url.Values{"page": {page}}.Encode(), header: bearer(srv.AdminToken())})
		if w.Code != http.StatusOK || !stamp.Match(w.Body.Bytes()) {
			t.Fatalf("state of %q: %d %s", page, w.Code, w.Body)
		}
	})
}
