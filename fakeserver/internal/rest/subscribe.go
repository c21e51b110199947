package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
)

// MaxSubscribeBody bounds a subscription body.
const MaxSubscribeBody = 64 << 10

// ServeSubscribe serves POST /webhook/subscribe.
func (a *API) ServeSubscribe(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpmw.WriteFlatError(w, httpmw.ErrMethodNotAllowed("Method not allowed"))
		return
	}
	p, ok := a.subscriptionPrincipal(w, r)
	if !ok {
		return
	}
	body, err := httpmw.ReadBody(r, MaxSubscribeBody)
	if err != nil {
		httpmw.WriteFlatError(w, err)
		return
	}
	in, err := parseSubscription(bytes.NewReader(body))
	if err != nil {
		httpmw.WriteFlatError(w, err)
		return
	}
	ep, secret, err := a.subscribe(r.Context(), p, in)
	if err != nil {
		httpmw.WriteFlatError(w, err)
		return
	}
	a.subscribed(p, ep)
	httpmw.WriteJSON(w, http.StatusCreated, map[string]string{"id": ep.ID.String(), "secret": secret})
}

// ServeUnsubscribe serves DELETE /webhook/subscribe/{id}.
func (a *API) ServeUnsubscribe(w http.ResponseWriter, r *http.Request) {
	// The id as sent (escaped): a percent-encoded id is not the id it decodes to.
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/webhook/subscribe/")
	if rest == "" || strings.Contains(rest, "/") {
		httpmw.WriteFlatError(w, core.ErrEndpointNotFound())
		return
	}
	if r.Method != http.MethodDelete {
		w.Header().Set("Allow", http.MethodDelete)
		httpmw.WriteFlatError(w, httpmw.ErrMethodNotAllowed("Method not allowed"))
		return
	}
	p, ok := a.subscriptionPrincipal(w, r)
	if !ok {
		return
	}
	id, ok := core.CanonicalID(rest)
	if !ok {
		httpmw.WriteFlatError(w, core.ErrEndpointNotFound())
		return
	}
	if err := a.core.DeleteEndpointFor(p, id); err != nil {
		httpmw.WriteFlatError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// subscribe is createEndpoint over REST for p: the core checks p against the state of the
// moment, so that a reset since p was admitted answers as the new state would.
func (a *API) subscribe(ctx context.Context, p core.Principal, in core.NewEndpoint) (core.Endpoint, string, error) {
	if err := a.core.CheckEndpointFor(p, in); err != nil {
		return core.Endpoint{}, "", err
	}
	if err := a.checkWebhookURL(ctx, in.URL); err != nil {
		return core.Endpoint{}, "", err
	}
	return a.core.CreateEndpointFor(p, in)
}

// subscriptionPrincipal lets a call in through the core's subscription door (an API key only:
// a browser session cannot subscribe; every call is a write) and answers a refusal in the flat
// shape.
func (a *API) subscriptionPrincipal(w http.ResponseWriter, r *http.Request) (core.Principal, bool) {
	p, err := a.enter(r, core.Subscription)
	if err != nil {
		httpmw.WriteFlatError(w, err)
		return core.Principal{}, false
	}
	// The call the chain opened keeps the principal, for the journal.
	httpmw.Admit(r, p)
	return p, true
}

// parseSubscription reads a subscription body into what the core needs, answering the flat
// errors of the body's shape. Unknown fields are ignored, as on the service.
func parseSubscription(body io.Reader) (core.NewEndpoint, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return core.NewEndpoint{}, core.ErrInvalidJSON()
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&fields); err != nil || fields == nil || dec.More() {
		return core.NewEndpoint{}, core.ErrInvalidJSON()
	}
	var in core.NewEndpoint
	if u, ok := fields["url"]; ok && string(u) != "null" {
		if err := json.Unmarshal(u, &in.URL); err != nil {
			return core.NewEndpoint{}, core.ErrInvalidWebhookURL()
		}
	}
	if in.URL == "" {
		return core.NewEndpoint{}, core.ErrURLRequired()
	}
	var events []json.RawMessage
	if err := json.Unmarshal(fields["events"], &events); err != nil || len(events) == 0 {
		return core.NewEndpoint{}, core.ErrEventsRequired()
	}
	for _, e := range events {
		var name string
		if err := json.Unmarshal(e, &name); err != nil {
			return core.NewEndpoint{}, core.ErrUnknownEvent(string(e))
		}
		in.Events = append(in.Events, name)
	}
	if sid, ok := fields["series_id"]; ok && string(sid) != "null" {
		var text string
		id, ok := uuid.Nil, json.Unmarshal(sid, &text) == nil
		if ok {
			id, ok = core.CanonicalID(text)
		}
		if !ok {
			// Not an id by the id rule: no series has it. A zero id names no series either.
			id = core.NoID
		}
		in.SeriesID = &id
	}
	return in, nil
}
