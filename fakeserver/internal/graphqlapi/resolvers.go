package graphqlapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/gqlhttp"
	"github.com/podqa/podqa-go/fakeserver/internal/graphiql"
	"github.com/podqa/podqa-go/fakeserver/internal/graphql/exec"
	"github.com/podqa/podqa-go/fakeserver/internal/graphql/model"
	"github.com/podqa/podqa-go/fakeserver/internal/httpmw"
	"github.com/podqa/podqa-go/fakeserver/internal/views"
	"github.com/podqa/podqa-go/internal/apitime"
	"github.com/podqa/podqa-go/internal/ids"
)

// Handler serves /api/graphql: POST runs a query through the gqlgen executor over the
// domain core; GET serves the offline explorer (GraphiQL, package graphiql). The credentials, the per-key limit and
// last_used_at stamping are REST's; a request without a working credential still runs, as the
// anonymous caller that may only read reports by id.
func (a *API) Handler() http.Handler {
	srv := handler.New(exec.NewExecutableSchema(exec.Config{Schema: ServedSchema(), Resolvers: &gqlResolver{a: a}, Complexity: Complexity()}))
	srv.AddTransport(transport.POST{})
	srv.Use(extension.Introspection{})
	useValidationFront(srv)
	srv.Use(&CostLimits{})
	srv.SetErrorPresenter(a.presentGraphQLError)
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		a.log.Error("panic in a GraphQL resolver", "panic", v)
		return httpmw.ErrInternal()
	})
	api := a.graphqlCredentials(requireJSONQuery(srv))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(graphiql.Page())
		case http.MethodPost:
			body, err := httpmw.ReadBody(r, httpmw.MaxAPIBody)
			// Request errors get the status and shape GraphQL over HTTP gives them for the
			// negotiated media type (package gqlhttp).
			answer := gqlhttp.NewAnswer(w, r.Header.Get("Accept"), body)
			if err != nil {
				writeGraphQLRefusal(answer, err)
			} else {
				r.Body = io.NopCloser(bytes.NewReader(body))
				api.ServeHTTP(&CapAnswer{ResponseWriter: answer}, r)
			}
			answer.Finish()
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			httpmw.WriteError(w, httpmw.ErrMethodNotAllowed("Method "+r.Method+" is not allowed here."))
		}
	})
}

// requireJSONQuery refuses a POST whose body is not declared as JSON, in GraphQL's shape.
func requireJSONQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpmw.IsJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(w, r)
			return
		}
		writeGraphQLRefusal(w, core.ErrValidation("Content-Type must be application/json."))
	})
}

// writeGraphQLRefusal answers a request refused before execution in GraphQL's shape: one errors
// entry whose extensions.code is the REST code, with the refusal's HTTP status.
func writeGraphQLRefusal(w http.ResponseWriter, err error) {
	e := httpmw.AsError(err)
	body, _ := json.Marshal(map[string]any{
		"errors": []map[string]any{{
			"message":    e.Message,
			"extensions": map[string]any{"code": e.Code},
		}},
		"data": nil,
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
}

// graphqlCredentials lets a request in through the core's GraphQL door (a bearer key, a
// sessionid cookie, which the explorer uses, or nothing) and answers a limit's refusal. A refused
// credential goes on without a principal: GraphQL reports such problems per field in its errors
// array, and report(id) needs no key at all.
func (a *API) graphqlCredentials(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.enter(r, core.GraphQL)
		var limited *core.LimitRefusal
		if errors.As(err, &limited) {
			httpmw.WriteError(w, limited)
			return
		}
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, httpmw.Admit(r, p))
	})
}

// presentGraphQLError writes a domain refusal as an errors entry whose extensions.code is the
// REST error code; anything else from a resolver is an internal error, logged.
func (a *API) presentGraphQLError(ctx context.Context, err error) *gqlerror.Error {
	var ce *core.Error
	if errors.As(err, &ce) {
		out := gqlerror.WrapPath(graphql.GetPath(ctx), err)
		out.Message = ce.Message
		out.Extensions = map[string]any{"code": ce.Code}
		return out
	}
	var ge *gqlerror.Error
	if errors.As(err, &ge) {
		return ge
	}
	a.log.Error("GraphQL resolver failed", "err", err)
	internal := httpmw.ErrInternal()
	out := gqlerror.WrapPath(graphql.GetPath(ctx), internal)
	out.Message = internal.Message
	out.Extensions = map[string]any{"code": internal.Code}
	return out
}

