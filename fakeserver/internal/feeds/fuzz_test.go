package feeds

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(Render(bigFeed(3)))
	f.Add([]byte(rssWithItems("", "Mon, 01 Jan 2024 10:00:00 +0000", "x", "Tue, 02 Jan 2024 12:00:00 +0200")))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := Parse(bytes.NewReader(doc))
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if fe.Kind != KindParse || fe.Message == "" {
				t.Fatalf("error = {%v %q}, want a KindParse error with a message", fe.Kind, fe.Message)
			}
			if p != nil {
				t.Fatalf("Parse returned %+v with an error", p)
			}
			return
		}
		if p == nil {
			t.Fatal("Parse returned neither a feed nor an error")
		}
		var prev *time.Time
		undated := false
		for i, e := range p.Episodes {
			if e.AudioURL == "" || e.GUID == "" {
				t.Fatalf("episode %d has AudioURL %q, GUID %q; want both", i, e.AudioURL, e.GUID)
			}
			if e.AudioLength < 0 || e.Duration < 0 {
				t.Fatalf("episode %d has negative length %d or duration %v", i, e.AudioLength, e.Duration)
			}
			if (e.Published == nil) != (e.PublishedOn == nil) {
				t.Fatalf("episode %d: Published %v but PublishedOn %v", i, e.Published, e.PublishedOn)
			}
			if e.Published == nil {
				undated = true
				continue
			}
			if undated {
				t.Fatalf("dated episode %d comes after an undated one", i)
			}
			if prev != nil && e.Published.After(*prev) {
				t.Fatalf("episode %d (%v) is newer than the one before it (%v)", i, e.Published, prev)
			}
			if on := *e.PublishedOn; on.Location() != time.UTC || on.Hour() != 0 || on.Minute() != 0 || on.Second() != 0 || on.Nanosecond() != 0 {
				t.Fatalf("episode %d: PublishedOn %v is not a midnight UTC", i, on)
			}
			prev = e.Published
		}
	})
}
