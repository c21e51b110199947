package fakeserver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/faults"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// TestFaultRetryAfterBounded is D16 of issue 32: a retry_after_s that would overflow a Duration
// (from 9223372037) is refused, through the control API and the Go API, and the largest allowed
// still sends its Retry-After.
func TestFaultRetryAfterBounded(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	maxS := int(faults.MaxRetryAfter / time.Second)
	for _, n := range []int{maxS + 1, 9223372036, 9223372037, 1 << 62} {
		body := `{"path_prefix":"/api","status":429,"retry_after_s":` + strconv.Itoa(n) + `}`
		if status, _, answer := call(t, srv, "POST", "/_fake/faults", admin(srv), body); status != http.StatusBadRequest || errorCode(t, answer) != "validation_error" {
			t.Errorf("retry_after_s %d: %d %s", n, status, answer)
		}
		if _, err := srv.InjectFault(Fault{PathPrefix: "/api", Status: http.StatusTooManyRequests, RetryAfter: httpmw.Scaled(int64(n), time.Second)}); err == nil {
			t.Errorf("InjectFault with retry_after_s %d armed", n)
		}
	}
	if got := srv.Faults(); len(got) != 0 {
		t.Fatalf("a refused fault was armed: %+v", got)
	}
	armFault(t, srv, `{"path_prefix":"/api/rest/v1/me","status":429,"retry_after_s":`+strconv.Itoa(maxS)+`,"count":1}`)
	status, h, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != strconv.Itoa(maxS) {
		t.Fatalf("%d, Retry-After %q", status, h.Get("Retry-After"))
	}
}
