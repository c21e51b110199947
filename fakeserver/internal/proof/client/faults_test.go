package clientproof_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/internal/proof/faultcut"
)

// The client against the fake's faults: what a slow, cut, dropped, rate-limited or flaky
// network does to each kind of call.

// faultClient is a client of srv with the test policy (four attempts) and a fake clock; its
// HTTP client has a per-attempt timeout of attemptTimeout (0: none).
func faultClient(t *testing.T, srv *fakeserver.Server, key string, attemptTimeout time.Duration) (*client.Client, *fakeClock) {
	t.Helper()
	hc := srv.Client()
	hc.Timeout = attemptTimeout
	return newTestClient(t, srv.URL(), key, client.WithHTTPClient(hc))
}

func inject(t *testing.T, srv *fakeserver.Server, f fakeserver.Fault) string {
	t.Helper()
	id, err := srv.InjectFault(f)
	if err != nil {
		t.Fatalf("InjectFault: %v", err)
	}
	return id
}

// armed returns the armed fault with that id, or false once it is spent.
func armed(srv *fakeserver.Server, id string) (fakeserver.ArmedFault, bool) {
	for _, a := range srv.Faults() {
		if a.ID == id {
			return a, true
		}
	}
	return fakeserver.ArmedFault{}, false
}

// counter arms a fault that never fires, so that its match count counts requests.
func counter(t *testing.T, srv *fakeserver.Server, method, path string) string {
	t.Helper()
	return inject(t, srv, fakeserver.Fault{Method: method, PathPrefix: path, Latency: time.Millisecond, After: 1 << 30})
}

func matches(t *testing.T, srv *fakeserver.Server, id string) int {
	t.Helper()
	a, ok := armed(srv, id)
	if !ok {
		t.Fatalf("fault %s is not armed", id)
	}
	return a.Matches
}

// heldClient is a client of srv whose attempts time out once the fault id holds them
// (faultcut): a per-attempt timeout that neither cuts an attempt before it reaches the fake nor
// a fast one, however slow the machine.
func heldClient(t *testing.T, srv *fakeserver.Server, key, id string) (*client.Client, *fakeClock) {
	t.Helper()
	hc := srv.Client()
	hc.Transport = &faultcut.Transport{Next: hc.Transport, Server: srv, FaultID: id}
	return newTestClient(t, srv.URL(), key, client.WithHTTPClient(hc))
}

func TestFaultLatencyBeyondTheAttemptTimeout(t *testing.T) {
	t.Parallel()
	// Ten minutes of latency against a per-attempt timeout: every faulted attempt times out,
	// whatever the machine's speed, as the timeout fires once the fake holds the attempt.
	const latency = 10 * time.Minute
	t.Run("read retried past two slow answers", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		id := inject(t, srv, fakeserver.Fault{Method: "GET", PathPrefix: "/api/rest/v1/me", Latency: latency, Count: 2})
		c, clk := heldClient(t, srv, seed.APIKey, id)
		me, err := c.Me(context.Background())
		if err != nil || me.Workspace.ID != seed.WorkspaceID {
			t.Fatalf("Me = %+v, %v", me, err)
		}
		if _, still := armed(srv, id); still || len(clk.Sleeps()) != 2 {
			t.Fatalf("want both slow answers met and two backoffs; armed %v, sleeps %v", still, clk.Sleeps())
		}
	})
	t.Run("read fails with the timeout once attempts run out", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		id := inject(t, srv, fakeserver.Fault{Method: "GET", PathPrefix: "/api/rest/v1/me", Latency: latency})
		c, _ := heldClient(t, srv, seed.APIKey, id)
		_, err := c.Me(context.Background())
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("err = %v, want the attempt timeout", err)
		}
		if a, _ := armed(srv, id); a.Fired != tinyPolicy.MaxAttempts {
			t.Fatalf("attempts = %d, want %d", a.Fired, tinyPolicy.MaxAttempts)
		}
	})
	t.Run("write not retried: it may have been carried out", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		id := inject(t, srv, fakeserver.Fault{Method: "POST", PathPrefix: "/api/rest/v1/reports", Latency: latency})
		c, _ := heldClient(t, srv, seed.APIKey, id)
		_, err := c.CreateReportFromFeed(context.Background(), srv.URL()+"/_feeds/x/feed.rss", client.CreateReportParams{})
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("err = %v, want the attempt timeout", err)
		}
		if a, _ := armed(srv, id); a.Fired != 1 {
			t.Fatalf("attempts = %d, want 1", a.Fired)
		}
	})
}

