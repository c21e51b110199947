package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// maxFeedBytes bounds the feed document -sample reads.
const maxFeedBytes = 8 << 20

// rss is the part of an RSS feed -sample reads: each item's title and enclosure, newest first
// as feeds list them.
type rss struct {
	Items []struct {
		Title     string `xml:"title"`
		Enclosure struct {
			URL string `xml:"url,attr"`
		} `xml:"enclosure"`
	} `xml:"channel>item"`
}

// saveEpisode saves the audio of the episode of the feed at feedURL that lies back episodes
// from the newest to path.
func saveEpisode(ctx context.Context, out io.Writer, feedURL string, back int, path string) error {
	body, err := get(ctx, feedURL)
	if err != nil {
		return err
	}
	var feed rss
	err = xml.NewDecoder(io.LimitReader(body, maxFeedBytes)).Decode(&feed)
	body.Close()
	if err != nil {
		return fmt.Errorf("reading the feed: %w", err)
	}
	if back >= len(feed.Items) {
		return fmt.Errorf("the feed has %d episodes; -episode %d is past the oldest", len(feed.Items), back)
	}
	item := feed.Items[back]
	if item.Enclosure.URL == "" {
		return fmt.Errorf("episode %q has no enclosure", item.Title)
	}
	audio, err := get(ctx, item.Enclosure.URL)
	if err != nil {
		return err
	}
	defer audio.Close()
	// Write beside the target and rename, so that a failed download leaves no partial file.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sample-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, audio)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("downloading %q: %w", item.Title, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	fmt.Fprintf(out, "saved %q to %s (%d bytes)\n", item.Title, path, n)
	return nil
}

// get fetches url and returns the body of a 200 answer.
func get(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}
