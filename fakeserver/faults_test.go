package fakeserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/faults"
)

// withSeedFields sets the seed as WithSeed will, for the package's own determinism tests.
func withSeedFields(seed uint64) Option {
	return func(o *options) { o.seed, o.seeded = seed, true }
}

// faultJSON and armedFaultJSON are a fault as a client of the control API reads the answers of
// POST and GET /_fake/faults (internal/control writes them).
type faultJSON struct {
	Method             string   `json:"method,omitempty"`
	PathPrefix         string   `json:"path_prefix"`
	Status             int      `json:"status,omitempty"`
	RetryAfterS        int      `json:"retry_after_s,omitempty"`
	Count              int      `json:"count,omitempty"`
	LatencyMS          int      `json:"latency_ms,omitempty"`
	JitterMS           int      `json:"jitter_ms,omitempty"`
	Reset              string   `json:"reset,omitempty"`
	TruncateAfterBytes *int64   `json:"truncate_after_bytes,omitempty"`
	ThrottleBytesPerS  int64    `json:"throttle_bytes_per_s,omitempty"`
	Probability        *float64 `json:"probability,omitempty"`
	After              int      `json:"after,omitempty"`
}

type armedFaultJSON struct {
	ID string `json:"id"`
	faultJSON
	Matches int `json:"matches"`
	Fired   int `json:"fired"`
}

// armedFaultView is a fault the Go API lists as a client of the control API reads it.
func armedFaultView(a ArmedFault) armedFaultJSON {
	f := a.Fault
	return armedFaultJSON{ID: a.ID, Matches: a.Matches, Fired: a.Fired, faultJSON: faultJSON{
		Method: f.Method, PathPrefix: f.PathPrefix, Status: f.Status,
		RetryAfterS: int(f.RetryAfter / time.Second), Count: f.Count,
		LatencyMS: int(f.Latency / time.Millisecond), JitterMS: int(f.Jitter / time.Millisecond),
		Reset: f.Reset, TruncateAfterBytes: f.TruncateAfterBytes, ThrottleBytesPerS: f.ThrottleBytesPerS,
		Probability: f.Probability, After: f.After,
	}}
}

func armFault(t *testing.T, srv *Server, body string) armedFaultJSON {
	t.Helper()
	status, _, b := call(t, srv, "POST", "/_fake/faults", admin(srv), body)
	var a armedFaultJSON
	if status != http.StatusCreated || json.Unmarshal(b, &a) != nil || a.ID == "" {
		t.Fatalf("arm %s: %d %s", body, status, b)
	}
	return a
}

func listFaults(t *testing.T, srv *Server) []armedFaultJSON {
	t.Helper()
	status, _, b := call(t, srv, "GET", "/_fake/faults", admin(srv), "")
	var list struct{ Items []armedFaultJSON }
	if status != http.StatusOK || json.Unmarshal(b, &list) != nil || list.Items == nil {
		t.Fatalf("list faults: %d %s", status, b)
	}
	return list.Items
}