// hostedWAV hosts an episode and returns its audio.
// hostedWAV returns 3 s of hosted WAV audio, the same bytes for every caller.
func hostedWAV(t *testing.T) []byte {
	t.Helper()
	audio, err := sharedWAV()
	if err != nil {
		t.Fatalf("hosted audio: %v", err)
	}
	return audio
}

// sharedWAV renders the audio of hostedWAV once per test binary: each upload test sends the same
// bytes, and a rendering costs a synthesis under -race. WAV, as the name and the uploads (a.wav,
// audio/wav) say: an MP3 costs an encode and a true-peak calibration; mono at 8 kHz, so that each
// subtest's report analyses few samples.
var sharedWAV = sync.OnceValues(func() (_ []byte, err error) {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()
	feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Src", Episodes: []fakeserver.HostedEpisode{{Title: "a", Duration: 1 * time.Second, Format: "wav"}}})
	if err != nil {
		return nil, err
	}
	ep, err := srv.AddHostedEpisode(feed.ID, fakeserver.HostedEpisode{Title: "b", Duration: 3 * time.Second, Format: "wav", SampleRate: 8000, Channels: 1})
	if err != nil {
		return nil, err
	}
	resp, err := srv.Client().Get(ep.AudioURL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", ep.AudioURL, resp.Status)
	}
	return io.ReadAll(resp.Body)
})

func TestUploadSurvivesDroppedConnections(t *testing.T) {
	t.Parallel()
	truncate := int64(5)
	tests := []struct {
		name  string
		fault fakeserver.Fault
		// puts is how many PUTs reach the fake.
		puts int
	}{
		{"PUT reset before its body", fakeserver.Fault{Method: "PUT", PathPrefix: "/_uploads/", Reset: fakeserver.ResetBeforeBody, Count: 1}, 2},
		{"PUT reset after its body", fakeserver.Fault{Method: "PUT", PathPrefix: "/_uploads/", Reset: fakeserver.ResetAfterBody, Count: 2}, 3},
		{"create reset after its body", fakeserver.Fault{Method: "POST", PathPrefix: "/api/rest/v1/reports", Reset: fakeserver.ResetAfterBody, Count: 1}, 1},
		// The report is created but its answer is cut: the retry meets 409 and reads it.
		{"create answer cut", fakeserver.Fault{Method: "POST", PathPrefix: "/api/rest/v1/reports", TruncateAfterBytes: &truncate, Count: 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seed := fakeserver.NewTest(t)
			audio := hostedWAV(t)
			c, _ := faultClient(t, srv, seed.APIKey, 0)
			reserves := counter(t, srv, "POST", "/api/rest/v1/uploads")
			puts := counter(t, srv, "PUT", "/_uploads/")
			id := inject(t, srv, tt.fault)
			created, err := c.Upload(context.Background(), bytes.NewReader(audio), client.UploadParams{FileName: "a.wav", ContentType: "audio/wav"})
			if err != nil {
				t.Fatalf("Upload: %v", err)
			}
			if _, still := armed(srv, id); still {
				t.Fatal("the fault never fired")
			}
			if n := matches(t, srv, reserves); n != 1 {
				t.Fatalf("%d reservations, want the one reused", n)
			}
			if n := matches(t, srv, puts); n != tt.puts {
				t.Fatalf("%d PUTs, want %d", n, tt.puts)
			}
			page, err := c.ListReports(context.Background(), client.ListReportsParams{})
			if err != nil || len(page.Items) != 1 || page.Items[0].ID != created.ID {
				t.Fatalf("reports %+v, %v: want the one created", page.Items, err)
			}
			// The whole file arrived: the report measures all of it.
			if _, err := srv.Advance(time.Minute); err != nil {
				t.Fatal(err)
			}
			r, err := c.GetReport(context.Background(), created.ID)
			if err != nil || r.Status != client.StatusComplete || r.FileInfo == nil {
				t.Fatalf("report %+v, %v", r, err)
			}
			if size, ok := r.FileInfo.Size.Int(); !ok || size != int64(len(audio)) {
				t.Fatalf("file_info.size %s, want %d", r.FileInfo.Size.Raw(), len(audio))
			}
		})
	}
}

