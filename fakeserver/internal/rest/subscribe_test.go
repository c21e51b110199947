package rest

import (
	"strings"
	"testing"
)

// FuzzParseSubscription: any body gets an answer, never a panic; an accepted one has a url and
// events.
func FuzzParseSubscription(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"url":"https://x","events":["report.completed"]}`, `{"url":1}`, `{"url":"u","events":[1,{}]}`, `{"url":"u","events":["a"],"series_id":7}`, `nul`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		in, err := parseSubscription(strings.NewReader(body))
		if err == nil && (in.URL == "" || len(in.Events) == 0) {
			t.Fatalf("accepted %q as %+v", body, in)
		}
	})
}
