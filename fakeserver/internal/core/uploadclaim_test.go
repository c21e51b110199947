package core

import (
	"errors"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
	"github.com/podqa/podqa-go/fakeserver/internal/seeded"
)

// TestResetVoidsUploadClaims is D10 of issue 32: an upload's PUT in flight across a reset of a
// seeded fake (which makes the same reservation id again) stores nothing into the new state,
// and the held-upload-bytes count keeps the bodies still being read until their reads end (never
// negative, never forgetting them), so the budget stays true.
func TestResetVoidsUploadClaims(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(start)
	t.Cleanup(clk.Close)
	deps := newWorld().deps(0)
	deps.Rand = seeded.New(1)
	c := New(clk, deps)
	t.Cleanup(c.Close)
	state := deps.Rand.Save()
	reserve := func() Reservation {
		off := false
		ws, err := c.CreateWorkspace(NewWorkspace{Type: Personal, Name: "Ada", ChargingEnabled: &off})
		if err != nil {
			t.Fatal(err)
		}
		_, key, err := c.CreateAPIKey(ws.ID, "", false)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Authenticate(key)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Reserve(p, "episode.wav", "audio/wav", 60_000)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	const size = 1 << 20
	old := reserve()
	stored, err := c.claimUpload(old.ID, size)
	if err != nil {
		t.Fatal(err)
	}
	released, err := c.claimUpload(old.ID, size)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.HeldUploadBytes(); got != 2*size {
		t.Fatalf("held %d before the reset", got)
	}

	c.Reset(start)
	// The two bodies are still being read: their buffers exist, so the budget counts them.
	if got := c.HeldUploadBytes(); got != 2*size {
		t.Fatalf("held %d just after the reset, want the %d bytes still being read", got, 2*size)
	}
	if err := deps.Rand.Restore(state); err != nil {
		t.Fatal(err)
	}
	again := reserve()
	if again.ID != old.ID {
		t.Fatalf("the seeded source made %s, not %s again", again.ID, old.ID)
	}
	var refusal *Error
	if err := c.storeClaimedUpload(stored, uploadAudio{make([]byte, size)}); !errors.As(err, &refusal) || refusal.Code != CodeNotFound {
		t.Fatalf("storing an old claim: %v, want not_found", err)
	}
	c.releaseUpload(released)
	if got := c.HeldUploadBytes(); got != 0 {
		t.Fatalf("held %d after the old claims ended, want 0", got)
	}
	if got := c.WorkspaceUploadBytes(again.Workspace); got != 0 {
		t.Fatalf("the new workspace (the old one's id again) holds %d after the old claims ended, want 0", got)
	}
	if res, _ := c.Reservation(again.ID); res.audio != nil {
		t.Fatal("the new reservation holds the old upload's audio")
	}
	// The new state's own claim works and counts.
	claim, err := c.claimUpload(again.ID, size)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.storeClaimedUpload(claim, uploadAudio{make([]byte, size)}); err != nil || c.HeldUploadBytes() != size {
		t.Fatalf("a new claim: %v, held %d", err, c.HeldUploadBytes())
	}
}
