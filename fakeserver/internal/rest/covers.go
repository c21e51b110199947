package rest

import (
	"net/http"
	"strconv"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// servableCover is the type a cover is served as: the one its bytes are sniffed to be, and only
// PNG or JPEG; whatever the file declared is not trusted.
func servableCover(data []byte) (string, bool) {
	switch ct := http.DetectContentType(data); ct {
	case "image/png", "image/jpeg":
		return ct, true
	}
	return "", false
}

// ServeCover serves a finished report's cover picture at its token URL, keyless like any CDN
// URL, and only as a PNG or JPEG image.
func (a *API) ServeCover(w http.ResponseWriter, r *http.Request) {
	id, ok := a.views.CoverReportID(r.PathValue("token"))
	if !ok {
		httpmw.WriteError(w, core.ErrNotFound("Cover image"))
		return
	}
	cv, ok := a.core.ReportCover(id)
	if !ok {
		httpmw.WriteError(w, core.ErrNotFound("Cover image"))
		return
	}
	ct, ok := servableCover(cv.Data)
	if !ok {
		httpmw.WriteError(w, core.ErrNotFound("Cover image"))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(cv.Data)))
	_, _ = w.Write(cv.Data)
}
