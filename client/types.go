package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Conventions of the types below: they decode what the service sends and ignore fields they do
// not know. A JSON null becomes the zero value (an empty string, the zero time.Time or Date);
// pointers are used where null means something a zero value cannot say (an object absent for a
// direct upload, a setting that may be unknown). Timestamps arrive in the fixed form
// `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` and are decoded as UTC time.Time values.

// Me is the answer of GET /me: the workspace the key is bound to and the key itself.
type Me struct {
	Workspace Workspace `json:"workspace"`
	// Key is the key used; nil when the caller authenticated with a browser session.
	Key *APIKey `json:"key"`
}

// Workspace is the one workspace a key is bound to: a personal workspace or an organisation.
type Workspace struct {
	// ID is the organisation's id, or the user's for a personal workspace.
	ID   string        `json:"id"`
	Type WorkspaceType `json:"type"`
	Name string        `json:"name"`
}

// APIKey is the record of an API key; it never holds the key itself.
type APIKey struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// MaskedKey is the start of the key and an ellipsis: enough to tell keys apart, never
	// enough to use one.
	MaskedKey string    `json:"masked_key"`
	CreatedAt time.Time `json:"created_at"`
	// LastUsedAt is stamped at most once a minute, so it may lag by up to 60 s; zero when the
	// key was never used.
	LastUsedAt time.Time `json:"last_used_at"`
}

// Series is a show being audited (the dashboard calls it a podcast).
type Series struct {
	ID    string     `json:"id"`
	Title string     `json:"title"`
	Kind  SeriesKind `json:"kind"`
	// FeedURL is the show's RSS feed; empty only for a rare show without one.
	FeedURL string `json:"feed_url"`
	// AutomatedReporting is this workspace's own setting: whether new episodes are reported on
	// automatically. Nil when the service did not say.
	AutomatedReporting *bool     `json:"automated_reporting"`
	CreatedAt          time.Time `json:"created_at"`
}

// Episode is an episode of a series, as the service recorded it. Only episodes seen since the
// show was added exist, not the back catalogue.
type Episode struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	GUID     string `json:"guid"`
	AudioURL string `json:"audio_url"`
	// PublishedOn is what the feed says.
	PublishedOn Date `json:"published_on"`
	// FirstSeenAt is when the service recorded the episode; listings are ordered by it.
	FirstSeenAt time.Time `json:"first_seen_at"`
}

// ReportListItem is a report as GET /reports lists it. Call GetReport for its results.
//
// It has no Name: the specification's list item carries no name field, and Report.Name is
// first the title tag read from the audio, which only the full report knows. Call GetReport
// for the name; Label gives one from what the item carries, without a request.
type ReportListItem struct {
	ID               string    `json:"id"`
	Status           Status    `json:"status"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
	OriginalFilename string    `json:"original_filename"`
	// Series and Episode are nil for a direct upload.
	Series  *ReportSeriesRef  `json:"series"`
	Episode *ReportEpisodeRef `json:"episode"`
}

// Label names the listed report from what the item carries: its episode's title, else its
// original file name. It equals Report.Name unless the audio has a title tag of its own.
func (r ReportListItem) Label() string {
	if r.Episode != nil && r.Episode.Title != "" {
		return r.Episode.Title
	}
	return r.OriginalFilename
}

// ReportSeriesRef is the show of a listed report.
type ReportSeriesRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ReportEpisodeRef is the episode of a listed report.
type ReportEpisodeRef struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	PublishedOn Date   `json:"published_on"`
}

// Report is a full report. While it runs, Stats, Results, FileInfo, Metadata and CoverImage are
// empty or partial; read them once Status is COMPLETE.
//
// The verdict is Passed (stats.passed), not Stats.Failures == 0: a failing informational check
// counts in Failures without failing the report. The verdict can change after completion (when
// the feed's explicit flag changes) without UpdatedAt moving; fetch the report again for the
// current one.
type Report struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Name is the title tag read from the audio, else the episode title, else the file name.
	Name             string    `json:"name"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
	StartedAt        time.Time `json:"started_at"`
	OriginalFilename string    `json:"original_filename"`
	PersonalReport   bool      `json:"personal_report"`
	// CreditsCharged is the credits debited at completion, exactly as the service wrote it;
	// empty until charged.
	CreditsCharged Decimal `json:"credits_charged"`
	// AudioURL is the URL of the analysed audio.
	AudioURL   string      `json:"audio_url"`
	Stats      *Stats      `json:"stats"`
	Results    []Result    `json:"results"`
	FileInfo   *FileInfo   `json:"file_info"`
	Metadata   *Metadata   `json:"metadata"`
	CoverImage *CoverImage `json:"cover_image"`
	// Standard is nil only if no standard existed to judge the report.
	Standard *StandardRef `json:"standard"`
	// Series and Episode are nil for a direct upload.
	Series  *ReportSeries  `json:"series"`
	Episode *ReportEpisode `json:"episode"`
}