func TestFaultValidation(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	bad := []struct{ name, body string }{
		{"no outcome", `{"path_prefix":"/api"}`},
		{"path without slash", `{"path_prefix":"api","status":500}`},
		{"status not allowed", `{"path_prefix":"/api","status":418}`},
		{"status 200", `{"path_prefix":"/api","status":200}`},
		{"method not a token", `{"method":"GE T","path_prefix":"/api","status":500}`},
		{"negative count", `{"path_prefix":"/api","status":500,"count":-1}`},
		{"negative after", `{"path_prefix":"/api","status":500,"after":-1}`},
		{"negative latency", `{"path_prefix":"/api","latency_ms":-1}`},
		{"latency over ten minutes", `{"path_prefix":"/api","latency_ms":600001}`},
		{"jitter over latency", `{"path_prefix":"/api","latency_ms":5,"jitter_ms":6}`},
		{"negative jitter", `{"path_prefix":"/api","latency_ms":5,"jitter_ms":-1}`},
		{"retry_after_s without 429", `{"path_prefix":"/api","status":503,"retry_after_s":3}`},
		{"negative retry_after_s", `{"path_prefix":"/api","status":429,"retry_after_s":-3}`},
		{"unknown reset", `{"path_prefix":"/api","reset":"midway"}`},
		{"negative truncate", `{"path_prefix":"/api","truncate_after_bytes":-1}`},
		{"negative throttle", `{"path_prefix":"/api","throttle_bytes_per_s":-1}`},
		{"probability over 1", `{"path_prefix":"/api","status":500,"probability":1.5}`},
		{"probability under 0", `{"path_prefix":"/api","status":500,"probability":-0.1}`},
		{"status and reset", `{"path_prefix":"/api","status":500,"reset":"before_body"}`},
		{"status and truncate", `{"path_prefix":"/api","status":500,"truncate_after_bytes":3}`},
		{"reset and truncate", `{"path_prefix":"/api","reset":"after_body","truncate_after_bytes":3}`},
		{"throttle and reset before body", `{"path_prefix":"/api","reset":"before_body","throttle_bytes_per_s":10}`},
		{"unknown field", `{"path_prefix":"/api","status":500,"latency":5}`},
		{"count as text", `{"path_prefix":"/api","status":500,"count":"2"}`},
	}
	for _, tt := range bad {
		status, _, body := call(t, srv, "POST", "/_fake/faults", admin(srv), tt.body)
		if status != http.StatusBadRequest || errorCode(t, body) != "validation_error" {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
	if got := listFaults(t, srv); len(got) != 0 {
		t.Fatalf("a refused fault was armed: %+v", got)
	}
	good := []string{
		`{"path_prefix":"/api","latency_ms":5,"jitter_ms":5}`,
		`{"path_prefix":"/api","throttle_bytes_per_s":100,"reset":"after_body"}`,
		`{"path_prefix":"/api","truncate_after_bytes":0,"throttle_bytes_per_s":100,"latency_ms":1}`,
		`{"path_prefix":"/api","status":429,"probability":0,"after":3,"count":2}`,
		`{"method":"post","path_prefix":"/api","status":502}`,
	}
	for _, body := range good {
		armFault(t, srv, body)
	}
	list := listFaults(t, srv)
	if len(list) != len(good) || list[3].RetryAfterS != 1 || list[4].Method != "POST" || *list[2].TruncateAfterBytes != 0 {
		t.Fatalf("armed %+v", list)
	}
}

func TestFaultStatusAnswers(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	armFault(t, srv, `{"path_prefix":"/api/rest/v1/me","status":429,"retry_after_s":7,"count":1}`)
	status, h, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	if status != 429 || h.Get("Retry-After") != "7" || errorCode(t, body) != "rate_limited" {
		t.Fatalf("429: %d %v %s", status, h, body)
	}
	for _, code := range []int{502, 503, 504} {
		armFault(t, srv, `{"path_prefix":"/api/rest/v1/me","status":`+strconv.Itoa(code)+`,"count":1}`)
		status, h, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
		if status != code || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") || string(body) != http.StatusText(code) {
			t.Fatalf("%d: %d %q %s", code, status, h.Get("Content-Type"), body)
		}
	}
	// The webhook subscription calls answer in their own flat shape, as their rate limiter does.
	armFault(t, srv, `{"path_prefix":"/webhook/subscribe","status":429,"retry_after_s":2,"count":1}`)
	status, h, body = call(t, srv, "POST", "/webhook/subscribe", jsonHeader(bearer(seed.APIKey)), `{}`)
	var flat struct{ Error string }
	if status != 429 || h.Get("Retry-After") != "2" || json.Unmarshal(body, &flat) != nil || flat.Error == "" {
		t.Fatalf("flat 429: %d %v %s", status, h, body)
	}
	if status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != 200 {
		t.Fatalf("after the faults: %d %s", status, body)
	}
}

func TestFaultCountsListAndDisarm(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	spent := armFault(t, srv, `{"method":"GET","path_prefix":"/api/rest/v1/me","status":500,"count":2,"after":1}`)
	kept := armFault(t, srv, `{"path_prefix":"/api/rest/v1/credits","status":503}`)
	want := []int{200, 500, 500, 200}
	for i, w := range want {
		if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != w {
			t.Fatalf("request %d: %d, want %d", i, status, w)
		}
		if i == 1 {
			list := listFaults(t, srv)
			if len(list) != 2 || list[0].ID != spent.ID || list[0].Matches != 2 || list[0].Fired != 1 {
				t.Fatalf("counts after two requests: %+v", list)
			}
		}
	}
	for range 3 {
		call(t, srv, "GET", "/api/rest/v1/credits", bearer(seed.APIKey), "")
	}
	list := listFaults(t, srv)
	if len(list) != 1 || list[0].ID != kept.ID || list[0].Matches != 3 || list[0].Fired != 3 {
		t.Fatalf("a spent fault disarms itself; an unlimited one stays: %+v", list)
	}
	if status, _, _ := call(t, srv, "DELETE", "/_fake/faults/"+kept.ID, admin(srv), ""); status != http.StatusNoContent {
		t.Fatalf("disarm: %d", status)
	}
	if status, _, body := call(t, srv, "DELETE", "/_fake/faults/"+kept.ID, admin(srv), ""); status != http.StatusNotFound || errorCode(t, body) != "not_found" {
		t.Fatalf("disarm again: %d %s", status, body)
	}
	if status, _, _ := call(t, srv, "GET", "/api/rest/v1/credits", bearer(seed.APIKey), ""); status != 200 {
		t.Fatalf("after disarming: %d", status)
	}
}

// faultPattern sends n GETs of /me to a fresh fake seeded with seed and a flaky fault, and
// returns which were faulted.
func faultPattern(t *testing.T, seed uint64, n int) string {
	t.Helper()
	srv, demo := NewTest(t, withSeedFields(seed))
	armFault(t, srv, `{"path_prefix":"/api/rest/v1/me","status":503,"probability":0.3,"after":2}`)
	var b strings.Builder
	for range n {
		status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(demo.APIKey), "")
		b.WriteByte(map[int]byte{200: '.', 503: 'x'}[status])
	}
	if got := listFaults(t, srv)[0]; got.Matches != n || got.Fired != strings.Count(b.String(), "x") {
		t.Fatalf("counts %+v for pattern %s", got, b.String())
	}
	return b.String()
}

