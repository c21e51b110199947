package clientproof_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/fakeserver"
	"github.com/podqa/podqa-go/fakeserver/clienttest"
)

func TestUploadAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv, seed := fakeserver.NewTest(t)
	c := clienttest.NewClient(t, srv, seed.APIKey)
	// WAV, as the uploads below name it: no MP3 to encode and calibrate under -race. Mono at
	// 8 kHz: the test is about durations and credits, and the fake synthesises and analyses
	// these 61.5 s (twice) in an eleventh of the samples of 44.1 kHz stereo.
	feed, _ := srv.HostFeed(fakeserver.HostedFeedSpec{Title: "Src", Episodes: []fakeserver.HostedEpisode{{Title: "e", Duration: 61500 * time.Millisecond, Format: "wav", SampleRate: 8000, Channels: 1}}})
	audio := hostedAudio(t, srv, feed)
	ctx := context.Background()

	tests := []struct {
		name     string
		upload   func() (*client.Uploaded, error)
		credits  int
		duration time.Duration
		measured bool
	}{
		{"reader measured from the audio", func() (*client.Uploaded, error) {
			// A plain io.Reader (not seekable) is spooled to a temporary file.
			return c.Upload(ctx, io.MultiReader(bytes.NewReader(audio)), client.UploadParams{FileName: "a.wav", ContentType: "audio/wav"})
		}, 100, 61500 * time.Millisecond, true}, // 61.5 s: 2 started minutes, charged at the 10-minute minimum
		{"file with a declared duration", func() (*client.Uploaded, error) {
			path := filepath.Join(t.TempDir(), "take.wav")
			if err := os.WriteFile(path, audio, 0o600); err != nil {
				return nil, err
			}
			return c.UploadFile(ctx, path, client.UploadParams{ContentType: "audio/wav", Duration: 11 * time.Minute})
		}, 110, 11 * time.Minute, false},
	}
	for _, tt := range tests {
		created, err := tt.upload()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if created.EstimatedCredits == nil || *created.EstimatedCredits != tt.credits {
			t.Fatalf("%s: estimated %v", tt.name, created.EstimatedCredits)
		}
		if created.Duration != tt.duration || created.Measured != tt.measured {
			t.Fatalf("%s: Duration %v measured %v, want %v %v", tt.name, created.Duration, created.Measured, tt.duration, tt.measured)
		}
		if _, err := srv.Advance(time.Minute); err != nil {
			t.Fatal(err)
		}
		r, err := c.GetReport(ctx, created.ID)
		if err != nil || r.Status != client.StatusComplete || r.OriginalFilename == "" {
			t.Fatalf("%s: %+v %v", tt.name, r, err)
		}
	}
	// M4A (moov after the media data, and before it) and ADTS: their durations measured, the
	// reports measured by the fake.
	for _, f := range []struct {
		name, contentType string
		duration          time.Duration
	}{
		{"speech_s44.m4a", "audio/mp4", 3 * time.Second},
		{"speech_m48_fs.m4a", "audio/mp4", 3 * time.Second},
		{"tone_m44.aac", "audio/aac", 3042 * time.Millisecond}, // 131 frames of 1024 samples, 3.0418 s, in whole ms
	} {
		created, err := c.UploadFile(ctx, filepath.Join("..", "..", "audio", "testdata", "formats", f.name), client.UploadParams{ContentType: f.contentType})
		if err != nil || created.Duration != f.duration || !created.Measured {
			t.Fatalf("%s: %+v %v; want a measured %v", f.name, created, err, f.duration)
		}
		if _, err := srv.Advance(time.Minute); err != nil {
			t.Fatal(err)
		}
		if r, err := c.GetReport(ctx, created.ID); err != nil || r.Status != client.StatusComplete {
			t.Fatalf("%s: %+v %v", f.name, r, err)
		}
	}
	if _, err := c.Upload(ctx, strings.NewReader("not audio"), client.UploadParams{FileName: "x.wav", ContentType: "audio/wav"}); !errors.Is(err, client.ErrUnknownDuration) {
		t.Fatalf("unmeasurable audio: %v", err)
	}
}