// Passed is the report's verdict: true only when stats.passed is present and true, that is when
// no required check failed. Do not derive the verdict from Stats.Failures == 0: failing
// informational checks count there without failing the report. A report without stats (still
// running, failed) has not passed.
func (r *Report) Passed() bool { return r.Stats != nil && r.Stats.Passed }

// Result returns the result of the check named name, and whether the report has one.
func (r *Report) Result(name string) (Result, bool) {
	for _, res := range r.Results {
		if res.Name == name {
			return res, true
		}
	}
	return Result{}, false
}

// ReportSeries is the show a report belongs to.
type ReportSeries struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	FeedURL string `json:"feed_url"`
}

// ReportEpisode is the episode a report analysed.
type ReportEpisode struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	GUID        string `json:"guid"`
	AudioURL    string `json:"audio_url"`
	PublishedOn Date   `json:"published_on"`
}

// StandardRef names the standard (a set of checks with severities and limits) that judged a
// report.
type StandardRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Builtin is true for the standards the service ships (Podcast, AES speech, EBU R128).
	Builtin bool `json:"builtin"`
}

// Stats summarises a report's checks. While the report runs it may be empty or partial.
type Stats struct {
	Passes int `json:"passes"`
	// Failures counts failed checks, required and informational alike; it is not the verdict.
	Failures int `json:"failures"`
	Total    int `json:"total"`
	// Percent is the score: the share of checks that passed.
	Percent int `json:"percent"`
	// TimeRemaining is the estimated remaining run time in milliseconds while IN_PROGRESS; 0 in
	// every other state and before the audio is measured; negative when the run takes longer
	// than estimated, which means still working, not failure. See Remaining.
	TimeRemaining int64 `json:"time_remaining"`
	// Passed is the verdict: true only when no required check failed.
	Passed           bool `json:"passed"`
	RequiredFailures int  `json:"required_failures"`
	RequiredTotal    int  `json:"required_total"`
	// InfoFlagged counts informational checks outside their limit.
	InfoFlagged int `json:"info_flagged"`
	InfoTotal   int `json:"info_total"`
}

// Remaining returns TimeRemaining as a duration (negative when the run overruns its estimate).
func (s *Stats) Remaining() time.Duration { return time.Duration(s.TimeRemaining) * time.Millisecond }

// Result is the outcome of one check. Key on Name and tolerate names you do not know; the list
// length varies with the standard.
type Result struct {
	// Name is the stable key of the check, such as loudness_lufs, peak, explicit_flag,
	// unwanted_words or expected_words.
	Name        string      `json:"name"`
	VerboseName string      `json:"verbose_name"`
	Status      CheckStatus `json:"status"`
	// Value is the measurement, any JSON value: usually an unrounded number, an object for the
	// metadata and cover-image checks, a list for several checks. Read it with Float,
	// ExplicitFlag, Hits or ExpectedWords.
	Value           json.RawMessage `json:"value"`
	MeasurementUnit string          `json:"measurement_unit"`
	// Description is multi-paragraph Markdown.
	Description string `json:"description"`
	// WarningMessage is set on failures, empty on passes.
	WarningMessage string `json:"warning_message"`
	// Link may be empty.
	Link     string   `json:"link"`
	Severity Severity `json:"severity"`
	// Limit is the standard's limit in words (read it with ParseLimit); empty for checks with a
	// fixed rule and for explicit_flag.
	Limit string `json:"limit"`
}

// Failed reports whether the check failed.
func (r Result) Failed() bool { return r.Status == CheckFail }

