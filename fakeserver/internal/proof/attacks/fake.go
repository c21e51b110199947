package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// fake is one fake server process the harness started, and what its start line said.
type fake struct {
	cmd     *exec.Cmd
	logPath string
	Base    string `json:"base_url"`
	Admin   string `json:"admin_token"`
	DemoWS  string `json:"workspace_id"`
	DemoKey string `json:"api_key"`
	flags   string // the text of `bin -h`, to tell which flags this build has
	hc      *http.Client
}

// startFake runs bin on a loopback port with the given extra flags, logging into a file of
// dir, and reads its JSON start line.
func startFake(ctx context.Context, bin, dir string, extra []string) (*fake, error) {
	help, _ := exec.CommandContext(ctx, bin, "-h").CombinedOutput()
	args := append([]string{"-addr", "127.0.0.1:0"}, extra...)
	logFile, err := os.CreateTemp(dir, "fake-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = logFile
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	_ = logFile.Close() // the child holds its own descriptor
	f := &fake{cmd: cmd, logPath: logFile.Name(), flags: string(help)}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, f)
	}
	if err == nil && !strings.HasPrefix(f.Base, "http://127.0.0.1:") {
		err = fmt.Errorf("base_url %q is not loopback", f.Base)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("start line of %s: %w (log %s)", bin, err, f.logPath)
	}
	f.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	return f, nil
}

// hasFlag says whether this build lists the flag in its -h.
func (f *fake) hasFlag(name string) bool {
	return strings.Contains(f.flags, "-"+name+" ") || strings.Contains(f.flags, "-"+name+"\n") || strings.Contains(f.flags, "-"+name+"\t")
}

// stop sends SIGTERM and waits for the process.
func (f *fake) stop() error {
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- f.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = f.cmd.Process.Kill()
		return <-done
	}
}

func (f *fake) pid() int { return f.cmd.Process.Pid }

// logCount counts the lines of the fake's log that hold s.
func (f *fake) logCount(s string) int {
	b, err := os.ReadFile(f.logPath)
	if err != nil {
		return -1
	}
	return bytes.Count(b, []byte(s))
}

// answer is what one request got: the status (0 when it failed), the body's length, and the
// body itself when it was asked to be kept.
type answer struct {
	Status int
	Len    int64
	Body   []byte
	Err    error
	Took   time.Duration
}

// do sends one request; keep says whether the body is kept (else only counted).
func (f *fake) do(ctx context.Context, req *http.Request, keep bool) answer {
	start := time.Now()
	resp, err := f.hc.Do(req.WithContext(ctx))
	if err != nil {
		return answer{Err: err, Took: time.Since(start)}
	}
	defer resp.Body.Close()
	a := answer{Status: resp.StatusCode}
	if keep {
		a.Body, err = io.ReadAll(resp.Body)
		a.Len = int64(len(a.Body))
	} else {
		a.Len, err = io.Copy(io.Discard, resp.Body)
	}
	a.Err, a.Took = err, time.Since(start)
	return a
}