// gqlResolver implements the generated executor's resolvers over the domain core.
type gqlResolver struct{ a *API }

var _ exec.ResolverRoot = (*gqlResolver)(nil)

// Query returns the resolvers of the Query type.
func (r *gqlResolver) Query() exec.QueryResolver { return &gqlQuery{a: r.a} }

type gqlQuery struct {
	a *API
}

// caller is the principal of a request that needs a working credential.
func caller(ctx context.Context) (core.Principal, error) {
	p := httpmw.Principal(ctx)
	if p.Account.ID == uuid.Nil {
		return core.Principal{}, core.ErrInvalidAPIKey()
	}
	return p, nil
}

// workspace picks the workspace a query reads: the acting account's personal workspace, or the
// organisation named by organisationId when the account belongs to it.
func (q *gqlQuery) workspace(ctx context.Context, organisationID *string) (core.Principal, error) {
	p, err := caller(ctx)
	if err != nil {
		return core.Principal{}, err
	}
	org, err := optGraphQLID("organisationId", organisationID)
	if err != nil {
		return core.Principal{}, err
	}
	return q.a.core.SelectWorkspace(p, org)
}

// parseGraphQLID reads an id argument by the id rule (core.CanonicalID). A UUID's 36 characters
// in another case name nothing (core.NoID), so the field answers as for an id the fake does not
// hold; any other text is refused.
func parseGraphQLID(arg, v string) (uuid.UUID, error) {
	if id, ok := core.CanonicalID(v); ok {
		return id, nil
	}
	if _, ok := ids.Canonical(v); ok {
		return core.NoID, nil
	}
	return uuid.Nil, core.ErrValidation("%s must be a UUID in its canonical form.", arg)
}

