package hosted

import "testing"

// TestAudioCacheBudget: the cache holds at most its budget in bytes, evicting the least
// recently used audio first, never audio being served (pinned) and never for audio asked for no
// more often than what it would evict; it never keeps audio larger than the whole budget.
func TestAudioCacheBudget(t *testing.T) {
	t.Parallel()
	c := newAudioCache(10)
	key := func(b byte) audioKey { return audioKey{b} }
	pinned := map[byte]func(){}
	steps := []struct {
		name          string
		download      byte // a download: get, then put on a miss
		size          int
		keepPinned    bool // the download is still being served
		unpin         byte
		present, gone []byte
		total         int64
	}{
		{name: "first", download: 1, size: 4, present: []byte{1}, total: 4},
		{name: "second", download: 2, size: 4, present: []byte{1, 2}, total: 8},
		{name: "a hit", download: 1, present: []byte{1, 2}, total: 8},
		{name: "asked as often as the LRU: not kept", download: 3, size: 4, present: []byte{1, 2}, gone: []byte{3}, total: 8},
		{name: "asked more often: evicts the LRU", download: 3, size: 4, present: []byte{1, 3}, gone: []byte{2}, total: 8},
		{name: "over the budget", download: 4, size: 11, present: []byte{1, 3}, gone: []byte{4}, total: 8},
		{name: "served", download: 1, keepPinned: true, present: []byte{1, 3}, total: 8},
		{name: "asked often", download: 5, size: 10},
		{name: "asked often", download: 5, size: 10},
		{name: "asked often: 1 is pinned", download: 5, size: 10, present: []byte{1, 3}, gone: []byte{5}, total: 8},
		{name: "1 served out", unpin: 1},
		{name: "evicts both", download: 5, size: 10, present: []byte{5}, gone: []byte{1, 3}, total: 10},
	}
	for i, s := range steps {
		switch {
		case s.unpin != 0:
			pinned[s.unpin]()
			continue
		case s.download != 0:
			_, release, ok := c.get(key(s.download))
			switch {
			case !ok:
				c.put(key(s.download), make([]byte, s.size))
			case s.keepPinned:
				pinned[s.download] = release
			default:
				release()
			}
		}
		if s.present == nil && s.gone == nil {
			continue
		}
		c.mu.Lock()
		for _, k := range s.present {
			if _, ok := c.entries[key(k)]; !ok {
				t.Errorf("step %d (%s): %d is not cached", i, s.name, k)
			}
		}
		for _, k := range s.gone {
			if _, ok := c.entries[key(k)]; ok {
				t.Errorf("step %d (%s): %d is cached", i, s.name, k)
			}
		}
		c.mu.Unlock()
		if _, total := c.stats(); total != s.total {
			t.Errorf("step %d (%s): %d bytes cached, want %d", i, s.name, total, s.total)
		}
	}
}
