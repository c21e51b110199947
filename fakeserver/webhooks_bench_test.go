package fakeserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkDeliverTestEvent measures one event delivered end to end to a local receiver that
// answers at once: the body built, a delivery logged, the attempt signed, sent over HTTP, and
// its outcome recorded. Each iteration is one event; events/s is reported.
func BenchmarkDeliverTestEvent(b *testing.B) {
	srv, seed := NewTest(b, WithPrivateURLs(true))
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(receiver.Close)
	ep, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, WebhookEndpointSpec{URL: receiver.URL + "/hook", Events: []string{"report.completed"}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	began := time.Now()
	n := 0
	for b.Loop() {
		d, err := srv.SendTestEvent(ctx, ep.ID)
		if err != nil || d.Status != "succeeded" {
			b.Fatalf("%+v %v", d, err)
		}
		n++
	}
	b.ReportMetric(float64(n)/time.Since(began).Seconds(), "events/s")
}

// BenchmarkDeliverTestEventParallel is BenchmarkDeliverTestEvent from several goroutines at
// once, each sending to its own endpoint and receiver path.
func BenchmarkDeliverTestEventParallel(b *testing.B) {
	srv, seed := NewTest(b, WithPrivateURLs(true))
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(receiver.Close)
	var ids []string
	for i := range 5 {
		ep, err := srv.CreateWebhookEndpoint(context.Background(), seed.WorkspaceID, WebhookEndpointSpec{URL: receiver.URL + "/hook/" + itoa(i), Events: []string{"report.completed"}})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, ep.ID)
	}
	ctx := context.Background()
	b.ReportAllocs()
	began := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if _, err := srv.SendTestEvent(ctx, ids[i%len(ids)]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "events/s")
}

// BenchmarkDeliveryLadder measures TestDeliveryLadder's work: a delivery to a receiver that
// always answers 500, retried ten times over 28 hours of fake time and abandoned. Each iteration
// is one whole ladder, to a new endpoint of the same fake.
func BenchmarkDeliveryLadder(b *testing.B) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	b.Cleanup(receiver.Close)
	srv, seed := NewTest(b, WithPrivateURLs(true), WithWebhookTimeout(5*time.Second))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ep, err := srv.CreateWebhookEndpoint(ctx, seed.WorkspaceID, WebhookEndpointSpec{URL: receiver.URL + "/hook", Events: []string{"report.completed"}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := srv.SendTestEvent(ctx, ep.ID); err != nil {
			b.Fatal(err)
		}
		if _, err := srv.Advance(30 * time.Hour); err != nil {
			b.Fatal(err)
		}
		ds, err := srv.WebhookDeliveries(ep.ID)
		if err != nil || len(ds) != 1 || ds[0].Status != "abandoned" || ds[0].Attempts != 10 {
			b.Fatalf("%+v %v", ds, err)
		}
	}
}