// Float returns Value when it is a JSON number.
func (r Result) Float() (float64, bool) {
	v := bytes.TrimSpace(r.Value)
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// ExplicitFlag reads Value as the explicit_flag check's object; ok is false when Value is not
// a JSON object of that shape.
func (r Result) ExplicitFlag() (ExplicitFlag, bool) {
	var v ExplicitFlag
	if !r.decodeValue(&v, '{') {
		return ExplicitFlag{}, false
	}
	return v, true
}

// Hits reads Value as a list of hits, the shape of the unwanted_words check; ok is false when
// Value is not such a list.
func (r Result) Hits() ([]Hit, bool) {
	var hits []Hit
	if !r.decodeValue(&hits, '[') {
		return nil, false
	}
	return hits, true
}

// ExpectedWords reads Value as the expected_words check's list of phrases; ok is false when
// Value is not such a list.
func (r Result) ExpectedWords() ([]ExpectedWord, bool) {
	var words []ExpectedWord
	if !r.decodeValue(&words, '[') {
		return nil, false
	}
	return words, true
}

// decodeValue decodes Value into v when it opens with open ('{' or '[').
func (r Result) decodeValue(v any, open byte) bool {
	raw := bytes.TrimSpace(r.Value)
	return len(raw) > 0 && raw[0] == open && json.Unmarshal(raw, v) == nil
}

// ExplicitFlag is the value of the explicit_flag check. It fails when the episode is not marked
// explicit and at least one hit counts (see Hit.Counts).
type ExplicitFlag struct {
	MarkedExplicit bool  `json:"marked_explicit"`
	Profanities    []Hit `json:"profanities"`
}

// Hit is one occurrence found in the audio. Start and Finish are milliseconds from the start of
// the episode.
type Hit struct {
	Start  int `json:"start"`
	Finish int `json:"finish"`
	// Description shows the confidence as a percentage capped at 90%.
	Description string `json:"description"`
	// Confidence is 0 to 1; nil when the transcription gave none (and on older reports).
	Confidence *float64 `json:"confidence"`
}

// Counts reports whether the hit counts toward failing explicit_flag: when it has no
// confidence, or when its description shows 75% or more. The percentage is read from the
// description, as the service's rule says; when the description shows none, Confidence >= 0.75
// decides.
func (h Hit) Counts() bool {
	if h.Confidence == nil {
		return true
	}
	if pct, ok := shownPercent(h.Description); ok {
		return pct >= 75
	}
	return *h.Confidence >= 0.75
}

// shownPercent returns the last "NN%" (or "NN.N%") number in s.
func shownPercent(s string) (float64, bool) {
	end := strings.LastIndexByte(s, '%')
	if end < 0 {
		return 0, false
	}
	start := end
	for start > 0 && (s[start-1] >= '0' && s[start-1] <= '9' || s[start-1] == '.') {
		start--
	}
	f, err := strconv.ParseFloat(s[start:end], 64)
	return f, err == nil
}

// ExpectedWord is one phrase the standard expects and where it was said; Hits is empty when it
// was never said, which fails the expected_words check.
type ExpectedWord struct {
	Phrase string `json:"phrase"`
	Hits   []Hit  `json:"hits"`
}

// FileInfo holds technical facts about the audio file. Size and Duration are present for every
// report; the codec keys only when the file could be probed. The service documents neither
// their types nor their units, so each is a JSONValue.
type FileInfo struct {
	Size       JSONValue `json:"size"`
	Duration   JSONValue `json:"duration"`
	CodecName  JSONValue `json:"codec_name"`
	FormatName JSONValue `json:"format_name"`
	Channels   JSONValue `json:"channels"`
	SampleRate JSONValue `json:"sample_rate"`
}

// Metadata holds the tags read from the audio file; their types are not documented beyond
// Chapters being a list.
type Metadata struct {
	Title     JSONValue   `json:"title"`
	Artist    JSONValue   `json:"artist"`
	Album     JSONValue   `json:"album"`
	TrackNum  JSONValue   `json:"track_num"`
	Year      JSONValue   `json:"year"`
	Copyright JSONValue   `json:"copyright"`
	Chapters  []JSONValue `json:"chapters"`
	Comments  JSONValue   `json:"comments"`
}

// CoverImage is the cover image embedded in the audio file; value types are not documented.
type CoverImage struct {
	Width    JSONValue `json:"width"`
	Height   JSONValue `json:"height"`
	FileSize JSONValue `json:"file_size"`
	URL      JSONValue `json:"url"`
}

// Transcript is the transcript of a report.
type Transcript struct {
	ReportID string `json:"report_id"`
	// Entries is nil when the report has no transcript.
	Entries []TranscriptEntry `json:"transcript"`
}

// TranscriptEntry is one transcribed segment; Start and End are milliseconds from the start of
// the episode.
type TranscriptEntry struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
	// Speaker is "Speaker 1", "Speaker 2", ... in order of first appearance; empty when the
	// report predates speaker detection or detection failed.
	Speaker string `json:"speaker"`
}

