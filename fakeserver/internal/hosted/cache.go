package hosted

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
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

// audioCache is a least-recently-used cache of rendered audio, bounded by total bytes. An entry
// being served is pinned: it is not evicted, so the bytes a download holds are the bytes the
// cache counts. A rendering that fits only by evicting audio downloaded as often as it or more
// is not kept, so that two episodes too large to fit together, downloaded in turn, do not evict
// each other at every download (each would be rendered every time).
type audioCache struct {
	max int64

	mu      sync.Mutex
	size    int64
	order   list.List // of *audioEntry, most recently used first
	entries map[audioKey]*list.Element
	// asked counts the downloads asked of each audio (cached or not), for admission; it is
	// forgotten whole when it reaches maxAsked keys.
	asked map[audioKey]int
}

// initLocked makes the maps on the cache's first use: most fakes host no audio.
func (c *audioCache) initLocked() {
	if c.entries == nil {
		c.entries, c.asked = map[audioKey]*list.Element{}, map[audioKey]int{}
	}
}

// maxAsked bounds the download counts the cache keeps.
const maxAsked = 4096

type audioEntry struct {
	key  audioKey
	data []byte
	pins int // downloads serving data
}

func newAudioCache(maxBytes int64) *audioCache {
	return &audioCache{max: maxBytes}
}

// get returns the audio kept under k, marks it recently used and pins it until release is
// called; it counts the download either way.
func (c *audioCache) get(k audioKey) (data []byte, release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.initLocked()
	if len(c.asked) >= maxAsked {
		clear(c.asked)
	}
	c.asked[k]++
	e, ok := c.entries[k]
	if !ok {
		return nil, nil, false
	}
	c.order.MoveToFront(e)
	entry := e.Value.(*audioEntry)
	entry.pins++
	var once sync.Once
	return entry.data, func() {
		once.Do(func() {
			c.mu.Lock()
			entry.pins--
			c.mu.Unlock()
		})
	}, true
}

// peek is get without counting a download.
func (c *audioCache) peek(k audioKey) (data []byte, release func(), ok bool) {
	c.mu.Lock()
	c.initLocked()
	c.asked[k]--
	c.mu.Unlock()
	return c.get(k)
}

// put keeps data under k when it fits, evicting the least recently used audio that is neither
// pinned nor downloaded as often as k.
func (c *audioCache) put(k audioKey, data []byte) {
	n := int64(len(data))
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.initLocked()
	if e, ok := c.entries[k]; ok { // two first downloads raced: the bytes are the same
		c.order.MoveToFront(e)
		return
	}
	var victims []*list.Element
	free := c.max - c.size
	for e := c.order.Back(); e != nil && free < n; e = e.Prev() {
		old := e.Value.(*audioEntry)
		if old.pins > 0 {
			continue
		}
		if c.asked[old.key] >= c.asked[k] {
			return // k is asked for no more often than what it would evict
		}
		victims = append(victims, e)
		free += int64(len(old.data))
	}
	if free < n {
		return
	}
	for _, e := range victims {
		old := c.order.Remove(e).(*audioEntry)
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
