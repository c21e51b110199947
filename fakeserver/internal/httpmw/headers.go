package httpmw

import "net/http"

// assetCSP is the Content-Security-Policy of every file the fake serves as a download rather
// than a page (covers, hosted feeds, their audio and artwork): no script, no plugin, no frame,
// and a sandboxed origin should a browser render one anyway. It is GitHub's policy for raw
// files, under which an image or an audio file still displays when opened on its own.
const assetCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// SecurityHeaders, the chain's outermost step, sets X-Content-Type-Options: nosniff on every answer of the fake, so that no
// browser ever runs a body as a type other than the one declared. The explorers' pages declare
// their scripts and styles with their real types, so they are unaffected.
//
// Every answer shares one value slice under the canonical key, saving an allocation and the
// key's canonicalisation per request: net/http only reads it, and a later Set or Add replaces
// the slice or appends past its capacity (a new array), so no answer can change another's.
func SecurityHeaders(next http.Handler) http.Handler {
	nosniff := []string{"nosniff"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Content-Type-Options"] = nosniff[:1:1]
		next.ServeHTTP(w, r)
	})
}

// AssetHeaders adds assetCSP to a route that serves files, not pages.
func AssetHeaders(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", assetCSP)
		next.ServeHTTP(w, r)
	})
}
