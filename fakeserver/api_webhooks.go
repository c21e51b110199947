package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks"
)

// Resolver looks up the addresses of a host name, as *net.Resolver does. The fake uses it to
// validate webhook URLs and to connect to receivers, feeds and enclosures; tests inject one so
// that nothing reaches the network.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// WithResolver makes the fake look host names up with r instead of the system resolver: webhook
// receivers' when an endpoint is created and when a delivery connects, and feeds' and
// enclosures' when they are fetched.
func WithResolver(r Resolver) Option { return func(o *options) { o.resolver = r } }

// Dialer connects to a network address, as *net.Dialer does.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// WithDialer makes the fake connect to webhook receivers, feeds and enclosures through d, after
// the URL policy has accepted the address (see WithPrivateURLs); tests inject one that refuses
// anything but loopback, so that even a regression cannot send a packet elsewhere.
func WithDialer(d Dialer) Option { return func(o *options) { o.dialer = d } }

// WithWebhookTimeout sets how long a receiver has to answer one delivery attempt (default 10
// seconds, the service's budget); tests of slow receivers shorten it.
func WithWebhookTimeout(d time.Duration) Option { return func(o *options) { o.webhookBudget = d } }

// webhookWiring holds the URL policy and the sender of webhook deliveries.
type webhookWiring struct {
	policy webhooks.Policy
	sender *webhooks.Sender
}

func (s *Server) setupWebhooks() {
	s.hooks.policy = s.urlPolicy(s.opts)
	budget := s.opts.webhookBudget
	if budget <= 0 {
		budget = core.ReceiverBudget // the service's
	}
	stamping, _ := webhookStamping(s.opts) // New refused a bad value before the fake listened
	s.hooks.sender = webhooks.NewSender(s.hooks.policy, budget, webhooks.WithStamping(stamping))
	s.core.ConfigureWebhooks(core.WebhookConfig{AppURL: s.url + "/app", Send: s.hooks.sender.SendAll, Render: views.EventBody})
}

// urlCheckTimeout bounds the name lookups of one URL check.
const urlCheckTimeout = 5 * time.Second

// checkWebhookURL applies the URL policy; every refusal is the one flat "Invalid webhook URL".
func (s *Server) checkWebhookURL(ctx context.Context, raw string) error {
	ctx, cancel := context.WithTimeout(ctx, urlCheckTimeout)
	defer cancel()
	err := s.hooks.policy.CheckURL(ctx, raw)
	if err == nil {
		return nil
	}
	s.events.raise(s.clock.Now(), slog.LevelWarn, EventURLRefused, "webhook URL refused", "", "",
		slog.String("url", raw), slog.String("reason", err.Error()))
	var private *webhooks.RefusedAddressError
	if errors.As(err, &private) {
		// The service's message first, as its error table words it, then the fake's way out.
		refusal := core.ErrInvalidWebhookURL()
		refusal.Message += ": " + private.Error()
		return refusal
	}
	return core.ErrInvalidWebhookURL()
}

// WebhookEndpointSpec describes an endpoint added as Settings, Developers, Webhook endpoints
// would add it.
type WebhookEndpointSpec struct {
	URL string `json:"url"`
	// Events is a non-empty subset of the five event names.
	Events []string `json:"events"`
	// SeriesID optionally scopes the endpoint to one of the workspace's series.
	SeriesID string `json:"series_id,omitempty"`
}

// WebhookEndpoint is a webhook endpoint of a workspace, as Settings shows it.
type WebhookEndpoint struct {
	ID string
	// Secret is the whsec_ signing secret, returned once at creation, empty otherwise.
	Secret string
	URL    string
	Events []string
	// SeriesID is the series the endpoint is scoped to; empty for every series.
	SeriesID string
	Enabled  bool
	// Source is "settings" for an endpoint made in Settings (the control API) and "rest" for one
	// made with POST /webhook/subscribe.
	Source    string
	CreatedAt time.Time
}

