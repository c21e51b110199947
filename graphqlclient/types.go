package graphqlclient

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/apitime"
)

// Identity is who the API key acts as and what it can reach.
type Identity struct {
	// User is the account the key acts as: the key's user, or one of an organisation's owners
	// for an organisation key.
	User *User
	// Key is the key used; nil when the service did not accept it.
	Key *APIKey
	// Organisations are the organisations the key's account belongs to.
	Organisations []Organisation
}

// User is an account.
type User struct {
	ID        string
	Email     string
	FirstName string
	LastName  string
}

// Organisation is an organisation workspace.
type Organisation struct {
	ID   string
	Name string
}

// APIKey is the record of the key used.
type APIKey struct {
	// MaskedKey is a truncated leading part of the key, enough to tell keys apart.
	MaskedKey string
	// Owner is what the key is bound to.
	Owner Owner
}

// Owner types the service documents; others can appear.
const (
	OwnerOrganisation = "OrganisationType"
	OwnerUser         = "UserType"
)

// Owner is the workspace an API key is bound to: an organisation (ID and Name) or a user (ID
// and Email). A type the package does not know is kept with its name and whatever id it had.
type Owner struct {
	// Type is the GraphQL type name: OwnerOrganisation, OwnerUser, or one added later.
	Type  string
	ID    string
	Name  string
	Email string
}

// IsOrganisation reports whether the key is an organisation's: then ID is the organisation id
// to read its workspace with.
func (o Owner) IsOrganisation() bool { return o.Type == OwnerOrganisation }

// Series is a show being audited.
type Series struct {
	ID    string
	Title string
	// Kind is PODCAST today; tolerate other values.
	Kind          client.SeriesKind
	CoverImageURL string
	// Sources are where the show's episodes come from (its RSS feed).
	Sources []Source
	// HistoricScores is the show's score history; only GetSeries reads it.
	HistoricScores []HistoricScore
}

// Source is a source of a series' episodes.
type Source struct {
	FeedURL string
	// LastCheck is when the source was last checked; zero when never (or not said).
	LastCheck time.Time
}

// HistoricScore is one point of a series' score history.
type HistoricScore struct {
	// ReportID is empty unless the caller can see the show.
	ReportID string
	// Passed and RequiredFailures are nil until the report completes, and for a caller who
	// cannot see the show.
	Passed           *bool
	RequiredFailures *int
}

// SeriesRef names the show a report belongs to.
type SeriesRef struct {
	ID    string
	Title string
}

// ReportSummary is a row of ListReports.
type ReportSummary struct {
	ID   string
	Name string
	// Status is upper case, as on REST; an unknown value is kept as it arrived.
	Status    client.Status
	CreatedAt time.Time
	UpdatedAt time.Time
	// Series is nil for a direct upload.
	Series *SeriesRef
	// Standard is the standard that judged the report, as recorded at creation.
	Standard *client.StandardRef
	// TranscriptIncluded says whether the report's standard keeps the transcript.
	TranscriptIncluded bool
	// Stats are decoded into the REST client's type; nil while the service has none.
	Stats *client.Stats
}

// Report is one report with every documented field. The fields GraphQL carries as JSON
// strings are decoded into the same types as the REST client's.
type Report struct {
	ID   string
	Name string
	// Status is upper case; an unknown value is kept as it arrived and is not final.
	Status     client.Status
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Stats      *client.Stats
	FileInfo   *client.FileInfo
	Metadata   *client.Metadata
	Results    []client.Result
	CoverImage *client.CoverImage
	// Transcript is nil until transcription finishes, and always when TranscriptIncluded is
	// false.
	Transcript []client.TranscriptEntry
	AudioURL   string
	// Series is nil for a direct upload.
	Series             *SeriesRef
	Standard           *client.StandardRef
	TranscriptIncluded bool
}

// Passed is the report's verdict: true only when stats.passed is present and true.
func (r *Report) Passed() bool { return r.Stats != nil && r.Stats.Passed }

// Result returns the result of the check named name, and whether the report has one.
func (r *Report) Result(name string) (client.Result, bool) {
	for _, res := range r.Results {
		if res.Name == name {
			return res, true
		}
	}
	return client.Result{}, false
}

// decodeJSONString decodes a JSONString field, text that holds JSON, into v; a nil field
// leaves v as it is and returns false.
func decodeJSONString(field string, s *string, v any) (bool, error) {
	if s == nil || *s == "" || *s == "null" {
		return false, nil
	}
	if err := json.Unmarshal([]byte(*s), v); err != nil {
		return false, fmt.Errorf("podqa: GraphQL field %s is not the JSON it should carry: %w", field, err)
	}
	return true, nil
}

// decodeOptional decodes a JSONString field into a new T, or nil when the field is null.
func decodeOptional[T any](field string, s *string) (*T, error) {
	var v T
	ok, err := decodeJSONString(field, s, &v)
	if !ok || err != nil {
		return nil, err
	}
	return &v, nil
}

// parseTime reads a DateTime field; nil or empty is the zero time.
func parseTime(field string, s *string) (time.Time, error) {
	if s == nil || *s == "" {
		return time.Time{}, nil
	}
	t, err := apitime.Parse(*s)
	if err != nil {
		return time.Time{}, fmt.Errorf("podqa: GraphQL field %s: %q is not a date-time", field, *s)
	}
	return t, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// decodeOwner reads the currentApiKey.owner union. A type name the package does not know is
// kept, not refused: the union can gain members.
func decodeOwner(raw json.RawMessage) (Owner, error) {
	var o struct {
		Typename string  `json:"__typename"`
		ID       *string `json:"id"`
		Name     *string `json:"name"`
		Email    *string `json:"email"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return Owner{}, nil
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return Owner{}, fmt.Errorf("podqa: GraphQL field currentApiKey.owner: %w", err)
	}
	return Owner{Type: o.Typename, ID: deref(o.ID), Name: deref(o.Name), Email: deref(o.Email)}, nil
}
