package clienttest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/webhook"
)

// A webhook receiver under test verifies deliveries on the fake's clock: the fake signs each
// attempt with its own time (here TestStart, in 2026), which the system clock would refuse as
// outside the tolerance. A Handler takes the clock through WithVerifierOptions, since WithClock
// configures its Verifier.
func Example_webhookReceiver() {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithPrivateURLs(true))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	demo, err := srv.SeedDemo()
	if err != nil {
		panic(err)
	}

	received := make(chan webhook.Event, 1)
	handler := http.NewServeMux()
	receiver := httptest.NewServer(handler) // on loopback, which WithPrivateURLs lets the fake reach
	defer receiver.Close()
	ep, err := srv.CreateWebhookEndpoint(context.Background(), demo.WorkspaceID, fakeserver.WebhookEndpointSpec{
		URL: receiver.URL + "/hook", Events: []string{"report.completed"},
	})
	if err != nil {
		panic(err)
	}
	hook, err := webhook.NewHandler(ep.Secret, func(_ context.Context, e webhook.Event) error {
		received <- e
		return nil
	}, webhook.WithVerifierOptions(webhook.WithClock(srv.Clock())))
	if err != nil {
		panic(err)
	}
	handler.Handle("POST /hook", hook)

	d, err := srv.SendTestEvent(context.Background(), ep.ID)
	if err != nil {
		panic(err)
	}
	// SendTestEvent returns after the first attempt, so a verified event has been handled.
	select {
	case e := <-received:
		fmt.Println(d.Status, e.Type, e.Test, e.Timestamp.Equal(srv.Now()))
	default:
		fmt.Println(d.Status, "and nothing handled")
	}
	// Output: succeeded report.completed true true
}
