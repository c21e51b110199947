package httpmw

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// ErrBodyTooLarge answers a request body over limit: 400 validation_error, the specification's
// answer to a body that is out of range (its error table has no 413), on every surface that reads
// a body through here: REST, GraphQL and the control API, each in its own envelope.
func ErrBodyTooLarge(limit int64) *Error {
	return &Error{Status: http.StatusBadRequest, Code: core.CodeValidation,
		Message: "The request body is larger than the " + strconv.FormatInt(limit, 10) + "-byte limit of this call."}
}

// ReadBody reads all of r's body up to limit bytes; a longer body is ErrBodyTooLarge.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, ErrBodyTooLarge(limit)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, ErrBodyTooLarge(limit)
		}
		return nil, core.ErrValidation("The request body could not be read in full.")
	}
	if int64(len(body)) > limit {
		return nil, ErrBodyTooLarge(limit)
	}
	return body, nil
}

// trailingData returns a validation error when body holds one JSON value followed by anything
// but white space; a body that is not JSON at all is left to the caller's decoder to describe.
func trailingData(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return nil
	}
	off := dec.InputOffset()
	if len(bytes.TrimLeft(body[off:], " \t\r\n")) > 0 {
		return core.ErrValidation("The request body has data after the JSON value (at byte %d): send exactly one JSON object.", off)
	}
	return nil
}

// MaxAPIBody bounds JSON request bodies of the API; the service does not document its limit.
const MaxAPIBody = 1 << 20

// BufferJSONBody reads a write's JSON body within limit, refuses trailing data, and puts the
// bytes back for the next reader.
func BufferJSONBody(r *http.Request, limit int64) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	body, err := ReadBody(r, limit)
	if err != nil {
		return err
	}
	if err := trailingData(body); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}
