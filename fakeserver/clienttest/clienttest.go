// Package clienttest sets up tests of code built on the podqa SDK: a fake of the service with
// a client bound to it. (A clock moved by hand, for tests without a fake, is client.ManualClock.)
//
// A client from New or NewClient calls the fake over its in-process HTTP client and runs on the
// fake's clock (fakeserver's Server.Clock), so that a retry pause, a Retry-After or a
// WaitForReport moves the fake's time instead of waiting: the code under test finishes at once.
// Give the same clock to what is built on the client: graphqlclient and poller take the
// client's by default; a webhook receiver takes it as
// webhook.NewHandler(secret, fn, webhook.WithVerifierOptions(webhook.WithClock(srv.Clock())))
// or webhook.NewVerifier(secret, webhook.WithClock(srv.Clock())), since the fake signs each
// delivery with its own time (Example_webhookReceiver shows it); or the fake stamps deliveries
// with the wall clock (New(t, fakeserver.WithWebhookClock(fakeserver.WebhookClockWall))) and the
// receiver keeps its own.
package clienttest

import (
	"testing"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
)

// New starts a fake of the service for t as fakeserver.NewTest does (a manual clock at
// fakeserver.TestStart, the demo workspace, closed when the test ends) and returns it with a
// client of the demo workspace's key bound to it (see NewClient). opts configure the fake.
func New(t testing.TB, opts ...fakeserver.Option) (*fakeserver.Server, *client.Client) {
	t.Helper()
	srv, seed := fakeserver.NewTest(t, opts...)
	return srv, NewClient(t, srv, seed.APIKey)
}

// NewClient returns a client of apiKey bound to srv: its URL, its in-process HTTP client and
// its clock. opts come after those and can override them. It fails t if the client cannot be
// made.
func NewClient(t testing.TB, srv *fakeserver.Server, apiKey string, opts ...client.Option) *client.Client {
	t.Helper()
	all := append([]client.Option{
		client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()), client.WithClock(srv.Clock()),
	}, opts...)
	c, err := client.New(apiKey, all...)
	if err != nil {
		t.Fatalf("clienttest: %v", err)
	}
	return c
}

// The fake's clock is a client.Clock; the fake satisfies the interface without importing the SDK.
var _ client.Clock = fakeserver.Clock{}
