package pollertest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollertest"
)

// blobStore is a custom poller.Store that keeps the state as one encoded value, as a store on
// an object store or a key-value database would: poller.MarshalState and
// poller.UnmarshalState do the encoding, and refuse what they cannot read.
type blobStore struct {
	mu   sync.Mutex
	blob []byte
}

func (s *blobStore) Load(context.Context) (poller.State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blob == nil {
		return poller.State{}, nil
	}
	return poller.UnmarshalState(s.blob)
}

func (s *blobStore) Save(_ context.Context, st poller.State) error {
	data, err := poller.MarshalState(st)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blob = data
	return nil
}

// TestBlobStore is the custom store's contract test: the same table the SDK's own stores pass.
// It is not a LeaseStore, so the lease cases are not run and Elapse and Short are not needed.
func TestBlobStore(t *testing.T) {
	t.Parallel()
	pollertest.TestStore(t, pollertest.Harness{
		New: func(*testing.T) poller.Store { return &blobStore{} },
		Corrupt: func(_ *testing.T, s poller.Store, data []byte) {
			b := s.(*blobStore)
			b.mu.Lock()
			defer b.mu.Unlock()
			b.blob = data
		},
	})
}

// A custom store passes the contract in its test (TestBlobStore above runs
// pollertest.TestStore on it), then goes to poller.New in place of a FileStore.
func Example_customStore() {
	ctx := context.Background()
	s := &blobStore{}
	err := s.Save(ctx, poller.State{Watermark: "2026-01-05T09:00:00.000000+00:00"})
	st, _ := s.Load(ctx)
	fmt.Println(st.Watermark, err)
	fmt.Println("refused:", s.Save(ctx, poller.State{Watermark: "yesterday"}) != nil)
	// Output:
	// 2026-01-05T09:00:00.000000+00:00 <nil>
	// refused: true
}
