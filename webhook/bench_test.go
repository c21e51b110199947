package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/client"
)

// bench64KiB is a 64 KiB body, signed at the reference time.
func bench64KiB(b *testing.B) ([]byte, *Verifier) {
	b.Helper()
	body := make([]byte, 64<<10)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	v, err := NewVerifier(refSecret, WithClock(client.NewManualClock(time.Unix(refTimestamp, 0))))
	if err != nil {
		b.Fatal(err)
	}
	return body, v
}

// BenchmarkVerify64KiB is the whole of Verify on a 64 KiB body with one signature.
func BenchmarkVerify64KiB(b *testing.B) {
	body, v := bench64KiB(b)
	h := signedHeader(b, refSecret, refID, time.Unix(refTimestamp, 0), body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(h, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHMACSHA256_64KiB is the floor: a bare HMAC-SHA256 of the same signed string.
func BenchmarkHMACSHA256_64KiB(b *testing.B) {
	body, v := bench64KiB(b)
	ts := strconv.FormatInt(refTimestamp, 10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		m := hmac.New(sha256.New, v.key)
		m.Write([]byte(refID + "." + ts + "."))
		m.Write(body)
		m.Sum(nil)
	}
}

// BenchmarkLibraryVerify64KiB is the standard-webhooks library's own Verify on the same input
// (it reads the wall clock, so it is signed now), for comparison.
func BenchmarkLibraryVerify64KiB(b *testing.B) {
	body, _ := bench64KiB(b)
	lib, err := standardwebhooks.NewWebhook(refSecret)
	if err != nil {
		b.Fatal(err)
	}
	h := signedHeader(b, refSecret, refID, time.Now(), body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := lib.Verify(body, h); err != nil {
			b.Fatal(err)
		}
	}
}
