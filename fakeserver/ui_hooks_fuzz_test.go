package fakeserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/podqa/podqa-go/fakeserver/internal/dashboard"
)

// FuzzDeliveryView fuzzes what the endpoint's page reads from a delivery's body (which holds
// tenants' file names and feed titles): never a panic, each name and the indented body within
// their cuts.
func FuzzDeliveryView(f *testing.F) {
	f.Add([]byte(`{"type":"report.completed","data":{"report":{"id":"5b0d3f40-6a4e-4b8e-9c1e-000000000001","filename":"a.wav","series":{"id":"x","title":"S"},"episode":{"title":"E"}}}}`))
	f.Add([]byte(`{"data":{"series":{"title":null},"episode":{"title":"` + fiveByteText(400) + `"}}}`))
	f.Add([]byte(`{"data":{"report":null}}`))
	f.Add([]byte(`not json`))
	f.Add([]byte{0xff, 0xfe, '{'})
	srv, _ := NewTest(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		s := srv.eventSubject(body)
		for _, name := range []string{s.ReportID, s.ReportName, s.SeriesID, s.SeriesTitle, s.EpisodeTitle} {
			if utf8.RuneCountInString(name) > maxUISubject+1 {
				t.Fatalf("a name of %d characters", utf8.RuneCountInString(name))
			}
		}
		if s.ReportLink != "" && s.ReportID == "" {
			t.Fatal("a link without a report")
		}
		pretty, cut := prettyBody(body)
		if len(pretty) > maxUIDeliveryBody || cut < 0 {
			t.Fatalf("indented body of %d bytes, %d cut", len(pretty), cut)
		}
		if json.Valid(body) && cut == 0 && !json.Valid([]byte(pretty)) {
			t.Fatalf("an uncut valid body became invalid: %q", pretty)
		}
	})
}

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
