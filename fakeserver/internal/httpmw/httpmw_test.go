package httpmw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

const canonical = "9b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4"

func TestPathID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, target, want string
	}{
		{"GET /things/{id}", "/things/" + canonical, canonical},
		{"GET /things/{id}/more", "/things/" + canonical + "/more", canonical},
		{"GET /things/{id}", "/things/9B2C1F0E-3D4A-4B5C-8D6E-7F8091A2B3C4", core.NoID.String()},
		{"GET /things/{id}", "/things/9b2c1f0e%2D3d4a-4b5c-8d6e-7f8091a2b3c4", core.NoID.String()},
		{"GET /things/{id}", "/things/9b2c1f0e%2d3d4a-4b5c-8d6e-7f8091a2b3c4", core.NoID.String()},
		{"GET /things/{id}", "/things/%39b2c1f0e-3d4a-4b5c-8d6e-7f8091a2b3c4", core.NoID.String()},
		// An escape elsewhere in the path leaves a canonical id as it is.
		{"GET /th%69ngs/{id}", "/th%69ngs/" + canonical, canonical},
		{"GET /things/{id}/{name}", "/things/" + canonical + "/a%20b", canonical},
		// Text that is no id at all is handed on as before, decoded.
		{"GET /things/{id}", "/things/not-an-id", "not-an-id"},
		{"GET /things/{id}", "/things/%7B" + canonical + "%7D", "{" + canonical + "}"},
		{"GET /things/{id}", "/things/a%20b", "a b"},
		{"GET example.test/things/{id}", "http://example.test/things/" + canonical, canonical},
	}
	for _, tt := range tests {
		mux := http.NewServeMux()
		got := "(not routed)"
		mux.HandleFunc(tt.pattern, func(_ http.ResponseWriter, r *http.Request) { got = PathID(r, "id") })
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tt.target, nil))
		if got != tt.want {
			t.Errorf("%s %s: PathID = %q, want %q", tt.pattern, tt.target, got, tt.want)
		}
	}
}

func TestCallCarriesThePrincipal(t *testing.T) {
	t.Parallel()
	p := core.Principal{Workspace: core.Workspace{ID: uuid.MustParse(canonical)}}
	r, call := Begin(httptest.NewRequest("GET", "/", nil))
	if _, entered := call.Entered(); entered {
		t.Fatal("a new call has a principal")
	}
	if Admit(r, p) != r {
		t.Error("Admit copied a request that has a call")
	}
	if got, entered := call.Entered(); !entered || got.Workspace.ID != p.Workspace.ID {
		t.Errorf("call holds %+v, %v", got, entered)
	}
	if Principal(r.Context()).Workspace.ID != p.Workspace.ID {
		t.Error("Principal does not read the call")
	}
	// A request that did not pass Begin gets a call of its own.
	bare := httptest.NewRequest("GET", "/", nil)
	if Principal(bare.Context()).Workspace.ID != uuid.Nil {
		t.Error("a request without a call has a principal")
	}
	if Principal(Admit(bare, p).Context()).Workspace.ID != p.Workspace.ID {
		t.Error("Admit of a request without a call lost the principal")
	}
}

func TestAdmin(t *testing.T) {
	t.Parallel()
	a := NewAdmin("s3cret")
	tests := []struct {
		header         string
		admitted, sent bool
	}{
		{"Bearer s3cret", true, true},
		{"bearer s3cret", true, true},
		{"Bearer s3cre", false, true},
		{"Bearer s3cret2", false, true},
		{"Basic s3cret", false, true},
		{"s3cret", false, true},
		{"", false, false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		admitted, sent := a.Admits(r)
		if admitted != tt.admitted || sent != tt.sent {
			t.Errorf("%q: Admits = %v, %v; want %v, %v", tt.header, admitted, sent, tt.admitted, tt.sent)
		}
	}
	if !a.Is("s3cret") || a.Is("s3cre") || a.Is("") || NewAdmin("").Is("") {
		t.Error("Is compares the token wrongly")
	}
}
