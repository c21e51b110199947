package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// maxControlBody bounds control API bodies.
const maxControlBody = 1 << 20

// decodeBody reads a JSON object strictly (unknown fields are refused, so typos in a test suite
// surface) and answers 400 itself when it cannot.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); !isJSON(ct) {
		writeError(w, core.ErrValidation("Content-Type must be application/json."))
		return false
	}
	body, err := readBody(r, maxControlBody)
	if err != nil {
		writeError(w, err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, core.ErrValidation("Request body is not valid JSON for this call: %s.", jsonProblem(err)))
		return false
	}
	if dec.More() {
		writeError(w, core.ErrValidation("Request body must hold one JSON object."))
		return false
	}
	return true
}

// decodeEnabled reads a control body of one required field, {"enabled": bool}; on false the
// answer has been written.
func decodeEnabled(w http.ResponseWriter, r *http.Request) (bool, bool) {
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if !decodeBody(w, r, &body) {
		return false, false
	}
	if body.Enabled == nil {
		writeError(w, core.ErrValidation("enabled is required."))
		return false, false
	}
	return *body.Enabled, true
}

func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("syntax error at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s must be %s", typ.Field, typ.Type)
	case errors.Is(err, io.EOF):
		return "the body is empty"
	default:
		return strings.TrimPrefix(err.Error(), "json: ")
	}
}

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

func respond(w http.ResponseWriter, status int, v any, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

type errorEnvelope struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeError answers err in the REST envelope; anything that is not a core refusal is an
// internal error whose detail stays in the logs.
func writeError(w http.ResponseWriter, err error) {
	e := asError(err)
	setRetryAfter(w, e)
	body, _ := json.Marshal(errorEnvelope{Error: errorDetail{Code: e.Code, Message: e.Message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
}
