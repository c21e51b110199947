// Package wire is one webhook attempt as the core asks for it and the HTTP sender
// (internal/webhooks) makes it: the signing secret and the Standard Webhooks signature, the
// message id, the attempt and what it got. It is a leaf, so that the core, which mints secrets
// and message ids and records outcomes, never imports the sender.
package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix begins every signing secret.
const SecretPrefix = "whsec_"

// secretBytes is the length of a signing key: as long as the HMAC-SHA256 output.
const secretBytes = 32

// ErrBadSecret is returned by DecodeSecret for text that is not a whsec_ secret.
var ErrBadSecret = errors.New("wire: a secret is whsec_ followed by base64")

// NewSecret returns a fresh signing secret made of random's bytes, as shown once to whoever
// creates an endpoint, and the key bytes it stands for.
func NewSecret(random io.Reader) (secret string, key []byte) {
	key = make([]byte, secretBytes)
	_, _ = io.ReadFull(random, key)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), key
}

// DecodeSecret returns the key bytes of a whsec_ secret: the base64-decoded text after the
// prefix, never the base64 text itself.
func DecodeSecret(secret string) ([]byte, error) {
	text, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrBadSecret
	}
	key, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(key) == 0 {
		return nil, ErrBadSecret
	}
	return key, nil
}

// Sign returns the webhook-signature header of one attempt: "v1," and the base64 HMAC-SHA256,
// under key, of "{id}.{unix seconds}.{body}" with the body's raw bytes.
func Sign(key []byte, id string, at time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, at.Unix(), 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// NewMessageID returns a fresh webhook-id: "msg_" and 128 bits read from random, stable across
// the retries of one delivery.
func NewMessageID(random io.Reader) string {
	b := make([]byte, 16)
	_, _ = io.ReadFull(random, b)
	return "msg_" + base64.RawURLEncoding.EncodeToString(b)
}

// Attempt is one try at delivering one message.
type Attempt struct {
	URL string
	// MessageID is the webhook-id, the same on every attempt of a delivery.
	MessageID string
	// Key signs the attempt.
	Key []byte
	// Body is the frozen event body, sent byte for byte on every attempt.
	Body []byte
	// At is the attempt's instant on the fake's clock: its webhook-timestamp unless the sender
	// stamps with the wall clock (the sender's StampWall).
	At time.Time
}

// Outcome is what an attempt got.
type Outcome struct {
	// StatusCode is the receiver's HTTP status, 0 when it gave none.
	StatusCode int
	// Err says why the attempt failed; empty on success (any 2xx).
	Err string
	// Latency is how long the attempt took on the real clock, from the request's start to the
	// end of the answer read (zero for an attempt never made).
	Latency time.Duration
	// Stamp is the attempt's webhook-timestamp as sent, in whole seconds (zero for an attempt
	// never made).
	Stamp time.Time
	// Sent is the request's headers as sent (never the secret); nil for an attempt never made.
	Sent []Header
	// Answer is the first bytes of the receiver's answer body the sender keeps (its
	// MaxAnswerKept); AnswerCut says the body was longer.
	Answer    []byte
	AnswerCut bool
}

// Header is one request header as an attempt sent it.
type Header struct {
	Name, Value string
}

// OK reports whether the attempt succeeded.
func (o Outcome) OK() bool { return o.Err == "" }
