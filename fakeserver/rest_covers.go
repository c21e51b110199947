package fakeserver

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
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

func (s *Server) coverURL(reportID uuid.UUID) string {
	return s.url + "/_covers/" + s.covers.token(reportID)
}

// servableCover is the type a cover is served as: the one its bytes are sniffed to be, and only
// PNG or JPEG; whatever the file declared is not trusted.
func servableCover(data []byte) (string, bool) {
	switch ct := http.DetectContentType(data); ct {
	case "image/png", "image/jpeg":
		return ct, true
	}
	return "", false
}

// handleCover serves a finished report's cover picture at its token URL, keyless like any CDN
// URL, and only as a PNG or JPEG image.
func (s *Server) handleCover(w http.ResponseWriter, r *http.Request) {
	id, ok := s.covers.reportID(r.PathValue("token"))
	if !ok {
		writeError(w, core.ErrNotFound("Cover image"))
		return
	}
	cv, ok := s.core.ReportCover(id)
	if !ok {
		writeError(w, core.ErrNotFound("Cover image"))
		return
	}
	ct, ok := servableCover(cv.Data)
	if !ok {
		writeError(w, core.ErrNotFound("Cover image"))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(cv.Data)))
	_, _ = w.Write(cv.Data)
}
