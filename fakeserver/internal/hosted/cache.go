package hosted

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"io"
	"sync"

	"github.com/podqa/podqa-go/internal/audio"
)

// audioKey names a hosted episode's audio by everything that determines its bytes: the
// synthesis spec (duration, rate, channels, loudness, peak, title, tags, chapters, cover). The
// synthesiser is deterministic, so equal specs make equal bytes, and an episode whose spec
// changes gets a new key: stale audio is never served.
type audioKey [sha256.Size]byte

func audioKeyOf(ep Episode) audioKey {
	// A struct of plain fields marshals the same way every time; it cannot fail.
	b, _ := json.Marshal(struct {
		Spec    audio.SynthSpec
		Format  string
		BitRate int
	}{synthSpec(ep), ep.Format, ep.BitRate})
	return sha256.Sum256(b)
}

// audioCache is a least-recently-used cache of rendered audio, bounded by total bytes.
type audioCache struct {
	max int64

	mu      sync.Mutex
	size    int64
	order   *list.List // of *audioEntry, most recently used first
	entries map[audioKey]*list.Element
}

type audioEntry struct {
	key  audioKey
	data []byte
}

func newAudioCache(maxBytes int64) *audioCache {
	return &audioCache{max: maxBytes, order: list.New(), entries: map[audioKey]*list.Element{}}
}

// get returns the audio kept under k and marks it recently used.
func (c *audioCache) get(k audioKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*audioEntry).data, true
}

// put keeps data under k, evicting the least recently used audio until it fits.
func (c *audioCache) put(k audioKey, data []byte) {
	n := int64(len(data))
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok { // two first downloads raced: the bytes are the same
		c.order.MoveToFront(e)
		return
	}
	for c.size+n > c.max {
		last := c.order.Back()
		old := c.order.Remove(last).(*audioEntry)
		delete(c.entries, old.key)
		c.size -= int64(len(old.data))
	}
	c.entries[k] = c.order.PushFront(&audioEntry{key: k, data: data})
	c.size += n
}

// stats returns how many renderings and bytes the cache holds.
func (c *audioCache) stats() (entries int, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.size
}

// capture keeps a copy of what is written through it until it has seen more than max bytes;
// then it gives up the copy, so audio too long to cache never sits in memory.
type capture struct {
	w    io.Writer
	max  int64
	buf  bytes.Buffer
	over bool
}

func (c *capture) Write(p []byte) (int, error) {
	if !c.over {
		if int64(c.buf.Len()+len(p)) > c.max {
			c.over = true
			c.buf = bytes.Buffer{}
		} else {
			c.buf.Write(p)
		}
	}
	return c.w.Write(p)
}

// writeAudio writes an episode's audio to w: from the cache when it holds it, else synthesised
// as it streams and kept for the next download when it fits.
func (h *Host) writeAudio(w io.Writer, ep Episode) error {
	if h.cache == nil {
		return h.synthesize(w, ep)
	}
	k := audioKeyOf(ep)
	if data, ok := h.cache.get(k); ok {
		_, err := w.Write(data)
		return err
	}
	c := &capture{w: w, max: h.cache.max}
	if err := h.synthesize(c, ep); err != nil {
		return err // a cut stream is never kept
	}
	if !c.over {
		h.cache.put(k, bytes.Clone(c.buf.Bytes())) // exact size: the budget counts len
	}
	return nil
}
