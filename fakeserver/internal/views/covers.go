package views

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"
)

// coverTokens turns report ids into the cover URL's own token and back: the token is the id
// enciphered with a key of this fake (one AES block is exactly a UUID), so it cannot be guessed,
// does not reveal the report id (the keyless GraphQL credential of the whole report), and needs
// no table.
type coverTokens struct{ block cipher.Block }

// newCoverTokens derives the AES key from secret, a key of this fake kept for another purpose:
// the derivation (SHA-256 under a label of its own) keeps the two uses apart.
func newCoverTokens(secret []byte) coverTokens {
	sum := sha256.Sum256(append([]byte("podqa-fake cover tokens\n"), secret...))
	block, _ := aes.NewCipher(sum[:16])
	return coverTokens{block: block}
}

func (c coverTokens) token(id uuid.UUID) string {
	var out [16]byte
	c.block.Encrypt(out[:], id[:])
	return hex.EncodeToString(out[:])
}

func (c coverTokens) reportID(token string) (uuid.UUID, bool) {
	var in [16]byte
	if len(token) != 32 {
		return uuid.UUID{}, false
	}
	if _, err := hex.Decode(in[:], []byte(token)); err != nil {
		return uuid.UUID{}, false
	}
	var id uuid.UUID
	c.block.Decrypt(id[:], in[:])
	return id, true
}

// CoverURL is where the fake serves the cover picture of report reportID, keyless.
func (v *Views) CoverURL(reportID uuid.UUID) string {
	return v.baseURL + "/_covers/" + v.covers.token(reportID)
}
