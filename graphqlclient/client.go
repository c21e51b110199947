package graphqlclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/Khan/genqlient/graphql"
	"github.com/google/uuid"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/ctxsleep"
)

// Path is where the GraphQL API lives under the base URL.
const Path = "/api/graphql"

// Client reads series and reports over the podqa GraphQL API. It is safe for concurrent use.
// Create one with New and reuse it.
type Client struct {
	rest *client.Client
	gql  graphql.Client

	workspace workspaceChoice

	// learned caches the organisation of an organisation key, found once through
	// currentApiKey.owner; learnedOK says whether it is known.
	mu        sync.Mutex
	learned   *string
	learnedOK bool

	// now and sleep are the clock of WaitForReport; WithClock replaces them.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// workspaceChoice is what WithOrganisation and WithPersonalWorkspace chose.
type workspaceChoice struct {
	mode         int // 0: learn from the key, 1: personal, 2: organisation
	organisation string
}

const (
	workspaceAuto = iota
	workspacePersonal
	workspaceOrganisation
)

type settings struct {
	rest      []client.Option
	workspace workspaceChoice
	now       func() time.Time
	sleep     func(ctx context.Context, d time.Duration) error
}

// Option configures New.
type Option func(*settings) error

// WithBaseURL sets the service's base URL, such as a fake's URL; as client.WithBaseURL.
func WithBaseURL(base string) Option { return WithClientOptions(client.WithBaseURL(base)) }

// WithHTTPClient sends the requests through hc; as client.WithHTTPClient.
func WithHTTPClient(hc *http.Client) Option { return WithClientOptions(client.WithHTTPClient(hc)) }

// WithRetryPolicy sets how often and how long requests are retried; as client.WithRetryPolicy.
// Queries are retried like REST reads.
func WithRetryPolicy(p client.RetryPolicy) Option {
	return WithClientOptions(client.WithRetryPolicy(p))
}

// WithUserAgent appends suffix to the User-Agent header; as client.WithUserAgent.
func WithUserAgent(suffix string) Option { return WithClientOptions(client.WithUserAgent(suffix)) }

// WithLogger logs each attempt and retry to l; as client.WithLogger.
func WithLogger(l *slog.Logger) Option { return WithClientOptions(client.WithLogger(l)) }

// WithClientOptions applies options of the REST client, which carries this client's requests:
// every transport option of package client works here the same way.
func WithClientOptions(opts ...client.Option) Option {
	return func(s *settings) error {
		s.rest = append(s.rest, opts...)
		return nil
	}
}

// WithOrganisation makes every workspace query read the organisation with this id (it must be
// one the key's account belongs to). Without it, the client reads what the key is bound to.
func WithOrganisation(organisationID string) Option {
	return func(s *settings) error {
		if _, err := parseID("organisation id", organisationID); err != nil {
			return err
		}
		s.workspace = workspaceChoice{mode: workspaceOrganisation, organisation: strings.ToLower(organisationID)}
		return nil
	}
}

// WithPersonalWorkspace makes every workspace query read the personal workspace of the account
// the key acts as, even for an organisation key (whose account is one of the organisation's
// owners).
func WithPersonalWorkspace() Option {
	return func(s *settings) error {
		s.workspace = workspaceChoice{mode: workspacePersonal}
		return nil
	}
}

// WithClock replaces the clock WaitForReport reads and waits on: now tells the time and sleep
// waits d or until ctx ends (returning ctx's error). Tests pass a fake's manual clock, so that
// no wait is slept. Default: the wall clock.
func WithClock(now func() time.Time, sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(s *settings) error {
		if now == nil || sleep == nil {
			return fmt.Errorf("%w: WithClock needs both now and sleep", client.ErrInvalidArgument)
		}
		s.now, s.sleep = now, sleep
		return nil
	}
}

// New returns a client that authenticates with apiKey, as client.New does; the options are
// those of package client (through the With* wrappers or WithClientOptions) and the workspace
// choice. An empty key is an error wrapping client.ErrInvalidArgument.
func New(apiKey string, opts ...Option) (*Client, error) {
	s := settings{now: time.Now, sleep: ctxsleep.Sleep}
	for _, opt := range opts {
		if err := opt(&s); err != nil {
			return nil, err
		}
	}
	rest, err := client.New(apiKey, s.rest...)
	if err != nil {
		return nil, err
	}
	c := &Client{rest: rest, workspace: s.workspace, now: s.now, sleep: s.sleep}
	c.gql = &transport{rest: rest}
	if s.workspace.mode == workspaceOrganisation {
		c.learned, c.learnedOK = &s.workspace.organisation, true
	}
	return c, nil
}

// BaseURL returns the base URL the client calls.
func (c *Client) BaseURL() string { return c.rest.BaseURL() }

// organisationArg is the organisationId every workspace query passes: the chosen organisation,
// nil for the personal workspace, or, by default, the organisation of an organisation key,
// learned once from currentApiKey.owner.
func (c *Client) organisationArg(ctx context.Context) (*string, error) {
	if c.workspace.mode == workspacePersonal {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learnedOK {
		return c.learned, nil
	}
	me, err := c.Me(ctx)
	if err != nil {
		return nil, fmt.Errorf("podqa: finding the workspace of the API key: %w", err)
	}
	if me.Key == nil {
		return nil, &Error{Op: "Me", Errors: []ErrorEntry{{Message: "the API key is not working: currentApiKey is null", Code: string(client.CodeInvalidAPIKey)}}}
	}
	if me.Key.Owner.IsOrganisation() {
		id := me.Key.Owner.ID
		c.learned = &id
	}
	c.learnedOK = true
	return c.learned, nil
}

// transport is genqlient's graphql.Client over the REST client's shared transport.
type transport struct {
	rest *client.Client
}

func (t *transport) MakeRequest(ctx context.Context, req *graphql.Request, resp *graphql.Response) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("podqa: GraphQL %s: encoding the request: %w", req.OpName, err)
	}
	raw, err := t.rest.PostQuery(ctx, Path, body)
	if err != nil {
		// A query the server refuses before running it (422, 400) still answers an errors array.
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode >= 400 && ae.StatusCode < 500 {
			if gerr := parseErrors(req.OpName, ae.StatusCode, ae.Body); gerr != nil {
				return gerr
			}
		}
		return err
	}
	return decodeAnswer(req.OpName, raw, resp.Data)
}

