package fakeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
	"github.com/podqa/podqa-go/fakeserver/internal/webhooks/wire"
)

// Fixtures is a start state: workspaces with their keys, webhook endpoints and standards, and
// hosted feeds, each named by a ref of the suite's choosing. Load one from JSON with
// LoadFixtures and start a fake with it through WithFixtures; the program's -fixtures flag
// does both.
type Fixtures struct {
	Workspaces []FixtureWorkspace
	Feeds      []FixtureFeed
}

// FixtureWorkspace is a workspace of a fixtures document. Only Ref, Type and Name are required.
type FixtureWorkspace struct {
	Ref string
	// Type is "personal" or "organisation".
	Type             string
	Name             string
	PlanAllowance    *float64
	PlanUsed         *float64
	PodcastLimit     *int
	ChargingEnabled  *bool
	APIKeys          []FixtureAPIKey
	WebhookEndpoints []FixtureEndpoint
	Standards        []FixtureStandard
	// DefaultStandard is the ref of one of Standards, or a built-in standard's name.
	DefaultStandard string
	// Series are shows the workspace holds as recorded (the program's import writes them),
	// RecordedReports its reports as recorded, served as they are.
	Series          []FixtureSeries
	RecordedReports []FixtureReport
}

// FixtureAPIKey is an API key; Key, when given, is the key's text (podqa_api_ and at least
// MinFixtureKeyLength more characters), so a suite can hard-code it; otherwise one is minted.
type FixtureAPIKey struct {
	Ref         string `json:"ref"`
	Description string `json:"description,omitempty"`
	Key         string `json:"key,omitempty"`
}

// MinFixtureKeyLength is how many characters a fixture key needs after the podqa_api_ prefix.
const MinFixtureKeyLength = 24

