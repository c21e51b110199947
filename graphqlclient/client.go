package graphqlclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/Khan/genqlient/graphql"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/ids"
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

	clock client.Clock // WaitForLatestReport's; the REST client's unless WithClock
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
	workspace workspaceChoice
	clock     client.Clock
}

// Option configures New.
type Option func(*settings) error

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

// WithClock replaces the clock WaitForLatestReport reads and waits on. Default: the clock of
// the REST client given to New (client.WithClock), so that one clock set there serves both.
func WithClock(clk client.Clock) Option {
	return func(s *settings) error {
		if clk == nil {
			return fmt.Errorf("%w: nil Clock", client.ErrInvalidArgument)
		}
		s.clock = clk
		return nil
	}
}

// New returns a GraphQL client that sends its queries through c, a REST client: its key, base
// URL, HTTP client, retries, logging, middleware and clock serve both. A nil c is an error
// wrapping client.ErrInvalidArgument.
func New(c *client.Client, opts ...Option) (*Client, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil *client.Client", client.ErrInvalidArgument)
	}
	s := settings{clock: c.Clock()}
	for _, opt := range opts {
		if err := opt(&s); err != nil {
			return nil, err
		}
	}
	g := &Client{rest: c, workspace: s.workspace, clock: s.clock}
	g.gql = &transport{rest: c}
	if s.workspace.mode == workspaceOrganisation {
		g.learned, g.learnedOK = &s.workspace.organisation, true
	}
	return g, nil
}

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

func (t *transport) MakeRequest(ctx context.Context, req *graphql.Request, answer *graphql.Response) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("podqa: GraphQL %s: encoding the request: %w", req.OpName, err)
	}
	resp, err := t.rest.Do(ctx, client.RawRequest{Method: http.MethodPost, Path: Path, Body: body, Idempotent: true})
	if err != nil {
		// A query the server refuses before running it answers an errors array: with 200 under
		// application/json (read below), with 4xx (400, 422) under
		// application/graphql-response+json or from older servers.
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode >= 400 && ae.StatusCode < 500 {
			if gerr := parseErrors(req.OpName, ae.StatusCode, ae.Body); gerr != nil {
				return gerr
			}
		}
		return err
	}
	return decodeAnswer(req.OpName, resp.Body, answer.Data)
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
	u, err := ids.Parse(what, id, client.ErrInvalidArgument)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

var _ graphql.Client = (*transport)(nil)
