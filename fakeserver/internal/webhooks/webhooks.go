// Package webhooks is the fake's webhook delivery engine: the signing secret and the Standard
// Webhooks signature, the retry ladder, the URL policy that refuses private and internal
// receivers, and the HTTP sender that makes one attempt at a time within the receiver budget.
//
// It keeps no state about endpoints or deliveries; the domain core does, and calls the Sender
// without holding its lock.
package webhooks

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
var ErrBadSecret = errors.New("webhooks: a secret is whsec_ followed by base64")

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

// UserAgent identifies the sender on every attempt.
const UserAgent = "Service/1.0 (podqa-fake webhooks)"
