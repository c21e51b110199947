package webhook

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/client"
)

// FuzzVerify feeds arbitrary headers and bodies to Verify. It must never panic, must return
// nil or one of its sentinels, and, whenever the timestamp is acceptable, must agree with the
// standard-webhooks library on whether the signature matches.
func FuzzVerify(f *testing.F) {
	f.Add(refID, strconv.FormatInt(refTimestamp, 10), refSignature, []byte(refBody))
	f.Add(refID, strconv.FormatInt(refTimestamp, 10), "v1,bad "+refSignature, []byte(refBody))
	f.Add(refID, strconv.FormatInt(refTimestamp, 10), refSignature, []byte(refBody+" "))
	f.Add("", "", "", []byte(nil))
	f.Add("id", "+1614265330", "v1,,, v1", []byte("{}"))
	f.Add("id", "01614265330", "v2,abc", []byte("{}"))
	f.Add("id", "99999999999999999999999", "v1,"+refSignature[3:]+",x", []byte("{}"))

	v, err := NewVerifier(refSecret, WithClock(client.NewManualClock(time.Unix(refTimestamp, 0))))
	if err != nil {
		f.Fatal(err)
	}
	lib, err := standardwebhooks.NewWebhook(refSecret)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		err := v.Verify(h, body)
		switch {
		case err == nil, errors.Is(err, ErrInvalidSignature):
			// The timestamp passed our checks, so it is canonical and the library signs the
			// same string: both must reach the same verdict.
			libErr := lib.VerifyIgnoringTimestamp(body, h)
			if (err == nil) != (libErr == nil) {
				t.Fatalf("Verify = %v but library = %v (id %q ts %q sig %q)", err, libErr, id, ts, sig)
			}
		case errors.Is(err, ErrMissingHeaders), errors.Is(err, ErrInvalidTimestamp),
			errors.Is(err, ErrTimestampTooOld), errors.Is(err, ErrTimestampTooNew):
		default:
			t.Fatalf("Verify returned an error outside its sentinels: %v", err)
		}
	})
}

// FuzzParse feeds arbitrary bodies to Parse. It must never panic; an error must wrap
// ErrMalformedPayload and come with a zero Event; a success must have a type, and typed data
// exactly when the type is known.
func FuzzParse(f *testing.F) {
	for _, p := range []string{payloadCompleted, payloadFailed, payloadOutOfQuota, payloadTest,
		payloadEpisodeCreated, payloadFeedBroken, payloadFeedBrokenNullError, payloadUnknown,
		`{}`, `null`, `{"type":"report.completed","timestamp":"2026-01-05T09:00:00Z","data":{"report":{}}}`} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := Parse(body)
		if err != nil {
			if !errors.Is(err, ErrMalformedPayload) {
				t.Fatalf("error without ErrMalformedPayload: %v", err)
			}
			if e.Type != "" || e.Report != nil || e.EpisodeCreated != nil || e.FeedBroken != nil || e.Data != nil {
				t.Fatalf("partial event with error: %+v", e)
			}
			return
		}
		if e.Type == "" || e.Timestamp.Location() != time.UTC {
			t.Fatalf("event without type or non-UTC timestamp: %+v", e)
		}
		typed := 0
		for _, set := range []bool{e.Report != nil, e.EpisodeCreated != nil, e.FeedBroken != nil} {
			if set {
				typed++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[e.Type.IsKnown()]; typed != want {
			t.Fatalf("type %q has %d typed data, want %d", e.Type, typed, want)
		}
	})
}
