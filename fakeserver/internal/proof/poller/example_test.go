package pollerproof_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/poller"
)

// startFake starts a fake on its manual clock with three reports that complete one, two and
// three minutes from now, and returns it with a client for its Demo workspace.
func startFake() (*fakeserver.Server, *client.Client) {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()))
	if err != nil {
		log.Fatal(err)
	}
	seed, err := srv.SeedDemo()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := srv.SeedReports(seed.WorkspaceID, []fakeserver.SeededReport{
		{FileName: "episode-1.wav", CompleteAfter: 3 * time.Minute},
		{FileName: "episode-2.wav", CompleteAfter: time.Minute},
		{FileName: "episode-3.wav", CompleteAfter: 2 * time.Minute},
	}); err != nil {
		log.Fatal(err)
	}
	c, err := client.New(seed.APIKey, client.WithBaseURL(srv.URL()), client.WithHTTPClient(srv.Client()))
	if err != nil {
		log.Fatal(err)
	}
	return srv, c
}

// A poller with its own scheduler calls PollOnce. The state lives in a file, so that a restart
// continues where the last poll stopped.
func Example() {
	srv, c := startFake()
	defer srv.Close()

	dir, err := os.MkdirTemp("", "poller-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := poller.NewFileStore(filepath.Join(dir, "podqa-poller.json"))
	if err != nil {
		log.Fatal(err)
	}
	// The first watermark must be given; later runs read it from the store.
	p, err := poller.New(c, store, poller.WithStartWatermark("2026-01-05T09:00:00Z"), poller.WithFetchReports())
	if err != nil {
		log.Fatal(err)
	}
	handle := func(ctx context.Context, done poller.Completion) error {
		fmt.Printf("%s complete, passed: %v\n", done.Item.OriginalFilename, done.Report.Passed())
		return nil
	}

	if _, err := srv.Advance(2 * time.Minute); err != nil {
		log.Fatal(err)
	}
	res, err := p.PollOnce(context.Background(), handle)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("watermark", res.Watermark)

	if _, err := srv.Advance(time.Minute); err != nil {
		log.Fatal(err)
	}
	if _, err := p.PollOnce(context.Background(), handle); err != nil {
		log.Fatal(err)
	}
	st, err := store.Load(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored watermark", st.Watermark)
	// Output:
	// episode-3.wav complete, passed: true
	// episode-2.wav complete, passed: true
	// watermark 2026-01-05T09:01:59.000000+00:00
	// episode-1.wav complete, passed: true
	// stored watermark 2026-01-05T09:02:59.000000+00:00
}

// stopAfter is the fake's clock (its Sleep moves the fake's time instead of sleeping) that ends
// the run after a number of pauses.
type stopAfter struct {
	fakeserver.Clock
	pauses int
	stop   context.CancelFunc
}

func (c *stopAfter) Sleep(ctx context.Context, d time.Duration) error {
	if err := c.Clock.Sleep(ctx, d); err != nil {
		return err
	}
	if c.pauses--; c.pauses == 0 {
		c.stop()
	}
	return ctx.Err()
}

// Run polls every interval until its context ends. Here the fake's clock stands in for the
// wall clock, so that five-minute pauses pass at once.
func ExamplePoller_Run() {
	srv, c := startFake()
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &stopAfter{Clock: srv.Clock(), pauses: 2, stop: cancel}
	p, err := poller.New(c, poller.NewMemoryStore(),
		poller.WithStartTime(fakeserver.TestStart()),
		poller.WithInterval(5*time.Minute), poller.WithJitter(0), poller.WithClock(clk),
		poller.WithProgress(func(r poller.PollResult) {
			fmt.Printf("poll from %s: %d new\n", r.Since, r.Delivered)
		}))
	if err != nil {
		log.Fatal(err)
	}
	err = p.Run(ctx, func(ctx context.Context, done poller.Completion) error {
		fmt.Println(done.Item.OriginalFilename)
		return nil
	})
	fmt.Println("Run:", err)
	// Output:
	// poll from 2026-01-05T09:00:00.000000+00:00: 0 new
	// episode-3.wav
	// episode-2.wav
	// episode-1.wav
	// poll from 2026-01-05T09:00:00.000000+00:00: 3 new
	// Run: context canceled
}
