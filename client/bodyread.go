package client

import (
	"bytes"
	"io"
	"net/http"
)

// maxBufferedBody bounds the part of a success answer read inside the retry loop; the rest, if
// any, streams as before. No answer of the service comes near it.
const maxBufferedBody = 64 << 20

// bufferBody reads resp's body into memory, so that a body that breaks off fails its attempt
// (and can be retried) instead of failing the decoding after the retries are over. On failure
// the body is closed and replaced by an empty one.
func bufferBody(resp *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBufferedBody))
	if err != nil {
		_ = resp.Body.Close()
		resp.Body = http.NoBody
		return err
	}
	if len(body) < maxBufferedBody {
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return nil
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	return nil
}