// decodeAnswer reads a 2xx GraphQL answer: its errors array as an *Error, else its data into
// data. Any errors entry fails the call, even beside partial data: the operations ask for
// nothing that may be partly missing.
func decodeAnswer(op string, raw []byte, data any) error {
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []ErrorEntry    `json:"errors"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return fmt.Errorf("podqa: GraphQL %s: decoding the response: %w", op, err)
	}
	if len(answer.Errors) > 0 {
		return &Error{Op: op, StatusCode: http.StatusOK, Errors: answer.Errors}
	}
	if len(answer.Data) == 0 || string(answer.Data) == "null" {
		return fmt.Errorf("podqa: GraphQL %s: the response has neither data nor errors", op)
	}
	if err := json.Unmarshal(answer.Data, data); err != nil {
		return fmt.Errorf("podqa: GraphQL %s: decoding the data: %w", op, err)
	}
	return nil
}

// parseErrors reads the errors array of a refused query; nil when body has none.
func parseErrors(op string, status int, body []byte) *Error {
	var answer struct {
		Errors []ErrorEntry `json:"errors"`
	}
	if json.Unmarshal(body, &answer) != nil || len(answer.Errors) == 0 {
		return nil
	}
	return &Error{Op: op, StatusCode: status, Errors: answer.Errors}
}

// parseID checks that id is a UUID before it is sent.
func parseID(what, id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", fmt.Errorf("%w: %s %q is not a UUID", client.ErrInvalidArgument, what, id)
	}
	return u.String(), nil
}

var _ graphql.Client = (*transport)(nil)
