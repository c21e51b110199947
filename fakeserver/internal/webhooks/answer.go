package webhooks

import (
	"io"
	"net/http"
	"strings"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// MaxAnswerKept is how much of a receiver's answer body an outcome keeps to show (the first
// 2 KiB, as the service's delivery log does); the rest is read up to maxResponseRead and
// dropped.
const MaxAnswerKept = 2 << 10

// Header is one request header as an attempt sent it.
type Header = wire.Header

// shownHeaders names the headers an attempt's record keeps, in the order the delivery log
// shows them. None carries the secret: the signature is an HMAC made with it.
var shownHeaders = []string{"Content-Type", "User-Agent", "webhook-id", "webhook-timestamp", "webhook-signature"}

// sentHeaders are the shown headers of req as it goes out, read back from the request itself
// so that the record says what was sent, however the headers were stamped.
func sentHeaders(req *http.Request) []Header {
	out := make([]Header, 0, len(shownHeaders))
	for _, name := range shownHeaders {
		if v := req.Header.Get(name); v != "" {
			out = append(out, Header{Name: strings.ToLower(name), Value: v})
		}
	}
	return out
}

// readAnswer reads at most maxResponseRead bytes of an answer's body, so that its connection
// can be reused without reading a huge body, and keeps the first MaxAnswerKept of them. cut says
// more was read than kept (or the body went on past the read).
func readAnswer(body io.Reader) (kept []byte, cut bool, err error) {
	buf := make([]byte, 0, 512)
	var chunk [4 << 10]byte
	r := io.LimitReader(body, maxResponseRead+1)
	read := 0
	for {
		n, rerr := r.Read(chunk[:])
		read += n
		if room := MaxAnswerKept - len(buf); room > 0 {
			buf = append(buf, chunk[:min(n, room)]...)
		}
		if rerr == io.EOF {
			return buf, read > len(buf), nil
		}
		if rerr != nil {
			return buf, read > len(buf), rerr
		}
	}
}
