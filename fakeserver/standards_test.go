package fakeserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/control"
	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

func decodeAs[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func TestControlStandards(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	ws := "/_fake/workspaces/" + seed.WorkspaceID
	status, _, body := call(t, srv, "POST", ws+"/standards", admin(srv),
		`{"name":"House style","based_on":"EBU R128","unwanted_words":["um","you know"],"expected_words":["thanks for listening"],"transcript_included":false}`)
	if status != 201 {
		t.Fatalf("create: %d %s", status, body)
	}
	created := decodeAs[control.StandardJSON](t, body)
	if created.Name != "House style" || created.Builtin || created.BasedOn != "EBU R128" || created.TranscriptIncluded ||
		strings.Join(created.UnwantedWords, "|") != "um|you know" || created.CreatedAt == nil || *created.CreatedAt != "2026-01-05T09:00:00.000000+00:00" {
		t.Fatalf("created %s", body)
	}
	tests := []struct {
		name, method, path, body string
		header                   http.Header
		status                   int
		code                     string
	}{
		{"no admin token", "POST", ws + "/standards", `{"name":"A"}`, jsonHeader(bearer(seed.APIKey)), 401, "invalid_api_key"},
		{"no name", "POST", ws + "/standards", `{"name":""}`, admin(srv), 400, "validation_error"},
		{"unknown field", "POST", ws + "/standards", `{"name":"A","limit":{}}`, admin(srv), 400, "validation_error"},
		{"unknown limit", "POST", ws + "/standards", `{"name":"A","limits":{"loudness":-16}}`, admin(srv), 400, "validation_error"},
		{"inverted loudness range", "POST", ws + "/standards", `{"name":"A","limits":{"loudness_lufs":{"min":-14,"max":-18}}}`, admin(srv), 400, "validation_error"},
		{"rates both ways", "POST", ws + "/standards", `{"name":"A","limits":{"sample_rates_hz":[48000],"min_sample_rate_hz":44100}}`, admin(srv), 400, "validation_error"},
		{"negative silence", "POST", ws + "/standards", `{"name":"A","limits":{"long_silence_s":-2}}`, admin(srv), 400, "validation_error"},
		{"huge silence", "POST", ws + "/standards", `{"name":"A","limits":{"long_silence_s":1e300}}`, admin(srv), 400, "validation_error"},
		{"unknown base", "POST", ws + "/standards", `{"name":"A","based_on":"Loud"}`, admin(srv), 400, "validation_error"},
		{"empty phrase", "POST", ws + "/standards", `{"name":"A","expected_words":["!!"]}`, admin(srv), 400, "validation_error"},
		{"name taken", "POST", ws + "/standards", `{"name":"house STYLE"}`, admin(srv), 409, "conflict"},
		{"unknown workspace", "POST", "/_fake/workspaces/00000000-0000-4000-8000-000000000000/standards", `{"name":"A"}`, admin(srv), 404, "not_found"},
		{"default needs an id", "PUT", ws + "/default-standard", `{"standard_id":null}`, admin(srv), 400, "validation_error"},
		{"default unknown", "PUT", ws + "/default-standard", `{"standard_id":"00000000-0000-4000-8000-000000000000"}`, admin(srv), 404, "not_found"},
		{"default malformed", "PUT", ws + "/default-standard", `{"standard_id":"nope"}`, admin(srv), 404, "not_found"},
		{"series unknown", "PUT", "/_fake/series/00000000-0000-4000-8000-000000000000/standard", `{"standard_id":null}`, admin(srv), 404, "not_found"},
		{"default without standard_id", "PUT", ws + "/default-standard", `{}`, admin(srv), 400, "validation_error"},
		{"default with a number", "PUT", ws + "/default-standard", `{"standard_id":7}`, admin(srv), 400, "validation_error"},
		{"series without standard_id", "PUT", "/_fake/series/00000000-0000-4000-8000-000000000000/standard", `{}`, admin(srv), 400, "validation_error"},
		{"series with an empty id", "PUT", "/_fake/series/00000000-0000-4000-8000-000000000000/standard", `{"standard_id":""}`, admin(srv), 404, "not_found"},
	}
	for _, tt := range tests {
		status, _, body := call(t, srv, tt.method, tt.path, tt.header, tt.body)
		if status != tt.status || errorCode(t, body) != tt.code {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
	// Explicit limits replace the base's; the answer shows the whole set.
	status, _, body = call(t, srv, "POST", ws+"/standards", admin(srv),
		`{"name":"Loud","limits":{"loudness_lufs":{"min":-15,"max":-13},"min_sample_rate_hz":22050,"channels":[2],"long_silence_s":1.5,"bitrate_kbps":0}}`)
	loud := decodeAs[control.StandardJSON](t, body)
	if status != 201 || *loud.Limits.LoudnessLUFS != (control.LoudnessRangeJSON{Min: -15, Max: -13}) || *loud.Limits.MonoLoudnessLUFS != (control.LoudnessRangeJSON{Min: -20, Max: -18}) ||
		loud.Limits.SampleRatesHz != nil || *loud.Limits.MinSampleRateHz != 22050 || *loud.Limits.LongSilenceS != 1.5 ||
		*loud.Limits.BitrateKbps != 0 || *loud.Limits.MonoBitrateKbps != 64 || *loud.Limits.TruePeakDBTP != -1 {
		t.Fatalf("with limits: %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", ws+"/standards", admin(srv), "")
	list := decodeAs[struct{ Items []control.StandardJSON }](t, body).Items
	if status != 200 || len(list) != 5 || list[0].Name != "Podcast" || !list[0].Builtin || list[0].CreatedAt != nil || list[3].ID != created.ID {
		t.Fatalf("list: %d %s", status, body)
	}
	// The Go methods see the same state.
	goList, err := srv.Standards(seed.WorkspaceID)
	if err != nil || len(goList) != 5 || goList[2].Name != StandardEBUR128 || *goList[2].Limits.LoudnessLUFS != (LoudnessRange{-23.5, -22.5}) {
		t.Fatalf("Standards: %v %v", goList, err)
	}
	status, _, body = call(t, srv, "PUT", ws+"/default-standard", admin(srv), `{"standard_id":"`+created.ID+`"}`)
	if status != 200 || decodeAs[control.StandardJSON](t, body).ID != created.ID {
		t.Fatalf("set default: %d %s", status, body)
	}
	_, err = srv.CreateStandard(seed.WorkspaceID, StandardSpec{Name: "House style"})
	var e *Error
	if !errors.As(err, &e) || e.Code != "conflict" {
		t.Fatalf("Go CreateStandard with a taken name: %v", err)
	}
	if _, err := srv.SetSeriesStandard("not-a-uuid", ""); !errors.As(err, &e) || e.Status != 404 {
		t.Fatalf("SetSeriesStandard on a bad id: %v", err)
	}
}

// TestStandardsJudgeReports assigns a custom standard to one show over HTTP and a built-in as
// the workspace default with the Go methods, and reads the verdicts over REST.
func TestStandardsJudgeReports(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	script := []TranscriptLine{
		{Start: 0, End: 2000 * time.Millisecond, Text: "Um, welcome back.", Speaker: ptrTo("host"), Confidence: ptrTo(0.95)},
		{Start: 2000 * time.Millisecond, End: 4000 * time.Millisecond, Text: "Damn, good to be here.", Speaker: ptrTo("guest"), Confidence: ptrTo(0.7)},
	}
	first, err := srv.HostFeed(HostedFeedSpec{Title: "First", Episodes: []HostedEpisode{
		{Title: "One", GUID: "1", Duration: 1 * time.Second, Format: "wav", Transcript: script}, {Title: "Two", GUID: "2", Duration: 1 * time.Second, Format: "wav", Transcript: script},
	}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := srv.HostFeed(HostedFeedSpec{Title: "Second", Episodes: []HostedEpisode{{Title: "S", GUID: "s", Duration: 1 * time.Second, Format: "wav", Transcript: script}}})
	if err != nil {
		t.Fatal(err)
	}
	report := func(feedURL string, index int) reportAnswer {
		t.Helper()
		status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feedURL+`","episode_index":`+itoa(index)+`}`)
		if status != 201 {
			t.Fatalf("create: %d %s", status, body)
		}
		if _, err := srv.Advance(time.Second); err != nil {
			t.Fatal(err)
		}
		return getReport(t, srv, seed.APIKey, decodeAs[struct{ ID string }](t, body).ID)
	}
	before := report(first.FeedURL, 1)
	if before.Standard.Name != "Podcast" || before.Status != "COMPLETE" {
		t.Fatalf("before: %+v", before)
	}
	// explicit_flag: the feed is not marked explicit and "damn" shows 70%: listed, not counted.
	for _, r := range before.Results {
		if r.Name == "explicit_flag" && (r.Status != "PASS" || !strings.Contains(string(r.Value), `\"damn\" (70%)`)) {
			t.Fatalf("explicit_flag %s %s", r.Status, r.Value)
		}
		if r.Name == "unwanted_words" {
			t.Fatal("Podcast lists no unwanted words")
		}
	}
	std, err := srv.CreateStandard(seed.WorkspaceID, StandardSpec{Name: "No ums", UnwantedWords: []string{"um"}, ExpectedWords: []string{"welcome back", "goodbye"}})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := call(t, srv, "PUT", "/_fake/series/"+before.Series.ID+"/standard", admin(srv), `{"standard_id":"`+std.ID+`"}`)
	if status != 200 || decodeAs[control.StandardJSON](t, body).Name != "No ums" {
		t.Fatalf("assign: %d %s", status, body)
	}
	all, _ := srv.Standards(seed.WorkspaceID)
	if _, err := srv.SetDefaultStandard(seed.WorkspaceID, all[1].ID); err != nil { // AES speech
		t.Fatal(err)
	}
	judged := report(first.FeedURL, 0)
	if judged.Standard.Name != "No ums" || judged.Standard.Builtin {
		t.Fatalf("standard %+v", judged.Standard)
	}
	rows := map[string]string{}
	for _, r := range judged.Results {
		rows[r.Name] = r.Status + " " + string(r.Value)
	}
	if !strings.HasPrefix(rows["unwanted_words"], `FAIL [{"start":0,"finish":235,"description":"\"um\" (90%)","confidence":0.95}]`) ||
		!strings.HasPrefix(rows["expected_words"], `FAIL [{"phrase":"welcome back","hits":[{"start":470,"finish":1882,`) ||
		!strings.Contains(rows["expected_words"], `{"phrase":"goodbye","hits":[]}`) {
		t.Fatalf("word rows %q %q", rows["unwanted_words"], rows["expected_words"])
	}
	if other := report(second.FeedURL, 0); other.Standard.Name != "AES speech" || !other.Standard.Builtin {
		t.Fatalf("a show without its own standard: %+v", other.Standard)
	}
	// Clearing the show's standard over HTTP brings the default back.
	status, _, body = call(t, srv, "PUT", "/_fake/series/"+before.Series.ID+"/standard", admin(srv), `{"standard_id":null}`)
	if status != 200 || decodeAs[control.StandardJSON](t, body).Name != "AES speech" {
		t.Fatalf("clear: %d %s", status, body)
	}
}

func synthWAV(t *testing.T, seconds float64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := audio.SynthesizeTo(&buf, audio.SynthSpec{DurationSeconds: seconds, SampleRate: 8000, Channels: 1, LoudnessLUFS: -19}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func uploadReport(t *testing.T, srv *Server, key string, wav []byte) string {
	t.Helper()
	res := reserve(t, srv, key, 2000)
	if status, b := put(t, srv, res.UploadURL, "audio/wav", nil, string(wav)); status != 200 {
		t.Fatalf("put: %d %s", status, b)
	}
	status, _, b := call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(key)),
		`{"report_id":"`+res.ReportID+`","original_filename":"up.wav","duration_ms":2000}`)
	if status != 201 {
		t.Fatalf("create: %d %s", status, b)
	}
	return res.ReportID
}

func TestUploadTranscriptScriptedByContent(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	wav, other := synthWAV(t, 2), synthWAV(t, 3)
	sum := sha256.Sum256(wav)
	status, _, body := call(t, srv, "POST", "/_fake/transcripts", admin(srv),
		`{"audio_sha256":"`+strings.ToUpper(hex.EncodeToString(sum[:]))+`","transcript":[`+
			`{"start":0,"end":900,"text":"Hello.","speaker":"zed"},{"start":900,"end":1500,"text":"Hi!","speaker":"amy","confidence":0.8},`+
			`{"start":1500,"end":2000,"text":"Bye.","speaker":"zed"}]}`)
	if status != 201 || !strings.Contains(string(body), hex.EncodeToString(sum[:])) {
		t.Fatalf("script: %d %s", status, body)
	}
	for _, bad := range []string{
		`{"audio_sha256":"abc","transcript":[]}`,
		`{"audio_sha256":"` + hex.EncodeToString(sum[:]) + `"}`,
		`{"audio_sha256":"` + hex.EncodeToString(sum[:]) + `","transcript":[{"start":5,"end":1,"text":"x"}]}`,
		`{"audio_sha256":"` + hex.EncodeToString(sum[:]) + `","transcript":[{"start":0,"end":1,"text":"x","confidence":1.5}]}`,
	} {
		if status, _, body := call(t, srv, "POST", "/_fake/transcripts", admin(srv), bad); status != 400 || errorCode(t, body) != "validation_error" {
			t.Errorf("%s: %d %s", bad, status, body)
		}
	}
	id := uploadReport(t, srv, seed.APIKey, wav)
	unscripted := uploadReport(t, srv, seed.APIKey, other)
	if _, err := srv.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	status, _, body = call(t, srv, "GET", "/api/rest/v1/reports/"+id+"/transcript", bearer(seed.APIKey), "")
	want := `{"report_id":"` + id + `","transcript":[{"end":900,"speaker":"Speaker 1","start":0,"text":"Hello."},` +
		`{"end":1500,"speaker":"Speaker 2","start":900,"text":"Hi!"},{"end":2000,"speaker":"Speaker 1","start":1500,"text":"Bye."}]}`
	if status != 200 || strings.TrimSpace(string(body)) != want {
		t.Fatalf("transcript: %d %s", status, body)
	}
	status, _, body = call(t, srv, "GET", "/api/rest/v1/reports/"+unscripted+"/transcript", bearer(seed.APIKey), "")
	if status != 200 || !strings.Contains(string(body), `"transcript":null`) {
		t.Fatalf("unscripted audio: %d %s", status, body)
	}
	// The Go method keys by the same content.
	hexSum, err := srv.ScriptTranscript(other, []TranscriptLine{{Start: 0, End: 10 * time.Millisecond, Text: "late"}})
	if err != nil || hexSum != hex.EncodeToString(func() []byte { s := sha256.Sum256(other); return s[:] }()) {
		t.Fatalf("ScriptTranscript: %s %v", hexSum, err)
	}
	again := uploadReport(t, srv, seed.APIKey, other)
	if _, err := srv.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	status, _, body = call(t, srv, "GET", "/api/rest/v1/reports/"+again+"/transcript", bearer(seed.APIKey), "")
	if status != 200 || !strings.Contains(string(body), `{"end":10,"speaker":null,"start":0,"text":"late"}`) {
		t.Fatalf("transcript scripted with the Go method: %d %s", status, body)
	}
}

// TestMetadataCoverAndFileInfoShapes judges a measurement with tags and a cover (from a stand-in
// analyser, since the WAV engine reads no tags yet) and reads the REST shapes and the cover URL.
func TestMetadataCoverAndFileInfoShapes(t *testing.T) {
	t.Parallel()
	// A small picture whose tag reader reported 1400×1400: encoding megapixels is slow under -race.
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 16, 16))); err != nil {
		t.Fatal(err)
	}
	tagged := func(_ context.Context, r io.Reader, _ string) (core.Measurement, error) {
		b, _ := io.ReadAll(r)
		m := core.Measurement{Duration: 90 * time.Second, Size: int64(len(b)), Channels: 2, SampleRate: 44100,
			IntegratedLUFS: -16, TruePeakDB: -2, Title: "Tagged title"}
		if string(b) == "tagged" {
			m.CodecName, m.FormatName, m.BitRate, m.Lossy = "mp3", "mp3", 128_000, true
			m.Tags = &core.Tags{Title: "Tagged title", Artist: "The Show", Track: "7", Year: "2026",
				Chapters: []core.Chapter{{Start: 0, End: 30 * time.Second, Title: "Intro"}, {Start: 30 * time.Second, End: 90 * time.Second, Title: "Talk"}},
				Cover:    &core.Cover{Data: pic.Bytes(), MIME: "image/png", Width: 1400, Height: 1400}}
		}
		return m, nil
	}
	srv, seed := NewTest(t, WithAnalysisPace(0), withAnalyzer(tagged))
	id := uploadReport(t, srv, seed.APIKey, []byte("tagged"))
	bare := uploadReport(t, srv, seed.APIKey, []byte("bare"))
	if _, err := srv.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	_, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
	var r struct {
		Name     string          `json:"name"`
		Metadata json.RawMessage `json:"metadata"`
		FileInfo json.RawMessage `json:"file_info"`
		Results  []struct {
			Name, Status string
			Value        json.RawMessage
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	wantMeta := `{"album":null,"artist":"The Show","chapters":[{"start":0,"end":30000,"title":"Intro"},{"start":30000,"end":90000,"title":"Talk"}],` +
		`"comments":null,"copyright":null,"title":"Tagged title","track_num":"7","year":"2026"}`
	if string(r.Metadata) != wantMeta || r.Name != "Tagged title" {
		t.Fatalf("metadata %s", r.Metadata)
	}
	var cover map[string]any
	_ = json.Unmarshal(bytes.TrimSpace(rawField(t, body, "cover_image")), &cover)
	if len(cover) != 4 || cover["width"] != 1400.0 || cover["height"] != 1400.0 || cover["file_size"] != float64(pic.Len()) || !strings.HasPrefix(cover["url"].(string), srv.URL()+"/_covers/") || strings.Contains(cover["url"].(string), id) {
		t.Fatalf("cover_image %v", cover)
	}
	if string(r.FileInfo) != `{"channels":2,"codec_name":"mp3","duration":90,"format_name":"mp3","sample_rate":44100,"size":6}` {
		t.Fatalf("file_info %s", r.FileInfo)
	}
	statuses := map[string]string{}
	for _, row := range r.Results {
		statuses[row.Name] = row.Status
	}
	if statuses["cover_image"] != "PASS" || statuses["metadata"] != "FAIL" || statuses["bitrate"] != "PASS" {
		t.Fatalf("rows %v", statuses)
	}
	// The cover is served keyless at its URL; unknown and coverless reports are 404.
	resp, err := srv.Client().Get(cover["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(got, pic.Bytes()) {
		t.Fatalf("cover GET %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(got))
	}
	for _, path := range []string{"/_covers/" + bare, "/_covers/nope", "/_covers/00000000-0000-4000-8000-000000000000"} {
		if status, _, _ := call(t, srv, "GET", path, nil, ""); status != 404 {
			t.Errorf("%s: %d", path, status)
		}
	}
	// A file whose tags were not read: null metadata and cover, no codec keys it could not probe.
	_, _, body = call(t, srv, "GET", "/api/rest/v1/reports/"+bare, bearer(seed.APIKey), "")
	if !strings.Contains(string(body), `"metadata":null`) || !strings.Contains(string(body), `"cover_image":null`) ||
		!strings.Contains(string(body), `"file_info":{"duration":90,"size":4}`) {
		t.Fatalf("bare report %s", body)
	}
}

func rawField(t *testing.T, body []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m[name]
}

// TestUploadChargedFromTheMeasuredDuration declares half an hour for two seconds of audio: the
// estimate follows the declaration, the charge the file (the ten-minute minimum, 100 credits).
func TestUploadChargedFromTheMeasuredDuration(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	res := reserve(t, srv, seed.APIKey, 30*60_000)
	if status, b := put(t, srv, res.UploadURL, "audio/wav", nil, string(synthWAV(t, 2))); status != 200 {
		t.Fatalf("put: %d %s", status, b)
	}
	status, _, b := call(t, srv, "POST", "/api/rest/v1/reports", jsonHeader(bearer(seed.APIKey)),
		`{"report_id":"`+res.ReportID+`","original_filename":"up.wav","duration_ms":1800000}`)
	if status != 201 || !strings.Contains(string(b), `"estimated_credits":300`) {
		t.Fatalf("create: %d %s", status, b)
	}
	if _, err := srv.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	r := getReport(t, srv, seed.APIKey, res.ReportID)
	if r.Status != "COMPLETE" || r.CreditsCharged == nil || *r.CreditsCharged != "100.00" {
		t.Fatalf("charged %v (%s), want 100.00 from the measured 2 s", r.CreditsCharged, r.Status)
	}
	_, _, body := call(t, srv, "GET", "/api/rest/v1/credits", bearer(seed.APIKey), "")
	if !strings.Contains(string(body), `"plan_used":100`) {
		t.Fatalf("credits %s", body)
	}
}

func TestScriptTranscriptRefusals(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	var e *Error
	if sum, err := srv.ScriptTranscript([]byte("x"), []TranscriptLine{{Start: 10 * time.Millisecond, End: 5 * time.Millisecond}}); sum != "" || !errors.As(err, &e) || e.Code != "validation_error" {
		t.Fatalf("bad line: %q %v", sum, err)
	}
	if err := srv.ScriptTranscriptBySHA256(strings.Repeat("g", 64), nil); !errors.As(err, &e) || e.Code != "validation_error" {
		t.Fatalf("bad hash: %v", err)
	}
}
