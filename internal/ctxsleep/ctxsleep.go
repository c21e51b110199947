// Package ctxsleep waits for a duration or until a context ends, for the SDK packages' retry,
// wait and poll loops.
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done and then returns its error. A d of zero or less returns
// at once, with ctx's error if it is already done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