func endpointView(ep core.Endpoint, secret string) WebhookEndpoint {
	v := WebhookEndpoint{
		ID: ep.ID.String(), Secret: secret, URL: ep.URL, Events: ep.Events, Enabled: ep.Enabled,
		Source: ep.Source(), CreatedAt: ep.CreatedAt,
	}
	if ep.Series != nil {
		v.SeriesID = ep.Series.String()
	}
	return v
}

// MaxWebhookAnswer is how much of a receiver's answer body a delivery keeps and shows: the
// first 2 KiB.
const MaxWebhookAnswer = webhooks.MaxAnswerKept

// WebhookHeader is one request header of a delivery attempt as sent.
type WebhookHeader struct {
	Name, Value string
}

// WebhookDelivery is one row of a delivery log.
type WebhookDelivery struct {
	ID         string
	EndpointID string
	EventType  string
	// WebhookID is the webhook-id header, stable across retries.
	WebhookID string
	// Attempts counts the attempts made; FailedAttempts those that failed (0 for a first-time
	// success).
	Attempts       int
	FailedAttempts int
	// Status is pending, retrying, succeeded or abandoned.
	Status string
	// ResponseCode is the HTTP status of the last attempt's answer; nil when no attempt got one.
	ResponseCode *int
	// LastError says why the last attempt failed; nil when it did not.
	LastError *string
	Test      bool
	CreatedAt time.Time
	// LastAttemptAt is when the last attempt was made; zero before the first.
	LastAttemptAt time.Time
	// NextAttemptAt is when the next retry is due; zero when none is queued.
	NextAttemptAt time.Time
	// Body is the event body, exactly as signed and sent.
	Body json.RawMessage
	// ReportID is the report whose event this is; empty for other events.
	ReportID string
	// Resends counts the attempts ResendDelivery made (among Attempts).
	Resends int
	// RequestHeaders are the last attempt's headers as sent (never the secret); nil before the
	// first attempt.
	RequestHeaders []WebhookHeader
	// ResponseBody is the first MaxWebhookAnswer bytes of the receiver's answer to the last
	// attempt, as text; ResponseBodyTruncated says the answer was longer.
	ResponseBody          string
	ResponseBodyTruncated bool
}

func deliveryView(d core.Delivery) WebhookDelivery {
	v := WebhookDelivery{
		ID: d.ID.String(), EndpointID: d.Endpoint.String(), EventType: d.EventType, WebhookID: d.MessageID,
		Attempts: d.Attempts, FailedAttempts: d.FailedAttempts(), Status: d.Status, ResponseCode: d.ResponseCode,
		LastError: d.LastError, Test: d.Test, CreatedAt: d.CreatedAt, Body: d.Body,
	}
	if d.LastAttemptAt != nil {
		v.LastAttemptAt = *d.LastAttemptAt
	}
	if d.NextAttemptAt != nil {
		v.NextAttemptAt = *d.NextAttemptAt
	}
	if d.Report != uuid.Nil {
		v.ReportID = d.Report.String()
	}
	v.Resends = d.Resends
	for _, h := range d.Sent {
		v.RequestHeaders = append(v.RequestHeaders, WebhookHeader{Name: h.Name, Value: h.Value})
	}
	v.ResponseBody, v.ResponseBodyTruncated = d.AnswerText(), d.AnswerCut
	return v
}

// Email is an email the service would have sent: about a failed report, a broken feed, an
// upload out of credits, or a disabled webhook endpoint.
type Email struct {
	ID          string
	WorkspaceID string
	// Kind is report_failed, report_out_of_quota, feed_broken or endpoint_disabled.
	Kind    string
	To      []string
	Subject string
	Text    string
	SentAt  time.Time
}

// CreateWebhookEndpoint adds an endpoint to a workspace as Settings would, after the same
// checks as POST /webhook/subscribe (the limit of five counts both kinds), and returns it with
// its secret.
func (s *Server) CreateWebhookEndpoint(ctx context.Context, workspaceID string, spec WebhookEndpointSpec) (_ WebhookEndpoint, err error) {
	defer apiError(&err)
	ep, secret, err := s.core.AddSettingsEndpoint(ctx, workspaceID, core.SettingsEndpoint(spec), s.checkWebhookURL)
	if err != nil {
		return WebhookEndpoint{}, err
	}
	return endpointView(ep, secret), nil
}