func optGraphQLID(arg string, v *string) (*uuid.UUID, error) {
	if v == nil {
		return nil, nil
	}
	id, err := parseGraphQLID(arg, *v)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

func optGraphQLTime(arg string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := apitime.ParseLenient(*v)
	if err != nil {
		return nil, core.ErrValidation("%s must be an ISO-8601 date-time.", arg)
	}
	return &t, nil
}

// pageWindow applies a listing's default size and refuses negative values.
func pageWindow(limit, offset *int, defaultLimit int) (int, int, error) {
	l, o := defaultLimit, 0
	if limit != nil {
		l = *limit
	}
	if offset != nil {
		o = *offset
	}
	if l < 0 {
		return 0, 0, core.ErrValidation("limit must not be negative.")
	}
	if o < 0 {
		return 0, 0, core.ErrValidation("offset must not be negative.")
	}
	return l, o, nil
}

// User answers user: the account the credential acts as.
func (q *gqlQuery) User(ctx context.Context) (*model.UserType, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if p, err = q.a.core.Current(p); err != nil { // a reset since the door let it in
		return nil, err
	}
	return gqlUser(p.Account), nil
}

func gqlUser(a core.Account) *model.UserType {
	return &model.UserType{ID: a.ID.String(), Email: nonEmpty(a.Email), FirstName: nonEmpty(a.FirstName), LastName: nonEmpty(a.LastName)}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// CurrentAPIKey answers currentApiKey: null without a working key.
func (q *gqlQuery) CurrentAPIKey(ctx context.Context) (*model.APIKeyType, error) {
	p := httpmw.Principal(ctx)
	if p.Key == nil {
		return nil, nil
	}
	p, err := q.a.core.Current(p)
	if err != nil || p.Key == nil {
		return nil, nil // a reset since the door let it in, and the new state does not hold the key
	}
	out := &model.APIKeyType{MaskedKey: p.Key.MaskedKey}
	if p.Workspace.Type == core.Organisation {
		out.Owner = model.OrganisationType{ID: p.Workspace.ID.String(), Name: nonEmpty(p.Workspace.Name)}
	} else {
		u := gqlUser(p.Account)
		out.Owner = *u
	}
	return out, nil
}

// Organisations answers organisations: those the acting account belongs to.
func (q *gqlQuery) Organisations(ctx context.Context) ([]*model.OrganisationType, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	out := []*model.OrganisationType{}
	for _, ws := range q.a.core.Organisations(p.Account.ID) {
		out = append(out, &model.OrganisationType{ID: ws.ID.String(), Name: nonEmpty(ws.Name)})
	}
	return out, nil
}

// SeriesList answers seriesList: the selected workspace's shows by title.
func (q *gqlQuery) SeriesList(ctx context.Context, limit, offset *int, organisationID *string) ([]*model.SeriesType, error) {
	p, err := q.workspace(ctx, organisationID)
	if err != nil {
		return nil, err
	}
	l, o, err := pageWindow(limit, offset, SeriesLimit)
	if err != nil {
		return nil, err
	}
	page := q.a.core.SeriesByTitleFor(p, l, o)
	out := make([]*model.SeriesType, 0, len(page.Items))
	for _, sr := range page.Items {
		out = append(out, q.series(sr))
	}
	return out, nil
}

// Podcasts answers the podcasts alias exactly as seriesList.
func (q *gqlQuery) Podcasts(ctx context.Context, limit, offset *int, organisationID *string) ([]*model.SeriesType, error) {
	return q.SeriesList(ctx, limit, offset, organisationID)
}

// Series answers series(id): any show by id, its history visible only to who can see it.
func (q *gqlQuery) Series(ctx context.Context, id string, organisationID *string) (*model.SeriesType, error) {
	sid, err := parseGraphQLID("id", id)
	if err != nil {
		return nil, err
	}
	p := httpmw.Principal(ctx)
	if organisationID != nil {
		// Reading "as" an organisation needs a caller who belongs to it; it does not change who
		// sees the history: a key always sees its own shows.
		if _, err := q.workspace(ctx, organisationID); err != nil {
			return nil, err
		}
	}
	sr, ok := q.a.core.SeriesFor(p, sid)
	if !ok {
		return nil, core.ErrNotFound("Series")
	}
	return q.series(sr), nil
}

// Podcast answers the podcast(id) alias exactly as series(id).
func (q *gqlQuery) Podcast(ctx context.Context, id string) (*model.SeriesType, error) {
	return q.Series(ctx, id, nil)
}

// series renders a show as the caller sees it.
func (q *gqlQuery) series(sr core.SeenSeries) *model.SeriesType {
	feed := sr.FeedURL
	var lastCheck *string
	if at, ok := q.a.core.FeedLastCheck(feed); ok {
		stamp := apitime.Format(at)
		lastCheck = &stamp
	}
	out := &model.SeriesType{
		ID: sr.ID.String(), Title: views.OptString(sr.Title), Kind: model.SeriesKindPodcast,
		FeedURL:        &feed,
		CoverImageURL:  sr.CoverImageURL,
		LastCheck:      lastCheck,
		Sources:        []*model.SeriesSourceType{{FeedURL: &feed, LastCheck: lastCheck}},
		HistoricScores: []*model.HistoricScoreType{},
	}
	for _, h := range sr.History {
		point := &model.HistoricScoreType{Passed: h.Passed, RequiredFailures: h.RequiredFailures}
		if h.Report != uuid.Nil {
			id := h.Report.String()
			point.ReportID = &id
		}
		out.HistoricScores = append(out.HistoricScores, point)
	}
	return out
}

// gqlStatusFilter maps the stored lower-case form of the status filter to the core's statuses.
// awaiting_review is accepted but no report ever has it.
var gqlStatusFilter = map[string]string{
	"pending":         core.StatusPending,
	"scheduled":       core.StatusScheduled,
	"in_progress":     core.StatusInProgress,
	"complete":        core.StatusComplete,
	"failed":          core.StatusFailed,
	"out_of_quota":    core.StatusOutOfQuota,
	"awaiting_review": "",
}

// Reports answers reports: the selected workspace's reports, newest first.
func (q *gqlQuery) Reports(ctx context.Context, organisationID *string, limit, offset *int, forSeriesID, seriesID, podcastID, createdSince, updatedSince, status *string) ([]*model.ReportType, error) {
	p, err := q.workspace(ctx, organisationID)
	if err != nil {
		return nil, err
	}
	l, o, err := pageWindow(limit, offset, ReportsLimit)
	if err != nil {
		return nil, err
	}
	var f core.ReportFilter
	if f.SeriesID, err = optGraphQLID("forSeriesId", forSeriesID); err != nil {
		return nil, err
	}
	if f.CreatedSince, err = optGraphQLTime("createdSince", createdSince); err != nil {
		return nil, err
	}
	if f.UpdatedSince, err = optGraphQLTime("updatedSince", updatedSince); err != nil {
		return nil, err
	}
	legacy := seriesID
	if legacy == nil {
		legacy = podcastID
	}
	if legacy != nil && organisationID == nil {
		// seriesId is scoped to the caller, not to the selected workspace: it reads the show's
		// own workspace when the caller belongs to it (the specification warns against it).
		sid, err := parseGraphQLID("seriesId", *legacy)
		if err != nil {
			return nil, err
		}
		acting, visible, err := q.a.core.ActInSeriesWorkspace(p, sid)
		if err != nil {
			return nil, err
		}
		if !visible || (f.SeriesID != nil && *f.SeriesID != sid) {
			return []*model.ReportType{}, nil
		}
		p = acting
		f.SeriesID = &sid
	}
	if status != nil {
		stored, ok := gqlStatusFilter[*status]
		if !ok || stored == "" {
			// Not an error: an upper-case or unknown value matches nothing.
			return []*model.ReportType{}, nil
		}
		f.Status = stored
	}
	page, err := q.a.core.ListReports(p, f, l, o)
	if err != nil {
		return nil, err
	}
	out := make([]*model.ReportType, 0, len(page.Items))
	for _, r := range page.Items {
		m, err := q.report(r)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Report answers report(id): any report by id, with or without a key.
func (q *gqlQuery) Report(ctx context.Context, id string) (*model.ReportType, error) {
	rid, err := parseGraphQLID("id", id)
	if err != nil {
		return nil, err
	}
	r, ok := q.a.core.ReportByID(rid)
	if !ok {
		return nil, core.ErrNotFound("Report")
	}
	return q.report(r)
}

// report renders a report from the view REST's body is made of (internal/views): its
// JSON-string fields are the view's encoded parts, so both APIs carry identical content.
func (q *gqlQuery) report(r core.Report) (*model.ReportType, error) {
	view, err := q.a.views.Report(r)
	if err != nil {
		return nil, err
	}
	transcript, err := views.Transcript(r)
	if err != nil {
		return nil, err
	}
	out := &model.ReportType{
		ID: r.ID.String(), Name: view.Name, Status: model.ReportStatus(r.Status),
		CreatedAt: stringPtr(apitime.Format(r.CreatedAt)), UpdatedAt: stringPtr(apitime.Format(r.UpdatedAt)),
		AudioURL:           view.AudioURL,
		Standard:           &model.StandardType{ID: r.Standard.ID.String(), Name: r.Standard.Name, Builtin: r.Standard.Builtin},
		TranscriptIncluded: core.TranscriptIncluded(r.Standard),
		Stats:              jsonText(view.Stats),
		FileInfo:           jsonText(view.FileInfo),
		Metadata:           jsonText(view.Metadata),
		Results:            jsonText(view.Results),
		CoverImage:         jsonText(view.CoverImage),
		Transcript:         jsonText(transcript),
	}
	if view.Series != nil {
		out.Series = &model.ReportSeriesType{ID: view.Series.ID.String(), Title: view.Series.Title}
		out.Podcast = out.Series
	}
	return out, nil
}

// jsonText is a view's encoded part as GraphQL's JSON text, or nil (GraphQL null) when absent.
func jsonText(b json.RawMessage) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func stringPtr(s string) *string { return &s }
