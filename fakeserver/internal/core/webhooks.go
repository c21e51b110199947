package core

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// The five webhook events.
const (
	EventReportCompleted  = "report.completed"
	EventReportFailed     = "report.failed"
	EventReportOutOfQuota = "report.out_of_quota"
	EventEpisodeCreated   = "episode.created"
	EventSeriesFeedBroken = "series.feed_broken"
)

// WebhookEvents lists the five event names in the order the specification gives them.
func WebhookEvents() []string {
	return []string{EventReportCompleted, EventReportFailed, EventReportOutOfQuota, EventEpisodeCreated, EventSeriesFeedBroken}
}

// Delivery statuses.
const (
	// DeliveryPending: the first attempt has not been made yet.
	DeliveryPending = "pending"
	// DeliveryRetrying: an attempt failed and a retry is queued.
	DeliveryRetrying = "retrying"
	// DeliverySucceeded: an attempt got a 2xx.
	DeliverySucceeded = "succeeded"
	// DeliveryAbandoned: every attempt of the ladder failed.
	DeliveryAbandoned = "abandoned"
)

// MaxWebhookEndpoints is how many endpoints a workspace may have, however they were created.
const MaxWebhookEndpoints = 5

// WebhookConfig connects the core's webhooks to the world.
type WebhookConfig struct {
	// AppURL is the web app's base URL; a report's link is AppURL + "/reports/" + id.
	AppURL string
	// Send makes attempts over HTTP and returns their outcomes in order. The core calls it
	// without holding its lock.
	Send func(ctx context.Context, attempts []wire.Attempt) []wire.Outcome
	// Render writes an event's body (internal/views.EventBody); without it bodies are empty.
	Render func(Event) []byte
}

// Endpoint is a webhook endpoint.
type Endpoint struct {
	ID        uuid.UUID
	Workspace uuid.UUID
	URL       string
	Events    []string
	Series    *uuid.UUID
	Enabled   bool
	// ViaREST marks an endpoint made with POST /webhook/subscribe: managed only over REST, never
	// re-enabled.
	ViaREST   bool
	CreatedAt time.Time

	key []byte
	// exhausted counts the deliveries in a row that exhausted the ladder.
	exhausted int
	// log is the most recent deliveries, oldest first.
	log []*Delivery
}

// Delivery is one event on its way to one endpoint.
type Delivery struct {
	// gen is the core's generation the delivery was made in (see Reset).
	gen       uint64
	ID        uuid.UUID
	Endpoint  uuid.UUID
	EventType string
	// MessageID is the webhook-id, stable across retries.
	MessageID string
	Test      bool
	Status    string
	// Attempts counts the attempts made.
	Attempts     int
	ResponseCode *int
	// LastError is the most recent attempt's error; nil after a success.
	LastError     *string
	CreatedAt     time.Time
	LastAttemptAt *time.Time
	// NextAttemptAt is when a queued retry falls due.
	NextAttemptAt *time.Time
	// Body is the frozen event body.
	Body []byte
	// Report is the report whose event this is; uuid.Nil for other events.
	Report uuid.UUID
	// Resends counts the attempts made by ResendDelivery, which are among Attempts but not on
	// the retry ladder.
	Resends int
	// Sent is the last attempt's request headers as sent; Answer the first 2 KiB of the
	// receiver's answer to it (AnswerCut: the answer was longer).
	Sent      []wire.Header
	Answer    []byte
	AnswerCut bool

	inFlight bool
	seq      uint64
}

// FailedAttempts is how many attempts failed: 0 for a first-time success.
func (d Delivery) FailedAttempts() int {
	if d.Status == DeliverySucceeded {
		return d.Attempts - 1
	}
	return d.Attempts
}

// webhookState is the core's webhook endpoints, deliveries, emails and tracked feeds; the
// core's lock guards it.
type webhookState struct {
	cfg         WebhookConfig
	endpoints   map[uuid.UUID]*Endpoint
	byWorkspace map[uuid.UUID][]*Endpoint
	// queue holds deliveries waiting for their first attempt; dispatching says a task to send
	// them is scheduled.
	queue       []*Delivery
	dispatching bool
	// retrying holds deliveries waiting for a retry; sweeps are the sweep instants scheduled.
	retrying map[uuid.UUID]*Delivery
	sweeps   map[time.Time]bool
	seq      uint64
	emails   map[uuid.UUID][]Email
	feeds    map[string]*trackedFeed
}

