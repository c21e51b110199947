package fakeserver_test

import (
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/fakeserver"
)

// A suite's start state with its own key, a reset between tests, and the request journal.
func ExampleWithFixtures() {
	fixtures, err := fakeserver.LoadFixtures(strings.NewReader(`{
	  "workspaces": [{"ref": "acme", "type": "organisation", "name": "Acme Audio",
	    "api_keys": [{"ref": "ci", "key": "podqa_api_example_0123456789abcdef"}]}]}`))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := fakeserver.New(fakeserver.WithFixtures(fixtures), fakeserver.WithSeed(42),
		fakeserver.WithManualClock(fakeserver.TestStart()))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
	req.Header.Set("Authorization", "Bearer podqa_api_example_0123456789abcdef")
	resp, err := srv.Client().Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()

	for _, e := range srv.Requests(fakeserver.RequestFilter{Method: "GET"}) {
		fmt.Println(e.Method, e.Path, e.Status, e.WorkspaceID == srv.Fixtures().Workspaces["acme"], e.MaskedKey)
	}
	before := srv.Fixtures().APIKeys["ci"]
	if _, err := srv.Reset(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(srv.Requests(fakeserver.RequestFilter{})), srv.Fixtures().APIKeys["ci"] == before)
	// Output:
	// GET /api/rest/v1/me 200 true podqa_api_exampl…
	// 0 true
}