// UploadReservation is where to upload audio and the id to create its report with.
type UploadReservation struct {
	// ReportID goes to CreateReportFromUpload, from this workspace, once, within 7 days.
	ReportID string `json:"report_id"`
	// UploadURL takes one PUT of the audio, with the Content-Type given to ReserveUpload and no
	// service credentials, within 15 minutes.
	UploadURL string `json:"upload_url"`
}

// CreatedReport is the answer of the CreateReportFrom* calls.
type CreatedReport struct {
	ID string `json:"id"`
	// Status is whatever the report reached when the answer was sent; PENDING and IN_PROGRESS
	// are both normal.
	Status Status `json:"status"`
	// EstimatedCredits is the pre-flight estimate of the upload form, nil for the other forms
	// and when the answer was recovered after a retry (see CreateReportFromUpload).
	EstimatedCredits *int `json:"estimated_credits"`
}

// Credits is the workspace's credit position. Gate on Balance.
type Credits struct {
	// Balance is what can be spent now, summed over every unexpired lot; it need not equal
	// PlanRemaining + TopupBalance.
	Balance       float64 `json:"balance"`
	PlanAllowance float64 `json:"plan_allowance"`
	PlanUsed      float64 `json:"plan_used"`
	// PlanRemaining is what is left of the current period's plan lot only.
	PlanRemaining float64 `json:"plan_remaining"`
	TopupBalance  float64 `json:"topup_balance"`
	// TopupExpiresAt is the soonest expiry among TopupLots; zero when there are none.
	TopupExpiresAt time.Time `json:"topup_expires_at"`
	// TopupLots are the top-ups held, soonest-expiring first.
	TopupLots []TopupLot `json:"topup_lots"`
	// FreeAllowance is true when PlanAllowance is the free tier's.
	FreeAllowance bool `json:"free_allowance"`
	// Progress is PlanUsed / (PlanUsed + Balance), 0 to 1; 1 when no credits are held.
	Progress float64 `json:"progress"`
	// FinishDate ends the current plan period, when the allowance resets.
	FinishDate time.Time `json:"finish_date"`
	// ChargingEnabled false means costs are worked out and shown but nothing is deducted and
	// nothing is refused for lack of credit.
	ChargingEnabled bool `json:"charging_enabled"`
}

// TopupLot is a purchased top-up with credit left.
type TopupLot struct {
	AmountRemaining int `json:"amount_remaining"`
	// ExpiresAt is zero only for a top-up that never expires.
	ExpiresAt time.Time `json:"expires_at"`
}

// WebhookSubscribeParams describes a webhook endpoint to create.
type WebhookSubscribeParams struct {
	// URL must be publicly reachable; https is advised.
	URL string `json:"url"`
	// Events is the non-empty set of events to deliver.
	Events []WebhookEvent `json:"events"`
	// SeriesID optionally restricts deliveries to one of the workspace's series.
	SeriesID string `json:"series_id,omitempty"`
}

// WebhookSubscription is a webhook endpoint just created.
type WebhookSubscription struct {
	// ID is what UnsubscribeWebhook takes.
	ID string `json:"id"`
	// Secret is the signing secret (whsec_...), shown only here: store it. If it is lost,
	// unsubscribe and subscribe again.
	Secret string `json:"secret"`
}

// normalizer is implemented by the types that hold timestamps: normalize puts them in UTC.
// time.Time's decoder keeps the +00:00 offset the service writes as a fixed zone (or as Local
// when Local is at offset 0), so values decoded by this package are normalised once, after
// decoding, so that their Location is always time.UTC.
type normalizer interface{ normalize() }

func utc(t *time.Time) {
	if !t.IsZero() {
		*t = t.UTC()
	}
}

func (m *Me) normalize() {
	if m.Key != nil {
		utc(&m.Key.CreatedAt)
		utc(&m.Key.LastUsedAt)
	}
}

func (s *Series) normalize()         { utc(&s.CreatedAt) }
func (e *Episode) normalize()        { utc(&e.FirstSeenAt) }
func (r *ReportListItem) normalize() { utc(&r.CreatedAt); utc(&r.UpdatedAt) }

func (r *Report) normalize() {
	utc(&r.CreatedAt)
	utc(&r.UpdatedAt)
	utc(&r.StartedAt)
}

func (c *Credits) normalize() {
	utc(&c.TopupExpiresAt)
	utc(&c.FinishDate)
	for i := range c.TopupLots {
		utc(&c.TopupLots[i].ExpiresAt)
	}
}

func (p *Page[T]) normalize() {
	for i := range p.Items {
		if n, ok := any(&p.Items[i]).(normalizer); ok {
			n.normalize()
		}
	}
}