func (w *webhookState) init() {
	if w.endpoints == nil {
		w.endpoints = map[uuid.UUID]*Endpoint{}
		w.byWorkspace = map[uuid.UUID][]*Endpoint{}
		w.retrying = map[uuid.UUID]*Delivery{}
		w.sweeps = map[time.Time]bool{}
		w.emails = map[uuid.UUID][]Email{}
		w.feeds = map[string]*trackedFeed{}
	}
}

// ConfigureWebhooks wires delivery; until it is called, events are recorded but attempts fail.
func (c *Core) ConfigureWebhooks(cfg WebhookConfig) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wh.init()
	c.wh.cfg = cfg
}

// The flat error texts of the subscription calls; the core's errors carry them as messages.
const (
	msgInvalidJSON    = "Invalid JSON"
	msgURLRequired    = "A url is required"
	msgEventsRequired = "An events list is required"
	msgUnknownEvent   = "Unknown webhook event: "
	msgSeriesNotFound = "Series not found"
	msgInvalidURL     = "Invalid webhook URL"
	msgNotFound       = "Not found"
	msgWebhookLimit   = "Webhook limit reached (5 per workspace)"
)

// ErrInvalidJSON answers a subscription body that is not a JSON object.
func ErrInvalidJSON() *Error { return errorf(CodeValidation, msgInvalidJSON) }

// ErrURLRequired answers a subscription without a url.
func ErrURLRequired() *Error { return errorf(CodeValidation, msgURLRequired) }

// ErrEventsRequired answers a subscription without a non-empty events list.
func ErrEventsRequired() *Error {
	return errorf(CodeValidation, msgEventsRequired)
}

// ErrUnknownEvent answers an events entry that is not one of the five names.
func ErrUnknownEvent(name string) *Error {
	return &Error{Code: CodeValidation, Message: msgUnknownEvent + name}
}

// ErrInvalidWebhookURL answers a malformed, unresolvable, non-http(s) or internal URL.
func ErrInvalidWebhookURL() *Error {
	return errorf(CodeValidation, msgInvalidURL)
}

// ErrEndpointNotFound answers an unsubscribe of an endpoint this workspace did not make over
// REST.
func ErrEndpointNotFound() *Error { return errorf(CodeNotFound, msgNotFound) }

// NewEndpoint is what CreateEndpoint needs. URL must have passed the URL policy already: that
// check resolves names, which the core never does under its lock.
type NewEndpoint struct {
	URL      string
	Events   []string
	SeriesID *uuid.UUID
	// Secret is the signing secret to use (fixtures choose theirs); empty mints one.
	Secret string
}