func TestFaultPatternFollowsTheSeed(t *testing.T) {
	t.Parallel()
	a, b, other := faultPattern(t, 7, 60), faultPattern(t, 7, 60), faultPattern(t, 8, 60)
	if a != b {
		t.Fatalf("same seed, different patterns:\n%s\n%s", a, b)
	}
	if a == other {
		t.Fatalf("seeds 7 and 8 gave the same pattern %s", a)
	}
	if !strings.HasPrefix(a, "..") || strings.ContainsRune(a, 0) {
		t.Fatalf("pattern %q: the first two matches pass, every answer is 200 or 503", a)
	}
	// 0.3 of 58 draws: the fixed seed gives a fixed count, which must look like 0.3.
	if n := strings.Count(a, "x"); n < 8 || n > 28 {
		t.Fatalf("%d of 58 faulted at probability 0.3: %s", n, a)
	}
}

func TestFaultTruncatesSuccessAnswers(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	_, _, whole := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	armFault(t, srv, `{"path_prefix":"/api/rest/v1/","truncate_after_bytes":10,"count":2}`)
	req, _ := http.NewRequest("GET", srv.URL()+"/api/rest/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+seed.APIKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(whole)) || !errors.Is(err, io.ErrUnexpectedEOF) || string(got) != string(whole[:10]) {
		t.Fatalf("cut answer: %d, length %d of %d, %q, %v", resp.StatusCode, resp.ContentLength, len(whole), got, err)
	}
	// An error answer is sent whole.
	status, _, body := call(t, srv, "GET", "/api/rest/v1/reports/00000000-0000-0000-0000-000000000000", bearer(seed.APIKey), "")
	if status != 404 || errorCode(t, body) != "not_found" {
		t.Fatalf("error answer: %d %s", status, body)
	}
}

