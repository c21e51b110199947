package ctxsleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	if err := Sleep(ctx, 0); err != nil {
		t.Fatalf("zero wait on a live context: %v", err)
	}
	if err := Sleep(ctx, time.Nanosecond); err != nil {
		t.Fatalf("a wait that ends: %v", err)
	}
	cancel()
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("zero wait on a done context: %v", err)
	}
	// A cancelled context ends even an hour's wait at once.
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("long wait on a done context: %v", err)
	}
}