// CheckEndpoint validates everything of in but its URL's reachability, without changing
// anything: the events, and the series, which must be one of the workspace's.
func (c *Core) CheckEndpoint(ws uuid.UUID, in NewEndpoint) error {
	if err := checkEndpointFields(in); err != nil {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.checkEndpointLocked(ws, in)
}

// checkEndpointFields checks the fields of in that need no state: the URL's presence and the
// events.
func checkEndpointFields(in NewEndpoint) error {
	if in.URL == "" {
		return ErrURLRequired()
	}
	if len(in.Events) == 0 {
		return ErrEventsRequired()
	}
	for _, e := range in.Events {
		if !slices.Contains(WebhookEvents(), e) {
			return ErrUnknownEvent(e)
		}
	}
	return nil
}

func (c *Core) checkEndpointLocked(ws uuid.UUID, in NewEndpoint) error {
	if _, ok := c.workspaces[ws]; !ok {
		return ErrNotFound("Workspace")
	}
	if in.SeriesID != nil {
		if s, ok := c.series[*in.SeriesID]; !ok || s.Workspace != ws {
			return errorf(CodeValidation, msgSeriesNotFound)
		}
	}
	return nil
}

// CheckEndpointFor is CheckEndpoint in the workspace p acts in, as the state of the moment
// admits p (see principalLocked).
func (c *Core) CheckEndpointFor(p Principal, in NewEndpoint) error {
	if err := checkEndpointFields(in); err != nil {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ws, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return err
	}
	return c.checkEndpointLocked(ws.ID, in)
}

// CreateEndpointFor is CreateEndpoint over REST (POST /webhook/subscribe) in the workspace p
// acts in, under the same lock as the state that admits p (see principalLocked): admitted
// before a reset, p subscribes in the new state only if the new state admits it.
func (c *Core) CreateEndpointFor(p Principal, in NewEndpoint) (Endpoint, string, error) {
	if err := c.CheckEndpointFor(p, in); err != nil {
		return Endpoint{}, "", err
	}
	return c.createEndpoint(in, true, func() (uuid.UUID, error) {
		_, ws, err := c.principalLocked(p, c.clock.Now())
		if err != nil {
			return uuid.Nil, err
		}
		return ws.ID, nil
	})
}

// DeleteEndpointFor is DeleteEndpoint over REST (DELETE /webhook/subscribe/{id}) in the
// workspace p acts in, as the state of the moment admits p (see principalLocked).
func (c *Core) DeleteEndpointFor(p Principal, id uuid.UUID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ws, err := c.principalLocked(p, c.clock.Now())
	if err != nil {
		return err
	}
	return c.deleteEndpointLocked(ws.ID, id, true)
}

// CreateEndpoint adds an endpoint, enabled, and returns it with its secret, which is never
// shown again. viaREST marks one made with POST /webhook/subscribe rather than in Settings.
func (c *Core) CreateEndpoint(ws uuid.UUID, in NewEndpoint, viaREST bool) (Endpoint, string, error) {
	if err := c.CheckEndpoint(ws, in); err != nil {
		return Endpoint{}, "", err
	}
	return c.createEndpoint(in, viaREST, func() (uuid.UUID, error) { return ws, nil })
}

// createEndpoint is CreateEndpoint once in has been checked (nothing is minted for a refused
// one), in the workspace that workspace returns; it is called under the core's lock, and the
// series and the limit are checked again in the same change.
func (c *Core) createEndpoint(in NewEndpoint, viaREST bool, workspace func() (uuid.UUID, error)) (Endpoint, string, error) {
	secret, key := wire.NewSecret(c.rand)
	if in.Secret != "" {
		decoded, err := wire.DecodeSecret(in.Secret)
		if err != nil {
			return Endpoint{}, "", ErrValidation("secret must be whsec_ followed by base64.")
		}
		secret, key = in.Secret, decoded
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wh.init()
	ws, err := workspace()
	if err != nil {
		return Endpoint{}, "", err
	}
	if err := c.checkEndpointLocked(ws, in); err != nil {
		return Endpoint{}, "", err
	}
	if len(c.wh.byWorkspace[ws]) >= MaxWebhookEndpoints {
		return Endpoint{}, "", errorf(CodeConflict, msgWebhookLimit)
	}
	var events []string
	for _, e := range WebhookEvents() {
		if slices.Contains(in.Events, e) {
			events = append(events, e)
		}
	}
	ep := &Endpoint{
		ID: c.rand.UUID(), Workspace: ws, URL: in.URL, Events: events, Enabled: true,
		ViaREST: viaREST, CreatedAt: c.clock.Now(), key: key,
	}
	if in.SeriesID != nil {
		id := *in.SeriesID
		ep.Series = &id
	}
	c.wh.endpoints[ep.ID] = ep
	c.wh.byWorkspace[ws] = append(c.wh.byWorkspace[ws], ep)
	return cloneEndpoint(ep), secret, nil
}

// DeleteEndpoint removes an endpoint and drops its queued deliveries. viaREST deletes only
// endpoints made over REST in workspace ws (others are 404 Not found); otherwise, as Settings
// does, only endpoints made in Settings.
func (c *Core) DeleteEndpoint(ws, id uuid.UUID, viaREST bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deleteEndpointLocked(ws, id, viaREST)
}

func (c *Core) deleteEndpointLocked(ws, id uuid.UUID, viaREST bool) error {
	ep := c.wh.endpoints[id]
	if ep == nil || ep.Workspace != ws || ep.ViaREST != viaREST {
		if viaREST {
			return ErrEndpointNotFound()
		}
		return ErrNotFound("Webhook endpoint")
	}
	delete(c.wh.endpoints, id)
	c.wh.byWorkspace[ws] = slices.DeleteFunc(c.wh.byWorkspace[ws], func(e *Endpoint) bool { return e == ep })
	for did, d := range c.wh.retrying {
		if d.Endpoint == id {
			delete(c.wh.retrying, did)
		}
	}
	return nil
}

// Endpoints lists a workspace's endpoints in the order they were made.
func (c *Core) Endpoints(ws uuid.UUID) ([]Endpoint, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if _, ok := c.workspaces[ws]; !ok {
		return nil, ErrNotFound("Workspace")
	}
	out := []Endpoint{}
	for _, ep := range c.wh.byWorkspace[ws] {
		out = append(out, cloneEndpoint(ep))
	}
	return out, nil
}

// EndpointByID returns an endpoint, whatever its workspace.
func (c *Core) EndpointByID(id uuid.UUID) (Endpoint, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ep := c.wh.endpoints[id]
	if ep == nil {
		return Endpoint{}, ErrNotFound("Webhook endpoint")
	}
	return cloneEndpoint(ep), nil
}

// SetEndpointEnabled switches an endpoint off or on, as a person does in Settings. Re-enabling
// resumes its queued retries at the next sweep and starts its count of exhausted deliveries
// again. An endpoint made over REST is not in Settings: it cannot be switched either way.
func (c *Core) SetEndpointEnabled(id uuid.UUID, enabled bool) (Endpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ep := c.wh.endpoints[id]
	if ep == nil {
		return Endpoint{}, ErrNotFound("Webhook endpoint")
	}
	if ep.ViaREST {
		return Endpoint{}, errorf(CodeConflict,
			"This endpoint was created over REST and is not managed in Settings: it cannot be re-enabled; delete it and subscribe again.")
	}
	if enabled && !ep.Enabled {
		ep.exhausted = 0
		now := c.clock.Now()
		for _, d := range c.wh.retrying {
			if d.Endpoint == id && !d.NextAttemptAt.After(now) {
				c.scheduleSweepLocked(now)
				break
			}
		}
	}
	ep.Enabled = enabled
	return cloneEndpoint(ep), nil
}

// Deliveries returns the delivery log of one endpoint (nil: of every endpoint), each endpoint's
// 20 most recent deliveries, newest first.
func (c *Core) Deliveries(endpoint *uuid.UUID) ([]Delivery, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var eps []*Endpoint
	if endpoint != nil {
		ep := c.wh.endpoints[*endpoint]
		if ep == nil {
			return nil, ErrNotFound("Webhook endpoint")
		}
		eps = []*Endpoint{ep}
	} else {
		for _, ep := range c.wh.endpoints {
			eps = append(eps, ep)
		}
	}
	out := []Delivery{}
	for _, ep := range eps {
		for _, d := range ep.log {
			out = append(out, cloneDelivery(d))
		}
	}
	slices.SortFunc(out, func(a, b Delivery) int { return cmp.Compare(b.seq, a.seq) })
	return out, nil
}

// SendTestEvent sends a report.completed-shaped event with test: true to an endpoint made in
// Settings, built from the workspace's most recent completed report or else a canned sample, and
// returns the delivery after its first attempt, which it makes at once (without the core's
// lock). A failed attempt is retried like any other.
func (c *Core) SendTestEvent(ctx context.Context, id uuid.UUID) (Delivery, error) {
	defer c.FlushNotices()
	now := c.clock.Now()
	c.mu.Lock()
	ep := c.wh.endpoints[id]
	switch {
	case ep == nil:
		c.mu.Unlock()
		return Delivery{}, ErrNotFound("Webhook endpoint")
	case ep.ViaREST:
		c.mu.Unlock()
		return Delivery{}, errorf(CodeConflict, "Test events are sent from Settings, which does not manage endpoints created over REST.")
	case !ep.Enabled:
		c.mu.Unlock()
		return Delivery{}, errorf(CodeConflict, "The endpoint is disabled; enable it before sending a test event.")
	}
	body := c.testEventBodyLocked(ep.Workspace, now)
	d := c.newDeliveryLocked(ep, EventReportCompleted, body, true, now)
	d.inFlight = true
	attempt := c.attemptLocked(ep, d, now)
	send := c.wh.cfg.Send
	c.mu.Unlock()

	out := sendOrFail(ctx, send, []wire.Attempt{attempt})

	c.mu.Lock()
	defer c.mu.Unlock()
	c.recordLocked(d, out[0], now)
	return cloneDelivery(d), nil
}

func sendOrFail(ctx context.Context, send func(context.Context, []wire.Attempt) []wire.Outcome, attempts []wire.Attempt) []wire.Outcome {
	if send == nil {
		out := make([]wire.Outcome, len(attempts))
		for i := range out {
			out[i] = wire.Outcome{Err: "delivery is not configured"}
		}
		return out
	}
	return send(ctx, attempts)
}

// newDeliveryLocked records a delivery in the endpoint's log.
func (c *Core) newDeliveryLocked(ep *Endpoint, typ string, body []byte, test bool, now time.Time) *Delivery {
	c.wh.seq++
	d := &Delivery{
		ID: c.rand.UUID(), Endpoint: ep.ID, EventType: typ, MessageID: wire.NewMessageID(c.rand), Test: test,
		Status: DeliveryPending, CreatedAt: now, Body: body, seq: c.wh.seq, gen: c.gen,
	}
	ep.log = append(ep.log, d)
	if len(ep.log) > DeliveryLogSize {
		ep.log = slices.Delete(ep.log, 0, len(ep.log)-DeliveryLogSize)
	}
	return d
}

func (c *Core) attemptLocked(ep *Endpoint, d *Delivery, now time.Time) wire.Attempt {
	return wire.Attempt{URL: ep.URL, MessageID: d.MessageID, Key: ep.key, Body: d.Body, At: now}
}

// deliverLocked queues an event's body for every enabled endpoint of the workspace that takes
// the event (and, when scoped to a series, this series). A disabled endpoint gets nothing, now
// or later. The first attempts go out from a task at the current instant, never from the
// caller.
func (c *Core) deliverLocked(ws uuid.UUID, series *uuid.UUID, typ string, body func() []byte, now time.Time) {
	var b []byte
	for _, ep := range c.wh.byWorkspace[ws] {
		if !ep.Enabled || !slices.Contains(ep.Events, typ) || (ep.Series != nil && (series == nil || *series != *ep.Series)) {
			continue
		}
		if b == nil {
			b = body()
		}
		c.wh.queue = append(c.wh.queue, c.newDeliveryLocked(ep, typ, b, false, now))
	}
	if len(c.wh.queue) > 0 && !c.wh.dispatching {
		c.wh.dispatching = true
		c.clock.At(now, c.dispatch)
	}
}

// dispatch makes the first attempts of the queued deliveries.
func (c *Core) dispatch(now time.Time) {
	c.mu.Lock()
	queue := c.wh.queue
	c.wh.queue, c.wh.dispatching = nil, false
	var batch []*Delivery
	var attempts []wire.Attempt
	for _, d := range queue {
		ep := c.wh.endpoints[d.Endpoint]
		switch {
		case ep == nil: // deleted meanwhile
		case !ep.Enabled:
			// Disabled after the event was queued: it waits like a retry, for re-enabling.
			d.NextAttemptAt = &now
			c.wh.retrying[d.ID] = d
		default:
			d.inFlight = true
			batch = append(batch, d)
			attempts = append(attempts, c.attemptLocked(ep, d, now))
		}
	}
	var w *inflight
	if len(batch) > 0 {
		w = c.startLocked()
	}
	c.mu.Unlock()
	c.run(w, batch, attempts, now)
}

// run makes attempts without the core's lock and records their outcomes. On a manual clock it
// returns once they are made, so that Advance returns only after the deliveries that fell due;
// on a real clock it returns at once, so that a slow receiver never holds up the clock.
//
// w counts the attempts among those of their state (startLocked, under the same lock as the
// batch was taken): a reset cancels them and waits for them.
func (c *Core) run(w *inflight, batch []*Delivery, attempts []wire.Attempt, now time.Time) {
	if len(batch) == 0 {
		return
	}
	c.mu.RLock()
	send := c.wh.cfg.Send
	c.mu.RUnlock()
	work := func() {
		defer w.wg.Done()
		out := sendOrFail(w.ctx, send, attempts)
		defer c.FlushNotices()
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, d := range batch {
			c.recordLocked(d, out[i], now)
		}
	}
	if c.clock.Manual() {
		work()
		return
	}
	go work()
}

// recordLocked applies an attempt's outcome: success, a retry on the ladder, or abandonment,
// which disables the endpoint after five in a row.
func (c *Core) recordLocked(d *Delivery, out wire.Outcome, at time.Time) {
	if d.gen != c.gen {
		return // the fake was reset while the attempt was made
	}
	ep, n, failed := c.attemptedLocked(d, out, at, false)
	if !failed {
		return
	}
	if d.Attempts-d.Resends >= MaxDeliveryAttempts {
		c.noticeLocked(n) // no next attempt: abandoned
		d.Status, d.NextAttemptAt = DeliveryAbandoned, nil
		delete(c.wh.retrying, d.ID)
		ep.exhausted++
		if ep.exhausted >= DisableAfterAbandoned && ep.Enabled {
			ep.Enabled = false
			c.endpointDisabledLocked(ep, at)
		}
		return
	}
	next := at.Add(RetryDelay(d.Attempts - d.Resends))
	n.NextAttempt = next
	c.noticeLocked(n)
	d.Status, d.NextAttemptAt = DeliveryRetrying, &next
	c.wh.retrying[d.ID] = d
	c.scheduleSweepLocked(next)
}

// attemptedLocked records what every attempt's outcome changes, a scheduled one's or a
// resend's: the attempt's count, time, answer and exchange, and on success the delivery done
// and its notice raised. failed says the attempt failed and its delivery's endpoint still
// exists: ep and the notice n (its kind, error and attempt filled in) are then the caller's
// to finish, by the ladder or as a resend.
func (c *Core) attemptedLocked(d *Delivery, out wire.Outcome, at time.Time, resend bool) (ep *Endpoint, n Notice, failed bool) {
	d.inFlight = false
	d.Attempts++
	if resend {
		d.Resends++
	}
	d.LastAttemptAt = &at
	d.ResponseCode = nil
	if out.StatusCode != 0 {
		code := out.StatusCode
		d.ResponseCode = &code
	}
	d.keepExchange(out)
	ep = c.wh.endpoints[d.Endpoint]
	if ep == nil { // deleted meanwhile
		delete(c.wh.retrying, d.ID)
		return nil, Notice{}, false
	}
	n = Notice{At: at, Workspace: ep.Workspace, Report: d.Report, Endpoint: ep.ID, Delivery: d.ID, URL: ep.URL,
		EventType: d.EventType, Attempt: d.Attempts, ResponseCode: out.StatusCode, Latency: out.Latency, Resend: resend}
	if out.OK() {
		n.Kind = NoticeDelivered
		c.noticeLocked(n)
		d.Status, d.LastError, d.NextAttemptAt = DeliverySucceeded, nil, nil
		delete(c.wh.retrying, d.ID)
		ep.exhausted = 0
		return ep, n, false
	}
	msg := out.Err
	d.LastError = &msg
	n.Kind, n.Err = NoticeAttemptFailed, msg
	return ep, n, true
}

// scheduleSweepLocked makes sure a sweep runs at the first sweep instant at or after t.
func (c *Core) scheduleSweepLocked(t time.Time) {
	at := NextRetrySweep(t)
	if c.wh.sweeps[at] {
		return
	}
	c.wh.sweeps[at] = true
	c.clock.At(at, c.sweep)
}

// sweep sends the retries that have fallen due to enabled endpoints.
func (c *Core) sweep(now time.Time) {
	c.mu.Lock()
	delete(c.wh.sweeps, now)
	var batch []*Delivery
	for _, d := range c.wh.retrying {
		if ep := c.wh.endpoints[d.Endpoint]; ep != nil && ep.Enabled && !d.inFlight && !d.NextAttemptAt.After(now) {
			batch = append(batch, d)
		}
	}
	// Oldest first, so that a receiver sees retries in the order the events happened.
	slices.SortFunc(batch, func(a, b *Delivery) int { return cmp.Compare(a.seq, b.seq) })
	attempts := make([]wire.Attempt, len(batch))
	for i, d := range batch {
		d.inFlight = true
		attempts[i] = c.attemptLocked(c.wh.endpoints[d.Endpoint], d, now)
	}
	var w *inflight
	if len(batch) > 0 {
		w = c.startLocked()
	}
	c.mu.Unlock()
	c.run(w, batch, attempts, now)
}

func cloneEndpoint(ep *Endpoint) Endpoint {
	out := *ep
	out.Events = slices.Clone(ep.Events)
	out.log = nil
	out.key = nil
	return out
}

func cloneDelivery(d *Delivery) Delivery {
	out := *d
	out.inFlight = false
	return out
}