// countingReader is n bytes of 'a', counting what was read.
type countingReader struct{ n, read int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read == c.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range k {
		p[i] = 'a'
	}
	c.read += k
	return int(k), nil
}

func TestFaultResets(t *testing.T) {
	t.Parallel()
	// The body is larger than loopback socket buffers hold, so that a server that never reads it
	// cannot have received it all.
	const size = 64 << 20
	for _, tt := range []struct {
		reset    string
		readBody bool
	}{
		{ResetBeforeBody, false},
		{ResetAfterBody, true},
	} {
		t.Run(tt.reset, func(t *testing.T) {
			t.Parallel()
			srv, seed := NewTest(t)
			armFault(t, srv, `{"method":"PUT","path_prefix":"/_uploads/","reset":"`+tt.reset+`","count":1}`)
			body := &countingReader{n: size}
			req, _ := http.NewRequest("PUT", srv.URL()+"/_uploads/00000000-0000-0000-0000-000000000000", io.NopCloser(body))
			req.ContentLength = size
			resp, err := srv.Client().Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("answered %d, want no answer", resp.StatusCode)
			}
			if read := body.read == size; read != tt.readBody {
				t.Fatalf("%s: the whole body was sent: %v (%d bytes), error %v", tt.reset, read, body.read, err)
			}
			if status, _, _ := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), ""); status != 200 {
				t.Fatalf("the fake still serves: %d", status)
			}
		})
	}
}

func TestFaultResetIsAConnectionReset(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	armFault(t, srv, `{"path_prefix":"/api/rest/v1/me","reset":"before_body"}`)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /api/rest/v1/me HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	n, err := bufio.NewReader(conn).Read(make([]byte, 1))
	if n != 0 || !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read %d bytes, %v; want a connection reset", n, err)
	}
}

func TestFaultLatencyAndThrottleTripTimeouts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fault, method, path, body string
	}{
		{"latency", `{"path_prefix":"/api/rest/v1/me","latency_ms":600000}`, "GET", "/api/rest/v1/me", ""},
		{"slow answer", `{"path_prefix":"/api/rest/v1/me","throttle_bytes_per_s":1}`, "GET", "/api/rest/v1/me", ""},
		{"slow upload", `{"path_prefix":"/_uploads/","throttle_bytes_per_s":1,"reset":"after_body"}`, "PUT", "/_uploads/00000000-0000-0000-0000-000000000000", "some audio bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, seed := NewTest(t)
			armFault(t, srv, tt.fault)
			var rd io.Reader
			if tt.body != "" {
				rd = strings.NewReader(tt.body)
			}
			req, _ := http.NewRequest(tt.method, srv.URL()+tt.path, rd)
			req.Header.Set("Authorization", "Bearer "+seed.APIKey)
			c := srv.Client()
			c.Timeout = 50 * time.Millisecond // under test: each fault holds the answer for minutes
			resp, err := c.Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("want a client timeout, got %v", err)
			}
		})
	}
}

func TestFaultSmallLatencyAndFastThrottleAnswer(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	_, _, whole := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
	armFault(t, srv, `{"path_prefix":"/api/rest/v1/me","latency_ms":2,"jitter_ms":1,"throttle_bytes_per_s":1000000}`)
	for range 3 {
		status, _, body := call(t, srv, "GET", "/api/rest/v1/me", bearer(seed.APIKey), "")
		if status != 200 || string(body) != string(whole) {
			t.Fatalf("%d %s", status, body)
		}
	}
	if got := listFaults(t, srv)[0]; got.Fired != 3 {
		t.Fatalf("%+v", got)
	}
}

