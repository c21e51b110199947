package hosted

import "testing"

// TestAudioCacheBudget: the cache holds at most its budget in bytes, evicting the least
// recently used audio first, and never keeps audio larger than the whole budget.
func TestAudioCacheBudget(t *testing.T) {
	t.Parallel()
	c := newAudioCache(10)
	key := func(b byte) audioKey { return audioKey{b} }
	steps := []struct {
		put     byte
		size    int
		get     byte // 0: no get
		present []byte
		absent  []byte
		total   int64
	}{
		{put: 1, size: 4, present: []byte{1}, total: 4},
		{put: 2, size: 4, present: []byte{1, 2}, total: 8},
		{get: 1}, // 1 is now the most recently used
		{put: 3, size: 4, present: []byte{1, 3}, absent: []byte{2}, total: 8},
		{put: 4, size: 11, present: []byte{1, 3}, absent: []byte{4}, total: 8}, // over the budget
		{put: 5, size: 10, present: []byte{5}, absent: []byte{1, 3}, total: 10},
	}
	for i, s := range steps {
		if s.get != 0 {
			if _, ok := c.get(key(s.get)); !ok {
				t.Fatalf("step %d: %d is not cached", i, s.get)
			}
			continue
		}
		c.put(key(s.put), make([]byte, s.size))
		for _, k := range s.present {
			if _, ok := c.get(key(k)); !ok {
				t.Errorf("step %d: %d was evicted", i, k)
			}
		}
		for _, k := range s.absent {
			if _, ok := c.get(key(k)); ok {
				t.Errorf("step %d: %d is cached", i, k)
			}
		}
		if _, total := c.stats(); total != s.total {
			t.Errorf("step %d: %d bytes cached, want %d", i, total, s.total)
		}
	}
}
