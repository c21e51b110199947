package drift

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"
)

// ImportSummary is what Import recorded.
type ImportSummary struct {
	// WorkspaceType and WorkspaceName are the workspace's, as GET /me named it.
	WorkspaceType, WorkspaceName string
	Series, Episodes, Reports    int
	// FixtureKey is the imported workspace's key in the fixtures: WithFixtureKey's, else a
	// fresh one. It is never the key the import was made with.
	FixtureKey string
	// Warnings are what could not be recorded as it was, such as a series without a feed.
	Warnings []string
}

// Import reads the workspace of apiKey at baseURL (GET /me, its series and their episodes, its
// newest reports up to WithLimit with each one's full answer and transcript, and GraphQL's
// transcriptIncluded of them) and writes to w a fixtures document the fake loads
// (fakeserver.LoadFixtures, the program's -fixtures): the workspace with the fixture key,
// its series, their episodes and its reports as recorded. apiKey itself is never written.
// Errors wrap ErrUnreachable, ErrNotJSON, ErrKeyRefused or ErrInvalidArgument where they
// apply; nothing is written to w before the workspace, its series and the report listing
// have been read.
func Import(ctx context.Context, baseURL, apiKey string, w io.Writer, opts ...Option) (ImportSummary, error) {
	s, err := newSettings(append([]Option{WithAPIKey(apiKey)}, opts...))
	if err != nil {
		return ImportSummary{}, err
	}
	if s.fixtureKey == s.apiKey {
		return ImportSummary{}, fmt.Errorf("%w: the fixture key must not be the key imported with, which is never written", ErrInvalidArgument)
	}
	if s.fixtureKey == "" {
		s.fixtureKey = freshKey()
	}
	sv, err := newService(baseURL, s)
	if err != nil {
		return ImportSummary{}, err
	}
	im := &importer{sv: sv, s: s, seriesRef: map[string]*seriesDoc{}, episodeRef: map[string]string{}}
	return im.run(ctx, w)
}

// freshKey is a new podqa_api_ key of 32 random characters.
func freshKey() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return keyPrefix + string(b)
}

// The fixtures document as Import writes it (fakeserver's fixtures format).
type (
	workspaceDoc struct {
		Ref     string   `json:"ref"`
		Type    string   `json:"type"`
		Name    string   `json:"name"`
		APIKeys []keyDoc `json:"api_keys"`
	}
	keyDoc struct {
		Ref         string `json:"ref"`
		Description string `json:"description"`
		Key         string `json:"key"`
	}
	seriesDoc struct {
		Ref                string       `json:"ref"`
		ID                 string       `json:"id"`
		Title              *string      `json:"title,omitempty"`
		FeedURL            string       `json:"feed_url"`
		AutomatedReporting bool         `json:"automated_reporting,omitempty"`
		CreatedAt          string       `json:"created_at,omitempty"`
		Episodes           []episodeDoc `json:"episodes,omitempty"`
	}
	episodeDoc struct {
		Ref         string  `json:"ref"`
		ID          string  `json:"id"`
		Title       *string `json:"title,omitempty"`
		GUID        string  `json:"guid,omitempty"`
		AudioURL    string  `json:"audio_url"`
		PublishedOn string  `json:"published_on,omitempty"`
		FirstSeenAt string  `json:"first_seen_at,omitempty"`
	}
	reportDoc struct {
		ID                 string          `json:"id"`
		Status             string          `json:"status"`
		Name               *string         `json:"name,omitempty"`
		CreatedAt          string          `json:"created_at"`
		UpdatedAt          string          `json:"updated_at,omitempty"`
		StartedAt          string          `json:"started_at,omitempty"`
		OriginalFilename   string          `json:"original_filename"`
		PersonalReport     *bool           `json:"personal_report,omitempty"`
		CreditsCharged     *string         `json:"credits_charged,omitempty"`
		AudioURL           *string         `json:"audio_url,omitempty"`
		Standard           json.RawMessage `json:"standard,omitempty"`
		TranscriptIncluded *bool           `json:"transcript_included,omitempty"`
		Series             string          `json:"series,omitempty"`
		Episode            string          `json:"episode,omitempty"`
		Stats              json.RawMessage `json:"stats,omitempty"`
		Results            json.RawMessage `json:"results,omitempty"`
		FileInfo           json.RawMessage `json:"file_info,omitempty"`
		Metadata           json.RawMessage `json:"metadata,omitempty"`
		CoverImage         json.RawMessage `json:"cover_image,omitempty"`
		Transcript         json.RawMessage `json:"transcript,omitempty"`
	}
)