func TestFaultWaitsEndWhenTheFakeCloses(t *testing.T) {
	t.Parallel()
	srv, err := New(WithManualClock(TestStart()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.InjectFault(Fault{PathPrefix: "/api/", Latency: MaxFaultLatency}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL() + "/api/rest/v1/me")
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	for srv.Faults()[0].Matches == 0 {
		runtime.Gosched()
	}
	// Close waits up to five seconds for requests in flight and reports a wait cut short; a
	// fault's ten-minute delay must not hold it.
	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := <-done; err == nil {
		t.Fatal("the delayed request was answered")
	}
}

func TestFaultsOnHostedFeeds(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t)
	feed, err := srv.HostFeed(HostedFeedSpec{Title: "Flaky", Episodes: []HostedEpisode{{Title: "One", GUID: "one", Duration: 2 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	two, err := srv.AddHostedEpisode(feed.ID, HostedEpisode{Title: "Two", GUID: "two", Duration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	three, err := srv.AddHostedEpisode(feed.ID, HostedEpisode{Title: "Three", GUID: "three", Duration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	feedPath := strings.TrimPrefix(feed.FeedURL, srv.URL())
	// A feed whose connection drops is unreadable: 400, saying why.
	a := armFault(t, srv, `{"path_prefix":"`+feedPath+`","reset":"before_body","count":1}`)
	status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.FeedURL+`"}`)
	if status != 400 || errorCode(t, body) != "validation_error" {
		t.Fatalf("dropped feed: %d %s", status, body)
	}
	if len(listFaults(t, srv)) != 0 {
		t.Fatalf("fault %s not spent", a.ID)
	}
	// A dropped or cut enclosure FAILs the report; a whole one completes.
	armFault(t, srv, `{"path_prefix":"`+strings.TrimPrefix(three.AudioURL, srv.URL())+`","reset":"before_body"}`)
	armFault(t, srv, `{"path_prefix":"`+strings.TrimPrefix(two.AudioURL, srv.URL())+`","truncate_after_bytes":1000}`)
	ids := make([]string, 3)
	for i := range ids {
		status, body := createFromFeed(t, srv, seed.APIKey, `{"feed_url":"`+feed.FeedURL+`","episode_index":`+itoa(i)+`}`)
		var created struct{ ID string }
		if status != 201 || json.Unmarshal(body, &created) != nil {
			t.Fatalf("create %d: %d %s", i, status, body)
		}
		ids[i] = created.ID
	}
	if _, err := srv.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"FAILED", "FAILED", "COMPLETE"} {
		if r := getReport(t, srv, seed.APIKey, ids[i]); r.Status != want {
			t.Fatalf("episode %d (dropped, cut, whole): %s, want %s", i, r.Status, want)
		}
	}
}

// TestREADMEFaultExamplesAreAccepted arms every fault the control-API guide (docs/fakeserver.md,
// linked from the README) shows.
func TestREADMEFaultExamplesAreAccepted(t *testing.T) {
	t.Parallel()
	srv, _ := NewTest(t)
	readme, err := os.ReadFile("../docs/fakeserver.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, line := range strings.Split(string(readme), "\n") {
		// Shown as is, or with the id kept: FAULT=$(curl -s ... | id).
		line = strings.TrimSuffix(strings.TrimPrefix(line, "FAULT=$("), " | id)")
		line = strings.Replace(line, `curl -s "${H[@]}"`, `curl "${H[@]}"`, 1)
		body, ok := strings.CutPrefix(line, `curl "${H[@]}" -X POST -d '`)
		if !ok || !strings.HasSuffix(body, "' $BASE/_fake/faults") {
			continue
		}
		body = strings.TrimSuffix(body, "' $BASE/_fake/faults")
		body = strings.ReplaceAll(body, "'$FEED'", "00000000-0000-0000-0000-000000000000")
		armFault(t, srv, body)
		shown++
	}
	if shown < 5 {
		t.Fatalf("%d fault examples found in docs/fakeserver.md", shown)
	}
}

// FuzzFaultBodies posts arbitrary bodies to POST /_fake/faults: each is armed (201, listed once,
// and its answer armed again gives the same fault) or refused with 400 validation_error and
// nothing armed; never a 5xx or a panic.
func FuzzFaultBodies(f *testing.F) {
	srv, _ := NewTest(f)
	for _, s := range []string{
		`{"method":"GET","path_prefix":"/api/rest/v1/reports","status":503,"count":2}`,
		`{"path_prefix":"/api/rest/v1/","status":502,"probability":0.3,"latency_ms":200,"jitter_ms":50}`,
		`{"method":"PUT","path_prefix":"/_uploads/","reset":"after_body","throttle_bytes_per_s":65536,"count":1}`,
		`{"path_prefix":"/x","truncate_after_bytes":0,"after":3}`,
		`{"path_prefix":"/x","status":429,"retry_after_s":30}`,
		`{"path_prefix":"/x","status":429,"probability":1e-300}`,
		`{"path_prefix":"/x","status":500,"reset":"before_body"}`,
		`{"path_prefix":"/x","latency_ms":1e9}`, `{"path_prefix":"/x","probability":"NaN"}`,
		`{}`, `[]`, `null`, `{"a":`, "\xff", ``,
	} {
		f.Add([]byte(s))
	}
	handler := srv.Handler()
	do := func(method, path string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+srv.AdminToken())
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		defer srv.ClearFaults()
		rec := do("POST", "/_fake/faults", body)
		switch rec.Code {
		case http.StatusCreated:
			var armed armedFaultJSON
			if err := json.Unmarshal(rec.Body.Bytes(), &armed); err != nil {
				t.Fatalf("%q: answer %s: %v", body, rec.Body, err)
			}
			list := srv.Faults()
			if len(list) != 1 || list[0].ID != armed.ID || !reflect.DeepEqual(armedFaultView(list[0]), armed) {
				t.Fatalf("%q: armed %+v, listed %+v", body, armed, list)
			}
			again := do("POST", "/_fake/faults", must(json.Marshal(armed.faultJSON)))
			var second armedFaultJSON
			if again.Code != http.StatusCreated || json.Unmarshal(again.Body.Bytes(), &second) != nil || !reflect.DeepEqual(second.faultJSON, armed.faultJSON) {
				t.Fatalf("%q: re-arming %+v: %d %s", body, armed.faultJSON, again.Code, again.Body)
			}
		case http.StatusBadRequest:
			if code := errorCode(t, rec.Body.Bytes()); code != "validation_error" || len(srv.Faults()) != 0 {
				t.Fatalf("%q: %s, %d armed", body, code, len(srv.Faults()))
			}
		default:
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestTruncationModes cuts bodies however the handler writes them: held to learn their length
// (even across a flush), streamed under a declared Content-Length, too long to hold (cut in
// chunked encoding), or short enough to go whole.
func TestTruncationModes(t *testing.T) {
	t.Parallel()
	const limit = 50
	tests := []struct {
		name      string
		size      int
		declare   bool
		flushAt   int
		wantCL    int64 // -1: chunked
		wantWhole bool
	}{
		{"held across a flush", 200, false, 100, 200, false},
		{"declared length streamed", 200, true, 0, 200, false},
		{"too long to hold", faults.MaxTruncateBuffer + 10, false, 0, -1, false},
		{"shorter than the cut", 40, false, 0, 40, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := strings.Repeat("x", tt.size)
			s := &Server{faults: newFaults(options{}, uuid.New)}
			ts := httptest.NewServer(s.injectFaults(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.declare {
					w.Header().Set("Content-Length", strconv.Itoa(tt.size))
				}
				if tt.flushAt > 0 {
					_, _ = io.WriteString(w, body[:tt.flushAt])
					_ = http.NewResponseController(w).Flush()
					_, _ = io.WriteString(w, body[tt.flushAt:])
					return
				}
				_, _ = io.WriteString(w, body)
			})))
			defer ts.Close()
			n := int64(limit)
			if _, err := s.InjectFault(Fault{PathPrefix: "/", TruncateAfterBytes: &n}); err != nil {
				t.Fatal(err)
			}
			resp, err := ts.Client().Get(ts.URL + "/x")
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.ContentLength != tt.wantCL {
				t.Errorf("Content-Length %d, want %d", resp.ContentLength, tt.wantCL)
			}
			if tt.wantWhole {
				if err != nil || string(got) != body {
					t.Fatalf("want the whole body: %d bytes, %v", len(got), err)
				}
				return
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) || string(got) != body[:limit] {
				t.Fatalf("want %d bytes then an unexpected EOF: %d bytes, %v", limit, len(got), err)
			}
		})
	}
}