// newRequest is a request to the fake's path with a bearer token and an optional JSON body.
func (f *fake) newRequest(method, path, token string, body any) *http.Request {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.Base+path, r)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// call sends a JSON request and decodes a 2xx answer into out (when out is not nil).
func (f *fake) call(ctx context.Context, method, path, token string, body, out any) (int, error) {
	a := f.do(ctx, f.newRequest(method, path, token, body), true)
	if a.Err != nil {
		return 0, a.Err
	}
	if a.Status/100 != 2 {
		return a.Status, fmt.Errorf("%s %s: %d %s", method, path, a.Status, bytes.TrimSpace(a.Body))
	}
	if out != nil {
		if err := json.Unmarshal(a.Body, out); err != nil {
			return a.Status, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return a.Status, nil
}

// tenant is a workspace the harness made, with its keys.
type tenant struct {
	ID   string
	Keys []string
}

// newTenant makes a personal workspace with enough credits and n keys, over the control API.
func (f *fake) newTenant(ctx context.Context, name string, n int) (tenant, error) {
	var ws struct {
		ID string `json:"id"`
	}
	if _, err := f.call(ctx, "POST", "/_fake/workspaces", f.Admin,
		map[string]any{"type": "personal", "name": name, "plan_allowance": 1_000_000}, &ws); err != nil {
		return tenant{}, err
	}
	t := tenant{ID: ws.ID}
	for i := range n {
		var k struct {
			Key string `json:"key"`
		}
		if _, err := f.call(ctx, "POST", "/_fake/workspaces/"+ws.ID+"/api-keys", f.Admin,
			map[string]any{"description": fmt.Sprintf("%s-%d", name, i)}, &k); err != nil {
			return tenant{}, err
		}
		t.Keys = append(t.Keys, k.Key)
	}
	return t, nil
}

// reservation is the answer of POST /uploads.
type reservation struct {
	ReportID  string `json:"report_id"`
	UploadURL string `json:"upload_url"`
}

// uploadRequest is the body of POST /uploads for a file declared to last declared.
func uploadRequest(fileName, fileType string, declared time.Duration) map[string]any {
	return map[string]any{"file_name": fileName, "file_type": fileType, "duration_ms": declared.Milliseconds()}
}

// reserve makes an upload reservation.
func (f *fake) reserve(ctx context.Context, key, fileName, fileType string, declared time.Duration) (reservation, error) {
	var r reservation
	_, err := f.call(ctx, "POST", "/api/rest/v1/uploads", key, uploadRequest(fileName, fileType, declared), &r)
	if err == nil && !strings.HasPrefix(r.UploadURL, f.Base+"/") {
		err = fmt.Errorf("upload URL %q is not the fake's", r.UploadURL)
	}
	return r, err
}

// putRequest is the PUT of an upload: body of n bytes, with its Content-Length declared.
func putRequest(uploadURL, fileType string, body io.Reader, n int64) *http.Request {
	req, _ := http.NewRequest("PUT", uploadURL, body)
	req.ContentLength = n
	req.Header.Set("Content-Type", fileType)
	return req
}

// put PUTs the bytes to the reservation's URL.
func (f *fake) put(ctx context.Context, r reservation, fileType string, body io.Reader, n int64) answer {
	return f.do(ctx, putRequest(r.UploadURL, fileType, body, n), true)
}

// report makes the report of an uploaded file and returns its id.
func (f *fake) report(ctx context.Context, key string, r reservation, name string, declared time.Duration) error {
	_, err := f.call(ctx, "POST", "/api/rest/v1/reports", key,
		map[string]any{"report_id": r.ReportID, "original_filename": name, "duration_ms": declared.Milliseconds()}, nil)
	return err
}

// reportState is what GET /reports/{id} says of a report's progress.
type reportState struct {
	Status         string `json:"status"`
	CreditsCharged any    `json:"credits_charged"`
}

// final says whether a report status is one of the three final ones.
func final(status string) bool {
	return status == "COMPLETE" || status == "FAILED" || status == "OUT_OF_QUOTA"
}

// pollReport asks for the report every interval until it is final or max polls were made,
// and returns the last state and the polls made.
func (f *fake) pollReport(ctx context.Context, key, id string, every time.Duration, max int) (reportState, int, error) {
	var st reportState
	for n := 1; n <= max; n++ {
		if _, err := f.call(ctx, "GET", "/api/rest/v1/reports/"+id, key, nil, &st); err != nil {
			return st, n, err
		}
		if final(st.Status) {
			return st, n, nil
		}
		select {
		case <-ctx.Done():
			return st, n, ctx.Err()
		case <-time.After(every):
		}
	}
	return st, max, nil
}

// notApplicable is the error of an attack this build of the fake cannot be asked.
type notApplicable struct{ why string }

func (e notApplicable) Error() string { return "not applicable: " + e.why }

// needRoute says "not applicable" when the fake answers 404 or 405 to a route the attack needs.
func (f *fake) needRoute(ctx context.Context, method, path, token string) error {
	a := f.do(ctx, f.newRequest(method, path, token, nil), false)
	if a.Err != nil {
		return a.Err
	}
	if a.Status == http.StatusNotFound || a.Status == http.StatusMethodNotAllowed {
		return notApplicable{fmt.Sprintf("%s %s is %d on this build", method, path, a.Status)}
	}
	return nil
}

// isNotApplicable reports whether err says the attack does not apply.
func isNotApplicable(err error) bool {
	var na notApplicable
	return errors.As(err, &na)
}

// uploadPath is the path and query of an upload URL, for a raw request line.
func uploadPath(uploadURL string) (host, path string, err error) {
	u, err := url.Parse(uploadURL)
	if err != nil {
		return "", "", err
	}
	return u.Host, u.RequestURI(), nil
}