// The answers Import reads (REST's shapes).
type (
	page[T any] struct {
		Items   []T  `json:"items"`
		HasMore bool `json:"has_more"`
	}
	seriesAnswer struct {
		ID                 string  `json:"id"`
		Title              *string `json:"title"`
		FeedURL            *string `json:"feed_url"`
		AutomatedReporting *bool   `json:"automated_reporting"`
		CreatedAt          *string `json:"created_at"`
	}
	episodeAnswer struct {
		ID          string  `json:"id"`
		Title       *string `json:"title"`
		GUID        *string `json:"guid"`
		AudioURL    string  `json:"audio_url"`
		PublishedOn *string `json:"published_on"`
		FirstSeenAt *string `json:"first_seen_at"`
	}
	reportAnswer struct {
		ID               string          `json:"id"`
		Status           string          `json:"status"`
		Name             *string         `json:"name"`
		CreatedAt        *string         `json:"created_at"`
		UpdatedAt        *string         `json:"updated_at"`
		StartedAt        *string         `json:"started_at"`
		OriginalFilename string          `json:"original_filename"`
		PersonalReport   *bool           `json:"personal_report"`
		CreditsCharged   *string         `json:"credits_charged"`
		AudioURL         *string         `json:"audio_url"`
		Stats            json.RawMessage `json:"stats"`
		Results          json.RawMessage `json:"results"`
		FileInfo         json.RawMessage `json:"file_info"`
		Metadata         json.RawMessage `json:"metadata"`
		CoverImage       json.RawMessage `json:"cover_image"`
		Standard         json.RawMessage `json:"standard"`
		Series           *seriesAnswer   `json:"series"`
		Episode          *episodeAnswer  `json:"episode"`
	}
)

type importer struct {
	sv         *service
	s          *settings
	sum        ImportSummary
	series     []*seriesDoc
	seriesRef  map[string]*seriesDoc // series id -> its entry
	episodeRef map[string]string     // episode id -> its ref
	episodes   int
}

// pageSize is the most a REST page holds.
const pageSize = 100

