package wire

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestSignVerifiesWithStandardWebhooks: a signature made here verifies with the reference
// library, and a changed byte of the body does not.
func TestSignVerifiesWithStandardWebhooks(t *testing.T) {
	t.Parallel()
	secret, key := NewSecret(rand.Reader)
	decoded, err := DecodeSecret(secret)
	if err != nil || string(decoded) != string(key) {
		t.Fatalf("decode %q: %v", secret, err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	body := []byte(`{"type":"report.completed","data":{}}`)
	h := http.Header{}
	h.Set("webhook-id", NewMessageID(rand.Reader))
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", Sign(key, h.Get("webhook-id"), at, body))
	if err := wh.Verify(body, h); err != nil {
		t.Fatalf("verify: %v", err)
	}
	body[len(body)-2] = ' '
	if err := wh.Verify(body, h); err == nil {
		t.Fatal("a changed body verified")
	}
}

func TestDecodeSecretRefusals(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "whsec_", "abc", "whsec_!!!", "WHSEC_AAAA"} {
		if _, err := DecodeSecret(s); !errors.Is(err, ErrBadSecret) {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func ExampleSign() {
	key := []byte("a 32-byte key for the example...")
	at := time.Unix(1767603600, 0)
	fmt.Println(Sign(key, "msg_example", at, []byte(`{"type":"report.completed"}`)))
	// Output: v1,gjG381dzkF1O6d6N8JwfMwnFSLEIhHAjcUU3vgPsWmo=
}