func TestTruncatedAnswerIsRetriedNeverHalfDecoded(t *testing.T) {
	t.Parallel()
	cut := int64(20)
	t.Run("read retried", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		c, _ := faultClient(t, srv, seed.APIKey, 0)
		inject(t, srv, fakeserver.Fault{PathPrefix: "/api/rest/v1/me", TruncateAfterBytes: &cut, Count: 2})
		me, err := c.Me(context.Background())
		if err != nil || me.Workspace.ID != seed.WorkspaceID || me.Workspace.Name != "Demo" {
			t.Fatalf("Me = %+v, %v", me, err)
		}
	})
	t.Run("read fails whole once attempts run out", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		c, _ := faultClient(t, srv, seed.APIKey, 0)
		id := inject(t, srv, fakeserver.Fault{PathPrefix: "/api/rest/v1/me", TruncateAfterBytes: &cut})
		me, err := c.Me(context.Background())
		if me != nil || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Me = %+v, %v; want no value and an unexpected EOF", me, err)
		}
		if a, _ := armed(srv, id); a.Fired != tinyPolicy.MaxAttempts {
			t.Fatalf("attempts = %d", a.Fired)
		}
	})
	t.Run("query retried", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		c, _ := faultClient(t, srv, seed.APIKey, 0)
		inject(t, srv, fakeserver.Fault{PathPrefix: "/api/graphql", TruncateAfterBytes: &cut, Count: 3})
		resp, err := c.Do(context.Background(), client.RawRequest{Method: "POST", Path: "/api/graphql", Body: []byte(`{"query":"{ currentApiKey { maskedKey } }"}`), Idempotent: true})
		if err != nil || !strings.Contains(string(resp.Body), `"currentApiKey"`) {
			t.Fatalf("Do = %v, %v", resp, err)
		}
	})
	t.Run("write not retried", func(t *testing.T) {
		t.Parallel()
		srv, seed := fakeserver.NewTest(t)
		c, _ := faultClient(t, srv, seed.APIKey, 0)
		feed, err := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Cut", Episodes: []fakeserver.HostedEpisode{{Title: "e", Duration: 2 * time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		id := inject(t, srv, fakeserver.Fault{Method: "POST", PathPrefix: "/api/rest/v1/reports", TruncateAfterBytes: &cut})
		created, err := c.CreateReportFromFeed(context.Background(), feed.FeedURL, client.CreateReportParams{})
		if created != nil || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("CreateReportFromFeed = %+v, %v", created, err)
		}
		if a, _ := armed(srv, id); a.Fired != 1 {
			t.Fatalf("attempts = %d, want 1", a.Fired)
		}
	})
}

func TestRateLimitFaultWaitsOnTheInjectedClock(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	c, clk := faultClient(t, srv, seed.APIKey, 0)
	inject(t, srv, fakeserver.Fault{PathPrefix: "/api/rest/v1/credits", Status: http.StatusTooManyRequests, RetryAfter: 7 * time.Second, Count: 1})
	if _, err := c.GetCredits(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); len(got) != 1 || got[0] != 7*time.Second {
		t.Fatalf("sleeps = %v, want [7s]", got)
	}
	// Longer than MaxRetryAfter (a minute): the call ends at once with the wait to schedule.
	inject(t, srv, fakeserver.Fault{PathPrefix: "/api/rest/v1/credits", Status: http.StatusTooManyRequests, RetryAfter: 120 * time.Second, Count: 1})
	_, err := c.GetCredits(context.Background())
	var ae *client.APIError
	if !errors.As(err, &ae) || !errors.Is(err, client.ErrRateLimited) || ae.RetryAfter != 2*time.Minute || len(clk.Sleeps()) != 1 {
		t.Fatalf("err = %v, sleeps %v", err, clk.Sleeps())
	}
}

func TestFlakyPathEveryCallSucceedsOrFailsWithTheLastError(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	c, _ := faultClient(t, srv, seed.APIKey, 0)
	p := 0.3
	id := inject(t, srv, fakeserver.Fault{PathPrefix: "/api/rest/v1/", Status: http.StatusServiceUnavailable, Probability: &p})
	var last fakeserver.ArmedFault
	outcomes := map[bool]int{}
	for i := range 60 {
		_, err := c.GetCredits(context.Background())
		now, _ := armed(srv, id)
		attempts, faulted := now.Matches-last.Matches, now.Fired-last.Fired
		last = now
		switch {
		case err == nil && faulted == attempts-1 && attempts <= tinyPolicy.MaxAttempts:
		case err != nil && errors.Is(err, client.ErrUnavailable) && faulted == attempts && attempts == tinyPolicy.MaxAttempts:
		default:
			t.Fatalf("call %d: %d attempts, %d faulted, err %v", i, attempts, faulted, err)
		}
		outcomes[err == nil]++
	}
	if outcomes[true] == 0 {
		t.Fatalf("no call succeeded at probability 0.3: %v", outcomes)
	}
}
