package webhook

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/podqa/podqa-go/client"
)

func refVerifier(t *testing.T, opts ...VerifierOption) *Verifier {
	t.Helper()
	v, err := NewVerifier(refSecret, append([]VerifierOption{WithClock(client.NewManualClock(time.Unix(refTimestamp, 0)))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func refHeader(sig string) http.Header {
	h := http.Header{}
	h.Set(HeaderID, refID)
	h.Set(HeaderTimestamp, strconv.FormatInt(refTimestamp, 10))
	h.Set(HeaderSignature, sig)
	return h
}

func TestVerifyReferenceVector(t *testing.T) {
	t.Parallel()
	v := refVerifier(t)
	if err := v.Verify(refHeader(refSignature), []byte(refBody)); err != nil {
		t.Fatalf("reference vector: %v", err)
	}
	// The library signs the vector to the same value, so the two agree on what is valid.
	wh, err := standardwebhooks.NewWebhook(refSecret)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := wh.Sign(refID, time.Unix(refTimestamp, 0), []byte(refBody))
	if err != nil || sig != refSignature {
		t.Fatalf("library Sign = %q, %v; want %q", sig, err, refSignature)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	otherSig := signedHeader(t, otherSecret, refID, time.Unix(refTimestamp, 0), []byte(refBody)).Get(HeaderSignature)
	tests := []struct {
		name   string
		header func(h http.Header)
		body   string
		want   error // nil for success
	}{
		{name: "reference", want: nil},
		{name: "match second of several", header: func(h http.Header) { h.Set(HeaderSignature, otherSig+" "+refSignature) }},
		{name: "match first of several", header: func(h http.Header) { h.Set(HeaderSignature, refSignature+" "+otherSig) }},
		{name: "unknown versions skipped", header: func(h http.Header) {
			h.Set(HeaderSignature, "v1a,"+refSignature[3:]+" v2,abc "+refSignature)
		}},
		{name: "extra spaces between tokens", header: func(h http.Header) { h.Set(HeaderSignature, otherSig+"  "+refSignature) }},
		{name: "tampered body", body: `{"test": 2432232315}`, want: ErrInvalidSignature},
		{name: "body with extra whitespace", body: `{"test":  2432232314}`, want: ErrInvalidSignature},
		{name: "tampered id", header: func(h http.Header) { h.Set(HeaderID, refID+"x") }, want: ErrInvalidSignature},
		{name: "other secret only", header: func(h http.Header) { h.Set(HeaderSignature, otherSig) }, want: ErrInvalidSignature},
		{name: "signature without version", header: func(h http.Header) { h.Set(HeaderSignature, refSignature[3:]) }, want: ErrInvalidSignature},
		{name: "right signature, wrong version", header: func(h http.Header) { h.Set(HeaderSignature, "v2,"+refSignature[3:]) }, want: ErrInvalidSignature},
		{name: "truncated signature", header: func(h http.Header) { h.Set(HeaderSignature, refSignature[:len(refSignature)-1]) }, want: ErrInvalidSignature},
		{name: "raw signature bytes, not base64", header: func(h http.Header) { h.Set(HeaderSignature, "v1,"+strings.Repeat("A", 44)) }, want: ErrInvalidSignature},
		{name: "missing id", header: func(h http.Header) { h.Del(HeaderID) }, want: ErrMissingHeaders},
		{name: "missing timestamp", header: func(h http.Header) { h.Del(HeaderTimestamp) }, want: ErrMissingHeaders},
		{name: "missing signature", header: func(h http.Header) { h.Del(HeaderSignature) }, want: ErrMissingHeaders},
		{name: "empty signature", header: func(h http.Header) { h.Set(HeaderSignature, "") }, want: ErrMissingHeaders},
		{name: "timestamp not a number", header: func(h http.Header) { h.Set(HeaderTimestamp, "yesterday") }, want: ErrInvalidTimestamp},
		{name: "timestamp with sign", header: func(h http.Header) { h.Set(HeaderTimestamp, "+1614265330") }, want: ErrInvalidTimestamp},
		{name: "timestamp negative", header: func(h http.Header) { h.Set(HeaderTimestamp, "-1614265330") }, want: ErrInvalidTimestamp},
		{name: "timestamp leading zero", header: func(h http.Header) { h.Set(HeaderTimestamp, "01614265330") }, want: ErrInvalidTimestamp},
		{name: "timestamp fractional", header: func(h http.Header) { h.Set(HeaderTimestamp, "1614265330.5") }, want: ErrInvalidTimestamp},
		{name: "timestamp in milliseconds is too new", header: func(h http.Header) { h.Set(HeaderTimestamp, "1614265330000") }, want: ErrTimestampTooNew},
		{name: "timestamp overflows", header: func(h http.Header) { h.Set(HeaderTimestamp, "99999999999999999999") }, want: ErrInvalidTimestamp},
		{name: "timestamp zero is too old", header: func(h http.Header) { h.Set(HeaderTimestamp, "0") }, want: ErrTimestampTooOld},
	}
	v := refVerifier(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := refHeader(refSignature)
			if tt.header != nil {
				tt.header(h)
			}
			body := refBody
			if tt.body != "" {
				body = tt.body
			}
			err := v.Verify(h, []byte(body))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestVerifyTolerance moves the clock around a delivery signed at the reference time.
func TestVerifyTolerance(t *testing.T) {
	t.Parallel()
	sent := time.Unix(refTimestamp, 0)
	tests := []struct {
		name      string
		clock     time.Duration // receiver's clock minus the send time
		tolerance time.Duration // 0: default
		want      error
	}{
		{"same second", 0, 0, nil},
		{"4m59s late", 4*time.Minute + 59*time.Second, 0, nil},
		{"exactly 5m late", 5 * time.Minute, 0, nil},
		{"5m1s late", 5*time.Minute + time.Second, 0, ErrTimestampTooOld},
		{"an hour late", time.Hour, 0, ErrTimestampTooOld},
		{"exactly 5m early", -5 * time.Minute, 0, nil},
		{"5m1s early", -5*time.Minute - time.Second, 0, ErrTimestampTooNew},
		{"a day early", -24 * time.Hour, 0, ErrTimestampTooNew},
		{"10m late within 15m tolerance", 10 * time.Minute, 15 * time.Minute, nil},
		{"31s late beyond 30s tolerance", 31 * time.Second, 30 * time.Second, ErrTimestampTooOld},
		{"31s early beyond 30s tolerance", -31 * time.Second, 30 * time.Second, ErrTimestampTooNew},
		// Sub-second clock offsets count: the header has whole seconds.
		{"5m and 1ns late", 5*time.Minute + 1, 0, ErrTimestampTooOld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := []VerifierOption{WithClock(client.NewManualClock(sent.Add(tt.clock)))}
			if tt.tolerance != 0 {
				opts = append(opts, WithTolerance(tt.tolerance))
			}
			v, err := NewVerifier(refSecret, opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = v.Verify(refHeader(refSignature), []byte(refBody))
			if tt.want == nil && err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestVerifyAgreesWithLibrary checks that, timestamp aside, Verify accepts what the library's
// verification accepts and rejects what it rejects.
func TestVerifyAgreesWithLibrary(t *testing.T) {
	t.Parallel()
	v := refVerifier(t)
	wh, err := standardwebhooks.NewWebhook(refSecret)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []string{
		refSignature,
		"v1," + refSignature[3:] + ",trailing",
		"v1,x " + refSignature,
		"v1," + refSignature[3:len(refSignature)-1],
		"v1",
		",,, ,",
		"v2," + refSignature[3:],
	} {
		h := refHeader(sig)
		got := v.Verify(h, []byte(refBody))
		lib := wh.VerifyIgnoringTimestamp([]byte(refBody), h)
		if (got == nil) != (lib == nil) {
			t.Errorf("signature %q: Verify = %v, library = %v", sig, got, lib)
		}
	}
}

func TestNewVerifierErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
		opts   []VerifierOption
		want   error
	}{
		{"empty", "", nil, ErrInvalidSecret},
		{"prefix only", "whsec_", nil, ErrInvalidSecret},
		{"no prefix", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", nil, ErrInvalidSecret},
		{"api key by mistake", "podqa_api_0123456789abcdef", nil, ErrInvalidSecret},
		{"not base64", "whsec_not*base64!", nil, ErrInvalidSecret},
		{"url-safe base64", "whsec_-_-_", nil, ErrInvalidSecret},
		{"bad padding", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", nil, ErrInvalidSecret},
		{"nil clock", refSecret, []VerifierOption{WithClock(nil)}, ErrInvalidOption},
		{"zero tolerance", refSecret, []VerifierOption{WithTolerance(0)}, ErrInvalidOption},
		{"negative tolerance", refSecret, []VerifierOption{WithTolerance(-time.Second)}, ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := NewVerifier(tt.secret, tt.opts...)
			if !errors.Is(err, tt.want) || v != nil {
				t.Fatalf("NewVerifier = %v, %v; want nil, %v", v, err, tt.want)
			}
			if len(tt.secret) > len("whsec_") && strings.Contains(err.Error(), tt.secret[6:]) {
				t.Fatalf("error %q reveals the secret", err)
			}
		})
	}
}

func TestVerifyErrorsDoNotEchoHugeHeaders(t *testing.T) {
	t.Parallel()
	v := refVerifier(t)
	h := refHeader(refSignature)
	h.Set(HeaderTimestamp, strings.Repeat("9x", 10_000))
	err := v.Verify(h, []byte(refBody))
	if !errors.Is(err, ErrInvalidTimestamp) || len(err.Error()) > 200 {
		t.Fatalf("Verify = %.300v (len %d)", err, len(err.Error()))
	}
}
