package httpmw

import (
	"net"
	"net/http"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// Presented reads what a request presents to the core's doors. The sessionid cookie is read only
// without an Authorization header, which takes precedence over it.
func Presented(r *http.Request) core.Credentials {
	cred := core.Credentials{Authorization: r.Header.Get("Authorization"), ClientIP: clientIP(r)}
	if cred.Authorization == "" {
		if cookie, err := r.Cookie("sessionid"); err == nil {
			cred.Session, cred.SessionSent = cookie.Value, true
		}
	}
	return cred
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
