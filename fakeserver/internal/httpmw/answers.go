package httpmw

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

// MaxControlBody bounds control API bodies.
const MaxControlBody = 1 << 20

// DecodeBody reads a JSON object strictly (unknown fields are refused, so typos in a test suite
// surface) and answers 400 itself when it cannot.
func DecodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); !IsJSON(ct) {
		WriteError(w, core.ErrValidation("Content-Type must be application/json."))
		return false
	}
	body, err := ReadBody(r, MaxControlBody)
	if err != nil {
		WriteError(w, err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		WriteError(w, core.ErrValidation("Request body is not valid JSON for this call: %s.", JSONProblem(err)))
		return false
	}
	if dec.More() {
		WriteError(w, core.ErrValidation("Request body must hold one JSON object."))
		return false
	}
	return true
}

// DecodeEnabled reads a control body of one required field, {"enabled": bool}; on false the
// answer has been written.
func DecodeEnabled(w http.ResponseWriter, r *http.Request) (bool, bool) {
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if !DecodeBody(w, r, &body) {
		return false, false
	}
	if body.Enabled == nil {
		WriteError(w, core.ErrValidation("enabled is required."))
		return false, false
	}
	return *body.Enabled, true
}

func JSONProblem(err error) string {
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

func IsJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

func Respond(w http.ResponseWriter, status int, v any, err error) {
	if err != nil {
		WriteError(w, err)
		return
	}
	WriteJSON(w, status, v)
}

func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, err)
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

// WriteError answers err in the REST envelope; anything that is not a core refusal is an
// internal error whose detail stays in the logs.
func WriteError(w http.ResponseWriter, err error) {
	e := AsError(err)
	SetRetryAfter(w, e)
	body, _ := json.Marshal(errorEnvelope{Error: errorDetail{Code: e.Code, Message: e.Message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
}

// WriteFlatError answers in the subscription calls' flat shape, {error: string}.
func WriteFlatError(w http.ResponseWriter, err error) {
	e := AsError(err)
	SetRetryAfter(w, e)
	body, _ := json.Marshal(map[string]string{"error": e.Message})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
}