// FixtureEndpoint is a webhook endpoint as Settings makes it; Secret, when given, is its signing
// secret (whsec_ and base64), otherwise one is minted.
type FixtureEndpoint struct {
	Ref    string   `json:"ref"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Secret string   `json:"secret,omitempty"`
}

// FixtureStandard is a custom standard.
type FixtureStandard struct {
	Ref string
	StandardSpec
}

// FixtureFeed is a feed the fake hosts.
type FixtureFeed struct {
	Ref string
	HostedFeedSpec
}

// FixtureIDs maps each ref of the fixtures to what the fake made of it; the program prints it
// as the fixtures object of its JSON line.
type FixtureIDs struct {
	Workspaces       map[string]string     `json:"workspaces"`
	APIKeys          map[string]string     `json:"api_keys"`
	WebhookEndpoints map[string]string     `json:"webhook_endpoints"`
	Standards        map[string]string     `json:"standards"`
	Feeds            map[string]HostedFeed `json:"feeds"`
	// Series and Episodes map the refs of recorded series and episodes to their ids.
	Series   map[string]string `json:"series,omitempty"`
	Episodes map[string]string `json:"episodes,omitempty"`
}

// FixtureError is a refused fixtures document: Path names the bad entry the way a JSON path
// does, such as workspaces[0].api_keys[1].key.
type FixtureError struct {
	Path   string
	Reason string
}

func (e *FixtureError) Error() string {
	if e.Path == "" {
		return "fixtures: " + e.Reason
	}
	return "fixtures: " + e.Path + ": " + e.Reason
}

func fixtureErr(path, format string, args ...any) error {
	return &FixtureError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// maxFixturesSize bounds a fixtures document: 10,000 recorded reports of an import take about
// 75 MiB.
const maxFixturesSize = 256 << 20

// LoadFixtures reads a fixtures document strictly, in time linear in its size: unknown fields,
// a field twice in one object, null, values of the wrong type, credits that are not whole,
// missing, long or duplicate refs, duplicate keys and keys without the podqa_api_ prefix or
// longer than MaxFixtureKeyLength are refused with a *FixtureError naming the entry by its
// JSON path (a syntax error too). What only a fake can check (an unknown standard, a
// refused URL, an episode that cannot be synthesised) is checked by New.
func LoadFixtures(r io.Reader) (Fixtures, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFixturesSize+1))
	if err != nil {
		return Fixtures{}, fmt.Errorf("fixtures: %w", err)
	}
	if len(data) > maxFixturesSize {
		return Fixtures{}, fixtureErr("", "the document is larger than %d bytes", maxFixturesSize)
	}
	raw, kept, err := decodeFixturesJSON(data)
	if err != nil {
		return Fixtures{}, err
	}
	if err := checkShape(raw, reflect.TypeFor[fixturesJSON](), ""); err != nil {
		return Fixtures{}, err
	}
	var doc fixturesJSON
	// The kept parts, read once already, are not decoded a second time (see keptPart).
	strict := json.NewDecoder(bytes.NewReader(elideKept(data, kept)))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&doc); err != nil {
		// checkShape has already named anything the decoder refuses; this is a backstop.
		return Fixtures{}, fixtureErr("", "%s", jsonProblem(err))
	}
	restoreKept(&doc, data, kept)
	f, err := doc.fixtures()
	if err != nil {
		return Fixtures{}, err
	}
	return f, f.validate()
}

// checkShape walks a decoded document beside the Go type it must fit and names the first
// unknown field or value of the wrong kind by its path.
func checkShape(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t == rawMessageType {
		return nil // null is the zero value, as encoding/json reads it; a kept part is checked by validateRecorded
	}
	where := path
	if where == "" {
		where = "the document"
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return fixtureErr(where, "must be an object")
		}
		fields := map[string]reflect.Type{}
		collectFields(t, fields)
		for key, val := range obj {
			ft, known := fields[key]
			if !known {
				return fixtureErr(joinPath(path, shownKey(key)), "unknown field")
			}
			if err := checkShape(val, ft, joinPath(path, key)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte is base64 text
			if _, ok := v.(string); !ok {
				return fixtureErr(path, "must be base64 text")
			}
			return nil
		}
		arr, ok := v.([]any)
		if !ok {
			return fixtureErr(path, "must be an array")
		}
		for i, el := range arr {
			if err := checkShape(el, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return fixtureErr(where, "must be a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return fixtureErr(where, "must be true or false")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			return fixtureErr(where, "must be an integer")
		}
	case reflect.Float64, reflect.Float32:
		if _, ok := v.(json.Number); !ok {
			return fixtureErr(where, "must be a number")
		}
	}
	return nil
}

// collectFields lists a struct's JSON fields, embedded structs' included.
func collectFields(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			collectFields(f.Type, into)
			continue
		}
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = f.Type
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// validate checks what needs no fake: refs, types, key and secret texts, URLs.
func (f Fixtures) validate() error {
	refs := map[string]map[string]string{} // kind -> ref -> path of its first use
	ref := func(kind, path, r string) error {
		if strings.TrimSpace(r) == "" {
			return fixtureErr(path+".ref", "is required")
		}
		if len(r) > maxFixtureRef {
			return fixtureErr(path+".ref", "may be at most %d bytes", maxFixtureRef)
		}
		if refs[kind] == nil {
			refs[kind] = map[string]string{}
		}
		if first, dup := refs[kind][r]; dup {
			return fixtureErr(path+".ref", "%q is already the ref of %s", r, first)
		}
		refs[kind][r] = path
		return nil
	}
	keys := map[string]string{}
	recordedIDs := map[string]string{}
	for i, ws := range f.Workspaces {
		p := fmt.Sprintf("workspaces[%d]", i)
		if err := ref("workspace", p, ws.Ref); err != nil {
			return err
		}
		if ws.Type != string(core.Personal) && ws.Type != string(core.Organisation) {
			return fixtureErr(p+".type", "must be personal or organisation")
		}
		if strings.TrimSpace(ws.Name) == "" {
			return fixtureErr(p+".name", "is required")
		}
		if err := checkFixtureCredits(p+".plan_allowance", ws.PlanAllowance); err != nil {
			return err
		}
		if err := checkFixtureCredits(p+".plan_used", ws.PlanUsed); err != nil {
			return err
		}
		for j, k := range ws.APIKeys {
			kp := fmt.Sprintf("%s.api_keys[%d]", p, j)
			if err := ref("api key", kp, k.Ref); err != nil {
				return err
			}
			if k.Key == "" {
				continue
			}
			rest, ok := strings.CutPrefix(k.Key, core.KeyPrefix)
			switch {
			case !ok:
				return fixtureErr(kp+".key", "must start with %s", core.KeyPrefix)
			case len(rest) < MinFixtureKeyLength:
				return fixtureErr(kp+".key", "needs at least %d characters after %s", MinFixtureKeyLength, core.KeyPrefix)
			case len(rest) > MaxFixtureKeyLength:
				return fixtureErr(kp+".key", "may have at most %d characters after %s", MaxFixtureKeyLength, core.KeyPrefix)
			case strings.ContainsFunc(rest, func(c rune) bool { return !isKeyChar(c) }):
				return fixtureErr(kp+".key", "may hold only letters, digits, - and _ after %s", core.KeyPrefix)
			}
			if first, dup := keys[k.Key]; dup {
				return fixtureErr(kp+".key", "is already the key of %s", first)
			}
			keys[k.Key] = kp
		}
		for j, e := range ws.WebhookEndpoints {
			ep := fmt.Sprintf("%s.webhook_endpoints[%d]", p, j)
			if err := ref("webhook endpoint", ep, e.Ref); err != nil {
				return err
			}
			if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fixtureErr(ep+".url", "must be an absolute http or https URL")
			}
			if e.Secret != "" {
				if _, err := wire.DecodeSecret(e.Secret); err != nil {
					return fixtureErr(ep+".secret", "must be whsec_ followed by base64")
				}
			}
		}
		for j, s := range ws.Standards {
			if err := ref("standard", fmt.Sprintf("%s.standards[%d]", p, j), s.Ref); err != nil {
				return err
			}
		}
		if err := validateRecorded(p, ws, ref, recordedIDs); err != nil {
			return err
		}
	}
	for i, feed := range f.Feeds {
		if err := ref("feed", fmt.Sprintf("feeds[%d]", i), feed.Ref); err != nil {
			return err
		}
	}
	return nil
}

func isKeyChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// WithFixtures makes New load f as the fake's start state (Reset loads it again); a fixture the
// fake refuses makes New fail with a *FixtureError naming it. Fixtures() returns what each ref
// became.
func WithFixtures(f Fixtures) Option { return func(o *options) { o.fixtures = &f } }

// Fixtures returns what each ref of the fixtures became: ids, and the hosted feeds' URLs. The
// ids are the same after Reset.
func (s *Server) Fixtures() FixtureIDs {
	s.start.mu.Lock()
	defer s.start.mu.Unlock()
	return s.start.fixtureIDs
}

// loadStartFixtures loads the fixtures the fake started with, if any.
func (s *Server) loadStartFixtures() error {
	ids := FixtureIDs{Workspaces: map[string]string{}, APIKeys: map[string]string{}, WebhookEndpoints: map[string]string{},
		Standards: map[string]string{}, Feeds: map[string]HostedFeed{}}
	f := s.opts.fixtures
	if f == nil {
		s.start.fixtureIDs = ids
		return nil
	}
	if err := f.validate(); err != nil {
		return err
	}
	at := func(path string, err error) error {
		var fe *Error
		var ce *core.Error
		switch {
		case errors.As(err, &fe):
			return fixtureErr(path, "%s", strings.TrimSuffix(fe.Message, "."))
		case errors.As(err, &ce):
			return fixtureErr(path, "%s", strings.TrimSuffix(ce.Message, "."))
		}
		return fixtureErr(path, "%v", err)
	}
	// Feeds first: a workspace's endpoints and standards do not depend on them, and a suite
	// may point an endpoint at nothing hosted.
	for i, feed := range f.Feeds {
		hosted, err := s.hostFeed(feed.HostedFeedSpec)
		if err != nil {
			return at(fmt.Sprintf("feeds[%d]", i)+hostedEpisodePath(err), err)
		}
		ids.Feeds[feed.Ref] = hosted
	}
	for i, w := range f.Workspaces {
		p := fmt.Sprintf("workspaces[%d]", i)
		ws, err := s.CreateWorkspace(WorkspaceSpec{Type: w.Type, Name: w.Name, PlanAllowance: w.PlanAllowance,
			PodcastLimit: w.PodcastLimit, ChargingEnabled: w.ChargingEnabled})
		if err != nil {
			return at(p, err)
		}
		ids.Workspaces[w.Ref] = ws.ID
		if w.PlanUsed != nil {
			if err := s.SetCredits(ws.ID, CreditsChange{PlanUsed: w.PlanUsed}); err != nil {
				return at(p+".plan_used", err)
			}
		}
		wsID, _ := parseID(ws.ID, "Workspace")
		for j, k := range w.APIKeys {
			kp := fmt.Sprintf("%s.api_keys[%d]", p, j)
			var id string
			if k.Key == "" {
				key, err := s.CreateAPIKey(ws.ID, k.Description)
				if err != nil {
					return at(kp, err)
				}
				id = key.ID
			} else {
				rec, err := s.core.AddAPIKey(wsID, k.Description, k.Key)
				if err != nil {
					return at(kp+".key", err)
				}
				id = rec.ID.String()
			}
			ids.APIKeys[k.Ref] = id
		}
		for j, e := range w.WebhookEndpoints {
			ep := fmt.Sprintf("%s.webhook_endpoints[%d]", p, j)
			in := core.NewEndpoint{URL: e.URL, Events: e.Events, Secret: e.Secret}
			if err := s.checkWebhookURL(context.Background(), e.URL); err != nil {
				return fixtureErr(ep+".url", "refused by the webhook URL policy (a local receiver needs -allow-private-urls)")
			}
			created, _, err := s.core.CreateEndpoint(wsID, in, false)
			if err != nil {
				return at(ep, err)
			}
			ids.WebhookEndpoints[e.Ref] = created.ID.String()
		}
		byRef := map[string]string{}
		for j, std := range w.Standards {
			created, err := s.CreateStandard(ws.ID, std.StandardSpec)
			if err != nil {
				return at(fmt.Sprintf("%s.standards[%d]", p, j), err)
			}
			ids.Standards[std.Ref] = created.ID
			byRef[std.Ref] = created.ID
		}
		if w.DefaultStandard != "" {
			stdID, ok := byRef[w.DefaultStandard]
			if !ok {
				for _, b := range core.BuiltinStandards() {
					if strings.EqualFold(b.Name, w.DefaultStandard) {
						stdID, ok = b.ID.String(), true
					}
				}
			}
			if !ok {
				return fixtureErr(p+".default_standard", "%q is neither a ref of this workspace's standards nor a built-in standard", w.DefaultStandard)
			}
			if _, err := s.SetDefaultStandard(ws.ID, stdID); err != nil {
				return at(p+".default_standard", err)
			}
		}
		if err := s.loadRecorded(p, wsID, w, w.Type == string(core.Personal), &ids); err != nil {
			return err
		}
	}
	s.start.fixtureIDs = ids
	return nil
}

// DemoWorkspace is the Demo workspace and its key, ready for a client, as SeedDemo and NewTest
// make them.
type DemoWorkspace struct {
	WorkspaceID string
	APIKeyID    string
	// APIKey is the key itself, for Authorization: Bearer.
	APIKey string
}

// demoAllowance is the Demo workspace's monthly credits: 20 hours of audio, plenty for a quick
// start.
const demoAllowance = 12000

// SeedDemo creates the personal workspace named Demo, with enough credits for a quick start, and
// a key for it. The program seeds it at start.
//
// Reset makes the Demo workspace again, with the same ids and key, once SeedDemo has made it.
func (s *Server) SeedDemo() (_ DemoWorkspace, err error) {
	defer apiError(&err)
	s.start.mu.Lock()
	if s.start.demo == nil {
		s.start.demo = s.rand.Save()
	}
	s.start.mu.Unlock()
	return s.seedDemo()
}

func (s *Server) seedDemo() (DemoWorkspace, error) {
	allowance := float64(demoAllowance)
	limit := 10
	ws, err := s.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Demo", PlanAllowance: &allowance, PodcastLimit: &limit})
	if err != nil {
		return DemoWorkspace{}, err
	}
	key, err := s.CreateAPIKey(ws.ID, "Demo key")
	if err != nil {
		return DemoWorkspace{}, err
	}
	return DemoWorkspace{WorkspaceID: ws.ID, APIKeyID: key.ID, APIKey: key.Key}, nil
}

// TestStart returns the instant a NewTest fake's manual clock starts at unless an option says
// otherwise: fixed, so that tests are repeatable.
func TestStart() time.Time { return time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) }

// TB is what NewTest needs of a test: *testing.T, *testing.B, *testing.F and any testing.TB
// satisfy it. It is not testing.TB itself so that a program importing the fake (such as
// cmd/fakeserver) does not compile and link the testing package.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// NewTest starts a fake for a test, seeds the Demo workspace and its key (SeedDemo), and closes
// the fake when the test ends; New, by contrast, starts with no workspace and refuses loopback
// URLs. Its clock is manual and starts at TestStart() unless opts say otherwise, so
// the test moves time with Advance instead of sleeping. It accepts loopback and private URLs
// (WithPrivateURLs), so that the test's own feed servers and webhook receivers work; pass
// WithPrivateURLs(false) to test the service's refusals. Setup failures end the test with Fatal.
//
// A t that also has Log, Failed and Name, as every testing.TB does, hears the fake: its log
// lines go to t.Log from INFO up (WithTestLogLevel; WithLogger sends them elsewhere), which go
// test shows for a failed test or with -v, and none after the test has ended. When the test
// fails, the fake writes its run report (WithFailureReport; default in os.TempDir()) into files
// named after the test and says where in the test's log.
func NewTest(t TB, opts ...Option) (*Server, DemoWorkspace) {
	t.Helper()
	out, outOpts := newTestOutput(t, opts)
	t.Cleanup(out.end) // registered first, so it runs last: nothing reaches t after its end
	srv, err := New(append(append([]Option{WithManualClock(TestStart()), WithPrivateURLs(true)}, outOpts...), opts...)...)
	if err != nil {
		t.Fatalf("fakeserver: %v", err)
	}
	t.Cleanup(func() {
		out.beforeClose(srv)
		err := srv.Close()
		out.afterClose(srv, err)
		if err != nil {
			t.Errorf("fakeserver: close: %v", err)
		}
	})
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatalf("fakeserver: seed: %v", err)
	}
	return srv, seed
}