// WebhookEndpoints lists a workspace's endpoints, those made over REST included, without their
// secrets.
func (s *Server) WebhookEndpoints(workspaceID string) (_ []WebhookEndpoint, err error) {
	defer apiError(&err)
	eps, err := s.core.EndpointsOf(workspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]WebhookEndpoint, len(eps))
	for i, ep := range eps {
		out[i] = endpointView(ep, "")
	}
	return out, nil
}

// SetWebhookEndpointEnabled switches a Settings endpoint off or on; re-enabling resumes its
// queued retries at the next sweep. An endpoint made over REST answers 409 conflict.
func (s *Server) SetWebhookEndpointEnabled(endpointID string, enabled bool) (_ WebhookEndpoint, err error) {
	defer apiError(&err)
	ep, err := s.core.SwitchEndpoint(endpointID, enabled)
	if err != nil {
		return WebhookEndpoint{}, err
	}
	return endpointView(ep, ""), nil
}

// DeleteWebhookEndpoint deletes a Settings endpoint and drops its queued retries.
func (s *Server) DeleteWebhookEndpoint(endpointID string) (err error) {
	defer apiError(&err)
	return s.core.RemoveSettingsEndpoint(endpointID)
}

// SendTestEvent is Settings' "Send test event": a report.completed-shaped event with test:
// true, built from the workspace's most recent completed report or a canned sample, signed and
// delivered like any event. It returns once the first attempt has been made (and, if it failed,
// its retry queued).
func (s *Server) SendTestEvent(ctx context.Context, endpointID string) (_ WebhookDelivery, err error) {
	defer apiError(&err)
	d, err := s.core.SendTestEventTo(ctx, endpointID)
	if err != nil {
		return WebhookDelivery{}, err
	}
	return deliveryView(d), nil
}

// WebhookDeliveries returns the delivery log of one endpoint (every endpoint when endpointID is
// empty): each endpoint's 20 most recent deliveries, newest first.
func (s *Server) WebhookDeliveries(endpointID string) (_ []WebhookDelivery, err error) {
	defer apiError(&err)
	ds, err := s.core.DeliveryLog(endpointID)
	if err != nil {
		return nil, err
	}
	out := make([]WebhookDelivery, len(ds))
	for i, d := range ds {
		out[i] = deliveryView(d)
	}
	return out, nil
}

// ResendDelivery makes a new attempt of a delivery now, as the dashboard's Resend button does,
// and returns the delivery once the attempt's outcome is recorded: the same body and
// webhook-id, a fresh webhook-timestamp and signature. The attempt is outside the retry
// ladder: a success ends the delivery (its queued retry dropped); a failure leaves a retrying
// delivery on its schedule and any other abandoned. It never counts towards disabling the
// endpoint.
//
// An unknown delivery (or one no longer in its endpoint's log of 20) is 404 not_found; a
// delivery of a disabled endpoint, one whose first attempt is still queued and one with an
// attempt on its way are 409 conflict, and nothing changes.
func (s *Server) ResendDelivery(ctx context.Context, deliveryID string) (_ WebhookDelivery, err error) {
	defer apiError(&err)
	d, err := s.core.ResendDeliveryNamed(ctx, deliveryID)
	if err != nil {
		return WebhookDelivery{}, err
	}
	return deliveryView(d), nil
}

// Emails returns the emails sent about a workspace (every workspace when workspaceID is empty),
// newest first.
func (s *Server) Emails(workspaceID string) (_ []Email, err error) {
	defer apiError(&err)
	es, err := s.core.EmailLog(workspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]Email, len(es))
	for i, e := range es {
		out[i] = emailView(e)
	}
	return out, nil
}

func emailView(e core.Email) Email {
	return Email{ID: e.ID.String(), WorkspaceID: e.Workspace.String(), Kind: e.Kind, To: e.To, Subject: e.Subject, Text: e.Text, SentAt: e.SentAt}
}
