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
