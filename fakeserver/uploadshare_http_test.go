package fakeserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestUploadShareOverHTTP: through the signed upload URL, a workspace past its share of the
// upload budget is answered 507 insufficient_storage naming the share and what frees it, and
// nothing else changes: the audio it held is still there, and another workspace's upload goes
// through.
func TestUploadShareOverHTTP(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithoutRateLimits())
	const share = 64 << 10
	srv.core.SetUploadShare(share)
	off := false
	other, err := srv.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Other", ChargingEnabled: &off})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := srv.CreateAPIKey(other.ID, "")
	if err != nil {
		t.Fatal(err)
	}

	first := reserve(t, srv, seed.APIKey, 60_000)
	if status, b := put(t, srv, first.UploadURL, "audio/wav", nil, strings.Repeat("a", 48<<10)); status != http.StatusOK {
		t.Fatalf("an upload within the share: %d %s", status, b)
	}
	second := reserve(t, srv, seed.APIKey, 60_000)
	status, b := put(t, srv, second.UploadURL, "audio/wav", nil, strings.Repeat("b", 32<<10))
	if status != http.StatusInsufficientStorage || errorCode(t, b) != "insufficient_storage" {
		t.Fatalf("an upload past the share: %d %s", status, b)
	}
	for _, want := range []string{"may hold 65536, its share of the fake's upload budget", "freed once the report made from it is measured", "1h0m0s after the reservation"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the refusal %s does not say %q", b, want)
		}
	}
	if held := srv.core.HeldUploadBytes(); held != 48<<10 {
		t.Fatalf("the fake holds %d bytes after the refusal, want the first upload's %d", held, 48<<10)
	}
	third := reserve(t, srv, otherKey.Key, 60_000)
	if status, b := put(t, srv, third.UploadURL, "audio/wav", nil, strings.Repeat("c", 48<<10)); status != http.StatusOK {
		t.Fatalf("another workspace's upload beside a full share: %d %s", status, b)
	}
	if held := srv.core.HeldUploadBytes(); held != 96<<10 {
		t.Fatalf("the fake holds %d bytes, want %d", held, 96<<10)
	}
}
