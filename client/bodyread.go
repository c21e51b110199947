package client

import (
	"bytes"
	"io"
	"net/http"
)

// bufferBody reads resp's body into memory, so that a body that breaks off fails its attempt
// (and can be retried) instead of failing the decoding after the retries are over. On failure
// the body is closed and replaced by an empty one.
func bufferBody(resp *http.Response) error {
	body, err := readAllSized(resp.Body, resp.ContentLength)
	if err != nil {
		_ = resp.Body.Close()
		resp.Body = http.NoBody
		return err
	}
	if len(body) < MaxResponseBody {
		_ = resp.Body.Close()
		resp.Body = &bufferedBody{Reader: bytes.NewReader(body), data: body}
		return nil
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	return nil
}

// bufferedBody is a success answer read whole by bufferBody; decode unmarshals its bytes
// directly instead of streaming them through a json.Decoder again.
type bufferedBody struct {
	*bytes.Reader
	data []byte
}

// Close implements io.Closer; the connection's body was closed when it was read.
func (*bufferedBody) Close() error { return nil }

// readAllSized reads at most MaxResponseBody bytes of r into one buffer of the declared size
// when the answer declares it (io.ReadAll would regrow its buffer a dozen times for a report).
// That is the part of a success answer read inside the retry loop; the rest, if any, streams
// to the decoder, which stops at the same cap.
func readAllSized(r io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 || declared >= MaxResponseBody {
		return io.ReadAll(io.LimitReader(r, MaxResponseBody))
	}
	buf := bytes.NewBuffer(make([]byte, 0, declared+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(r, MaxResponseBody))
	return buf.Bytes(), err
}