// TestUploadPUT checks the PUT leg on its own: exact Content-Type, no credentials, retried with
// the whole body on a 5xx, and no signature in errors.
func TestUploadPUT(t *testing.T) {
	t.Parallel()
	var puts atomic.Int32
	var mu sync.Mutex
	var bodies [][]byte
	var mux http.ServeMux
	var api *httptest.Server
	mux.HandleFunc("POST /api/rest/v1/uploads", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"report_id":"0b0e3c4e-1111-4000-8000-000000000000","upload_url":"`+api.URL+`/put/x?signature=SECRET"}`)
	})
	mux.HandleFunc("PUT /put/x", func(w http.ResponseWriter, r *http.Request) {
		n := puts.Add(1)
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		if r.Header.Get("Authorization") != "" || r.Header.Get("Content-Type") != "audio/mpeg" {
			http.Error(w, "bad headers", 400)
			return
		}
		if n == 1 {
			http.Error(w, "try again", 500)
			return
		}
		w.WriteHeader(200)
	})
	mux.HandleFunc("POST /api/rest/v1/reports", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"id":"0b0e3c4e-1111-4000-8000-000000000000","status":"PENDING","estimated_credits":100}`)
	})
	api = httptest.NewServer(&mux)
	defer api.Close()
	c, err := client.New("podqa_api_secretkey", client.WithBaseURL(api.URL),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("mp3"), 10000)
	created, err := c.Upload(context.Background(), bytes.NewReader(payload), client.UploadParams{FileName: "a.mp3", ContentType: "audio/mpeg", Duration: time.Minute})
	if err != nil || created.Status != client.StatusPending {
		t.Fatalf("%+v %v", created, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if puts.Load() != 2 || !bytes.Equal(bodies[0], payload) || !bytes.Equal(bodies[1], payload) {
		t.Fatalf("%d PUTs; bodies whole: %v %v", puts.Load(), bytes.Equal(bodies[0], payload), len(bodies) > 1 && bytes.Equal(bodies[1], payload))
	}

	// A dead upload host: the error names no signature and no key.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	mux2 := http.NewServeMux()
	mux2.HandleFunc("POST /api/rest/v1/uploads", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"report_id":"0b0e3c4e-1111-4000-8000-000000000000","upload_url":"`+deadURL+`/put/x?signature=SECRET"}`)
	})
	api2 := httptest.NewServer(mux2)
	defer api2.Close()
	c2, _ := client.New("podqa_api_secretkey", client.WithBaseURL(api2.URL),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	_, err = c2.Upload(context.Background(), bytes.NewReader(payload), client.UploadParams{FileName: "a.mp3", ContentType: "audio/mpeg", Duration: time.Minute})
	if err == nil || strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "secretkey") {
		t.Fatalf("error leaks a secret: %v", err)
	}
}

// TestUploadInfersTheContentType uploads without a ContentType: the PUT carries the type its
// extension names, and a name whose type cannot be inferred is refused before any request.
func TestUploadInfersTheContentType(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var putTypes []string
	var requests atomic.Int32
	var mux http.ServeMux
	var api *httptest.Server
	mux.HandleFunc("POST /api/rest/v1/uploads", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"report_id":"0b0e3c4e-1111-4000-8000-000000000000","upload_url":"`+api.URL+`/put/x"}`)
	})
	mux.HandleFunc("PUT /put/x", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		putTypes = append(putTypes, r.Header.Get("Content-Type"))
		mu.Unlock()
		w.WriteHeader(200)
	})
	mux.HandleFunc("POST /api/rest/v1/reports", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"id":"0b0e3c4e-1111-4000-8000-000000000000","status":"PENDING","estimated_credits":100}`)
	})
	api = httptest.NewServer(&mux)
	defer api.Close()
	c, err := client.New("podqa_api_secretkey", client.WithBaseURL(api.URL))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		fileName, contentType, want string
	}{
		{"a.mp3", "", "audio/mpeg"},
		{"Show.MP3", "", "audio/mpeg"},
		{"a.m4a", "", "audio/mp4"},
		{"a.aac", "", "audio/aac"},
		{"a.wav", "", "audio/wav"},
		{"a.flac", "", "audio/flac"},
		{"a.ogg", "", "audio/ogg"},
		{"a.opus", "", "audio/ogg"},
		{"a.mp3", "audio/x-custom", "audio/x-custom"}, // a given type wins
		{"a.aiff", "", ""},
		{"noextension", "", ""},
	}
	for _, tt := range tests {
		before := requests.Load()
		mu.Lock()
		putTypes = nil
		mu.Unlock()
		_, err := c.Upload(context.Background(), strings.NewReader("audio"), client.UploadParams{FileName: tt.fileName, ContentType: tt.contentType, Duration: time.Minute})
		mu.Lock()
		got := putTypes
		mu.Unlock()
		if tt.want == "" {
			if !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "ContentType") || requests.Load() != before {
				t.Errorf("%s: err %v after %d requests; want ErrInvalidArgument naming ContentType, before any request", tt.fileName, err, requests.Load()-before)
			}
			continue
		}
		if err != nil || len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s %q: PUT types %q, err %v; want %q", tt.fileName, tt.contentType, got, err, tt.want)
		}
	}
}
