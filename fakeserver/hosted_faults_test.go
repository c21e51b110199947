package fakeserver

import (
	"io"
	"testing"
	"time"
)

// TestThrottleEndsWithItsFault (D17): a 1 B/s throttle on hosted audio (a 1 s WAV would take
// hours) stops slowing the download once the fault is removed, cleared or the fake reset: the
// rest of the body arrives (the bound is the test's timeout, not a clock).
func TestThrottleEndsWithItsFault(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"remove", "clear", "reset"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			srv, _ := NewTest(t)
			feed, err := srv.HostFeed(HostedFeedSpec{Title: "Slow", Episodes: []HostedEpisode{{Title: "One", GUID: "one", Duration: 1 * time.Second, SampleRate: 8000, Channels: 1, Format: "wav"}}})
			if err != nil {
				t.Fatal(err)
			}
			url := srv.host.AudioURLs(mustUUID(t, feed.ID))[0]
			id, err := srv.InjectFault(Fault{PathPrefix: "/_feeds/", ThrottleBytesPerS: 1})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Get(url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if _, err := io.ReadFull(resp.Body, make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			switch end {
			case "remove":
				err = srv.RemoveFault(id)
			case "clear":
				srv.ClearFaults()
			case "reset":
				_, err = srv.Reset()
			}
			if err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(resp.Body)
			if err != nil || int64(len(rest))+1 != resp.ContentLength {
				t.Errorf("after %s: %d bytes, %v; want the other %d", end, len(rest), err, resp.ContentLength-1)
			}
		})
	}
}
