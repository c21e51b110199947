package fakeserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/fakeserver"
)

// A test adds a webhook endpoint as Settings would, sends Settings' test event to a local
// receiver, and verifies the signature with the endpoint's secret.
func ExampleServer_SendTestEvent() {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithPrivateURLs(true))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	seed, err := srv.SeedDemo()
	if err != nil {
		panic(err)
	}
	verified := make(chan error, 1)
	secrets := make(chan string, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		wh, err := standardwebhooks.NewWebhook(<-secrets)
		if err == nil {
			// The timestamp is the fake clock's: a receiver under test checks it against that.
			err = wh.VerifyIgnoringTimestamp(body, r.Header)
		}
		verified <- err
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	ep, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, fakeserver.WebhookEndpointSpec{
		URL: receiver.URL + "/podqa", Events: []string{"report.completed"},
	})
	if err != nil {
		panic(err)
	}
	secrets <- ep.Secret
	d, err := srv.SendTestEvent(context.Background(), ep.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.EventType, d.Status, *d.ResponseCode, d.FailedAttempts)
	fmt.Println("signature verified:", <-verified == nil)
	// Output:
	// report.completed succeeded 204 0
	// signature verified: true
}
