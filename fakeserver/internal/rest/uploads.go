package rest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/restserver"
)

// CreateUpload mints a reservation and a signed URL the fake itself serves: PUT the audio there
// with Content-Type equal to file_type and no Authorization header, within 15 minutes.
func (a *restAPI) CreateUpload(ctx context.Context, req restserver.CreateUploadRequestObject) (restserver.CreateUploadResponseObject, error) {
	b := req.Body
	if err := checkFileType(b.FileType); err != nil {
		return nil, err
	}
	res, err := a.core.Reserve(httpmw.Principal(ctx), b.FileName, b.FileType, int(b.DurationMs))
	if err != nil {
		return nil, err
	}
	return restserver.CreateUpload201JSONResponse{ReportID: res.ID, UploadURL: a.uploadURL(res.ID, res.FileType, res.MintedAt.Add(core.UploadURLLifetime))}, nil
}

func (a *API) uploadSignature(id uuid.UUID, fileType string, expires int64) string {
	mac := hmac.New(sha256.New, a.uploadKey)
	fmt.Fprintf(mac, "%s\n%s\n%d", id, fileType, expires)
	return hex.EncodeToString(mac.Sum(nil))
}

func (a *API) uploadURL(id uuid.UUID, fileType string, expires time.Time) string {
	q := url.Values{}
	q.Set("content_type", fileType)
	q.Set("expires", strconv.FormatInt(expires.Unix(), 10))
	q.Set("signature", a.uploadSignature(id, fileType, expires.Unix()))
	return a.url + "/_uploads/" + id.String() + "?" + q.Encode()
}

// checkFileType refuses a file_type that cannot be sent back as a Content-Type header: a reservation
// for it could never be matched by a PUT.
func checkFileType(ft string) error {
	for i := 0; i < len(ft); i++ {
		if c := ft[i]; c < 0x20 || c >= 0x7f {
			return core.ErrValidation("file_type must be a MIME type of printable ASCII, such as audio/mpeg; it holds byte 0x%02x at %d.", c, i)
		}
	}
	return nil
}

// uploadRefusal answers the upload URL's refusals in the REST envelope.
func uploadRefusal(status int, code, message string) error {
	return &httpmw.Error{Status: status, Code: code, Message: message}
}

// ServeUpload takes the audio PUT to a signed upload URL.
func (a *API) ServeUpload(w http.ResponseWriter, r *http.Request) {
	if err := a.acceptUpload(r); err != nil {
		httpmw.WriteError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (a *API) acceptUpload(r *http.Request) error {
	// By the id rule, an id in another spelling names no upload, and so fails the signature
	// as any id the fake did not sign does.
	id, err := uuid.Parse(httpmw.PathID(r, "id"))
	q := r.URL.Query()
	expires, convErr := strconv.ParseInt(q.Get("expires"), 10, 64)
	want := a.uploadSignature(id, q.Get("content_type"), expires)
	if err != nil || convErr != nil || !hmac.Equal([]byte(want), []byte(q.Get("signature"))) {
		return uploadRefusal(http.StatusForbidden, core.CodeForbidden, "The upload URL's signature does not match: use the upload_url exactly as POST /uploads returned it.")
	}
	if !a.clock.Now().Before(time.Unix(expires, 0)) {
		return uploadRefusal(http.StatusForbidden, core.CodeForbidden, "The upload URL has expired (it is valid for 15 minutes); reserve a new upload.")
	}
	if r.Header.Get("Authorization") != "" {
		return core.ErrValidation("Send no Authorization header to the upload URL: it is already signed.")
	}
	if got := r.Header.Get("Content-Type"); got != q.Get("content_type") {
		return core.ErrValidation("Content-Type must be %q, the file_type given to POST /uploads; got %q.", q.Get("content_type"), got)
	}
	switch n := r.ContentLength; {
	case n > core.MaxUploadBytes:
		return &httpmw.Error{Status: http.StatusRequestEntityTooLarge, Code: core.CodeValidation,
			Message: fmt.Sprintf("The file is larger than the %d-byte upload limit.", core.MaxUploadBytes)}
	case n < 0:
		return &httpmw.Error{Status: http.StatusLengthRequired, Code: core.CodeValidation,
			Message: "Send the file with a Content-Length header, as signed storage URLs require."}
	case n == 0:
		return core.ErrValidation("The upload is empty: PUT the audio file's bytes to the upload URL.")
	}
	// The budget and the workspace's share are taken as the bytes arrive, and a trickle is cut.
	return a.core.ReceiveUpload(id, r.Body, r.ContentLength)
}