func (im *importer) run(ctx context.Context, w io.Writer) (ImportSummary, error) {
	var me struct {
		Workspace struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"workspace"`
	}
	if err := im.getJSON(ctx, "/me", &me); err != nil {
		return ImportSummary{}, err
	}
	im.sum.WorkspaceType, im.sum.WorkspaceName, im.sum.FixtureKey = me.Workspace.Type, me.Workspace.Name, im.s.fixtureKey
	if err := im.readSeries(ctx); err != nil {
		return ImportSummary{}, err
	}
	ids, err := im.listReports(ctx)
	if err != nil {
		return ImportSummary{}, err
	}
	included := im.transcriptIncluded(ctx, me.Workspace.Type, me.Workspace.ID, len(ids))

	out := bufio.NewWriter(w)
	ws := workspaceDoc{Ref: "imported", Type: me.Workspace.Type, Name: me.Workspace.Name,
		APIKeys: []keyDoc{{Ref: "imported-key", Description: "imported", Key: im.s.fixtureKey}}}
	head, err := json.Marshal(ws)
	if err != nil {
		return ImportSummary{}, err
	}
	// The workspace object stays open for its reports, then its series (which reports may add
	// to) close it.
	fmt.Fprintf(out, "{\"workspaces\":[%s,\"recorded_reports\":[", head[:len(head)-1])
	started := im.sv.clock.Now()
	for i, id := range ids {
		doc, err := im.readReport(ctx, id, included)
		if err != nil {
			return ImportSummary{}, err
		}
		line, err := json.Marshal(doc)
		if err != nil {
			return ImportSummary{}, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n")
		out.Write(line)
		im.sum.Reports++
		im.progress(started, i+1, len(ids))
	}
	out.WriteString("\n],\"series\":[")
	for i, sd := range im.series {
		line, err := json.Marshal(sd)
		if err != nil {
			return ImportSummary{}, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n")
		out.Write(line)
	}
	out.WriteString("\n]}]}\n")
	im.sum.Series, im.sum.Episodes = len(im.series), im.episodes
	return im.sum, out.Flush()
}

func (im *importer) getJSON(ctx context.Context, path string, into any) error {
	body, err := im.sv.get(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%w: GET %s: %s", ErrNotJSON, path, err)
	}
	return nil
}

// readSeries lists every series and its episodes.
func (im *importer) readSeries(ctx context.Context) error {
	for offset := 0; ; offset += pageSize {
		var p page[seriesAnswer]
		if err := im.getJSON(ctx, fmt.Sprintf("/series?limit=%d&offset=%d", pageSize, offset), &p); err != nil {
			return err
		}
		for _, sa := range p.Items {
			sd := im.addSeries(sa)
			if sd == nil {
				continue
			}
			for eoff := 0; ; eoff += pageSize {
				var ep page[episodeAnswer]
				if err := im.getJSON(ctx, fmt.Sprintf("/series/%s/episodes?limit=%d&offset=%d", url.PathEscape(sa.ID), pageSize, eoff), &ep); err != nil {
					return err
				}
				for _, ea := range ep.Items {
					im.addEpisode(sd, ea)
				}
				if !ep.HasMore || len(ep.Items) == 0 {
					break
				}
			}
		}
		if !p.HasMore || len(p.Items) == 0 {
			return nil
		}
	}
}

// addSeries records a series once; nil for one the fixtures cannot hold (no feed URL).
func (im *importer) addSeries(sa seriesAnswer) *seriesDoc {
	if sd, ok := im.seriesRef[sa.ID]; ok {
		return sd
	}
	if sa.FeedURL == nil || *sa.FeedURL == "" {
		im.seriesRef[sa.ID] = nil
		im.sum.Warnings = append(im.sum.Warnings, fmt.Sprintf("series %s has no feed URL: left out, its reports recorded without their show", sa.ID))
		return nil
	}
	sd := &seriesDoc{Ref: "s" + strconv.Itoa(len(im.series)+1), ID: sa.ID, Title: sa.Title, FeedURL: *sa.FeedURL, CreatedAt: deref(sa.CreatedAt)}
	if sa.AutomatedReporting != nil {
		sd.AutomatedReporting = *sa.AutomatedReporting
	}
	im.series = append(im.series, sd)
	im.seriesRef[sa.ID] = sd
	return sd
}

func (im *importer) addEpisode(sd *seriesDoc, ea episodeAnswer) string {
	if ref, ok := im.episodeRef[ea.ID]; ok {
		return ref
	}
	im.episodes++
	ref := "e" + strconv.Itoa(im.episodes)
	sd.Episodes = append(sd.Episodes, episodeDoc{Ref: ref, ID: ea.ID, Title: ea.Title, GUID: deref(ea.GUID), AudioURL: ea.AudioURL,
		PublishedOn: deref(ea.PublishedOn), FirstSeenAt: deref(ea.FirstSeenAt)})
	im.episodeRef[ea.ID] = ref
	return ref
}

// listReports lists the ids of the newest reports, up to the limit, each once.
func (im *importer) listReports(ctx context.Context) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	for offset := 0; len(ids) < im.s.limit; offset += pageSize {
		var p page[struct {
			ID string `json:"id"`
		}]
		if err := im.getJSON(ctx, fmt.Sprintf("/reports?limit=%d&offset=%d", pageSize, offset), &p); err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			if !seen[it.ID] && len(ids) < im.s.limit {
				seen[it.ID] = true
				ids = append(ids, it.ID)
			}
		}
		if !p.HasMore || len(p.Items) == 0 {
			break
		}
	}
	return ids, nil
}

// transcriptIncluded asks GraphQL which of the newest n reports keep their transcript (REST
// does not say); a failure is a warning, and every report is then recorded as keeping it.
func (im *importer) transcriptIncluded(ctx context.Context, wsType, wsID string, n int) map[string]bool {
	if n == 0 {
		return nil
	}
	vars := map[string]any{"limit": n}
	query := `query($limit: Int) { reports(limit: $limit) { id transcriptIncluded } }`
	if wsType == "organisation" {
		vars["org"] = wsID
		query = `query($limit: Int, $org: UUID) { reports(limit: $limit, organisationId: $org) { id transcriptIncluded } }`
	}
	data, err := im.sv.graphQL(ctx, query, vars)
	var answer struct {
		Reports []struct {
			ID                 string `json:"id"`
			TranscriptIncluded bool   `json:"transcriptIncluded"`
		} `json:"reports"`
	}
	if err == nil {
		err = json.Unmarshal(data, &answer)
	}
	if err != nil {
		im.sum.Warnings = append(im.sum.Warnings, "GraphQL's transcriptIncluded could not be read ("+err.Error()+"): every report recorded as keeping its transcript")
		return nil
	}
	out := make(map[string]bool, len(answer.Reports))
	for _, r := range answer.Reports {
		out[r.ID] = r.TranscriptIncluded
	}
	if len(out) < n {
		im.sum.Warnings = append(im.sum.Warnings, fmt.Sprintf("GraphQL's reports listed %d of the %d newest reports REST listed: the others recorded as keeping their transcript", len(out), n))
	}
	return out
}

// readReport reads one report's full answer and its transcript as a recorded report.
func (im *importer) readReport(ctx context.Context, id string, included map[string]bool) (reportDoc, error) {
	var ra reportAnswer
	if err := im.getJSON(ctx, "/reports/"+url.PathEscape(id), &ra); err != nil {
		return reportDoc{}, err
	}
	var tr struct {
		Transcript json.RawMessage `json:"transcript"`
	}
	if err := im.getJSON(ctx, "/reports/"+url.PathEscape(id)+"/transcript", &tr); err != nil {
		return reportDoc{}, err
	}
	doc := reportDoc{
		ID: ra.ID, Status: ra.Status, Name: ra.Name, UpdatedAt: deref(ra.UpdatedAt), StartedAt: deref(ra.StartedAt),
		OriginalFilename: ra.OriginalFilename, PersonalReport: ra.PersonalReport, CreditsCharged: ra.CreditsCharged, AudioURL: ra.AudioURL,
		Standard: notNull(ra.Standard), Stats: notNull(ra.Stats), Results: notNull(ra.Results), FileInfo: notNull(ra.FileInfo),
		Metadata: notNull(ra.Metadata), CoverImage: notNull(ra.CoverImage), Transcript: notNull(tr.Transcript),
	}
	switch {
	case ra.CreatedAt != nil:
		doc.CreatedAt = *ra.CreatedAt
	case ra.UpdatedAt != nil:
		doc.CreatedAt = *ra.UpdatedAt
		im.sum.Warnings = append(im.sum.Warnings, "report "+id+" has no created_at: recorded with its updated_at")
	default:
		return reportDoc{}, fmt.Errorf("%w: GET /reports/%s: neither created_at nor updated_at", ErrNotJSON, id)
	}
	if inc, ok := included[id]; ok && !inc {
		doc.TranscriptIncluded = &inc
	}
	if ra.Series != nil {
		if sd := im.addSeries(*ra.Series); sd != nil && ra.Episode != nil {
			doc.Series, doc.Episode = sd.Ref, im.addEpisode(sd, *ra.Episode)
		}
	}
	return doc, nil
}

// progress writes a line every 25 reports and at the end of an import of more than 25.
func (im *importer) progress(started time.Time, done, total int) {
	if im.s.progress == nil || total <= 25 || (done%25 != 0 && done != total) {
		return
	}
	elapsed := im.sv.clock.Now().Sub(started)
	if elapsed <= 0 {
		fmt.Fprintf(im.s.progress, "import: %d/%d reports\n", done, total)
		return
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second)
	fmt.Fprintf(im.s.progress, "import: %d/%d reports, %.1f reports/s, about %s left\n", done, total, rate, left)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// notNull is b, or nil for JSON null (left out of the document).
func notNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return compactJSON(b)
}
