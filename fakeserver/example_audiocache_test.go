package fakeserver_test

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// A soak test that downloads the same hosted episodes many times keeps their rendered audio in
// a larger cache; a repeat download is then a copy, byte for byte the first.
func ExampleWithHostedAudioCache() {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithHostedAudioCache(256<<20))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Soak", Episodes: []fakeserver.HostedEpisode{{Title: "One", GUID: "one", Duration: 2 * time.Second}}})
	ep, _ := srv.AddHostedEpisode(feed.ID, fakeserver.HostedEpisode{Title: "Two", GUID: "two", Duration: 2 * time.Second})
	get := func() []byte {
		resp, err := srv.Client().Get(ep.AudioURL)
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	first, again := get(), get()
	fmt.Println(len(first) > 0, bytes.Equal(first, again))
	// Output: true true
}
