package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// attack is one of issue 41's attacks: it runs against the fake f and writes what the other
// tenant met into res.Other.
type attack func(ctx context.Context, f *fake, o *options, res *result) error

// attacks are the attacks by name, in the order.
var attacks = map[string]attack{
	"zeros":       attackZeros,
	"trickle":     attackTrickle,
	"flac":        attackFLAC,
	"runreport":   attackRunReport,
	"journalpage": attackJournalPage,
	"resetrace":   attackResetRace,
	"resetheap":   attackResetHeap,
}

// attackNames is the order of -attack all and of the usage text.
var attackNames = []string{"zeros", "trickle", "flac", "runreport", "journalpage", "resetrace", "resetheap"}

const wavType = "audio/wav"

// zeroReader is an endless run of zero bytes.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// victimUpload is another tenant's 1 KiB upload: its reservation's and its PUT's statuses.
func victimUpload(ctx context.Context, f *fake, key string) string {
	r, err := f.reserve(ctx, key, "v.wav", wavType, time.Second)
	if err != nil {
		return "reserve: " + err.Error()
	}
	a := f.put(ctx, r, wavType, bytes.NewReader(make([]byte, 1024)), 1024)
	if a.Err != nil {
		return "put: " + a.Err.Error()
	}
	return fmt.Sprint(a.Status)
}

// attackZeros: issue 41's first attack. One key makes two reservations declared 1 s, PUTs
// -zeros-size bytes of zeros to each at once and stops; another tenant then tries 1 KiB.
func attackZeros(ctx context.Context, f *fake, o *options, res *result) error {
	attacker, err := f.newTenant(ctx, "attacker", 1)
	if err != nil {
		return err
	}
	victim, err := f.newTenant(ctx, "victim", 1)
	if err != nil {
		return err
	}
	statuses := make([]string, o.zeroPuts)
	var wg sync.WaitGroup
	for i := range o.zeroPuts {
		r, err := f.reserve(ctx, attacker.Keys[0], "z.wav", wavType, time.Second)
		if err != nil {
			return err
		}
		wg.Go(func() {
			a := f.put(ctx, r, wavType, io.LimitReader(zeroReader{}, o.zeroSize), o.zeroSize)
			statuses[i] = fmt.Sprint(a.Status)
			if a.Err != nil {
				statuses[i] += " " + a.Err.Error()
			} else if a.Status != http.StatusOK {
				statuses[i] += " " + firstLine(a.Body)
			}
		})
	}
	wg.Wait()
	res.Other["attacker_puts"] = statuses
	var tries []string
	for range o.victimTries {
		tries = append(tries, victimUpload(ctx, f, victim.Keys[0]))
	}
	res.Other["victim_1KiB_puts"] = tries
	return nil
}

// attackTrickle: the cheaper form of the first attack. Two PUTs declare -trickle-size and send
// one byte every -trickle-every for -trickle-for; another tenant tries 1 KiB every
// -victim-every meanwhile.
func attackTrickle(ctx context.Context, f *fake, o *options, res *result) error {
	attacker, err := f.newTenant(ctx, "attacker", 1)
	if err != nil {
		return err
	}
	victim, err := f.newTenant(ctx, "victim", 1)
	if err != nil {
		return err
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range 2 {
		r, err := f.reserve(ctx, attacker.Keys[0], "t.wav", wavType, time.Second)
		if err != nil {
			return err
		}
		host, path, err := uploadPath(r.UploadURL)
		if err != nil {
			return err
		}
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", host)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, trickleHead(host, path, o.trickleSize)); err != nil {
			return err
		}
	}
	var sent atomic.Int64
	var ended []string
	var mu sync.Mutex
	trickleCtx, stop := context.WithTimeout(ctx, o.trickleFor)
	defer stop()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			tick := time.NewTicker(o.trickleEvery)
			defer tick.Stop()
			for {
				if _, err := c.Write([]byte{0}); err != nil {
					mu.Lock()
					ended = append(ended, "write after "+fmt.Sprint(sent.Load())+" bytes: "+err.Error())
					mu.Unlock()
					return
				}
				sent.Add(1)
				select {
				case <-trickleCtx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	var tries []string
	tick := time.NewTicker(o.victimEvery)
	for trickleCtx.Err() == nil {
		tries = append(tries, victimUpload(ctx, f, victim.Keys[0]))
		select {
		case <-trickleCtx.Done():
		case <-tick.C:
		}
	}
	tick.Stop()
	wg.Wait()
	// What the fake answered the trickling PUTs, if it answered before the harness hung up.
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		b := make([]byte, 64)
		n, _ := c.Read(b)
		if n > 0 {
			ended = append(ended, "answered "+firstLine(b[:n]))
		}
	}
	res.Other["attacker_bytes_sent"] = sent.Load()
	res.Other["attacker_puts_ended"] = ended
	res.Other["victim_1KiB_puts"] = tries
	return nil
}

// trickleHead is the head of a PUT that declares n bytes and sends none yet.
func trickleHead(host, path string, n int64) string {
	return fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", path, host, wavType, n)
}

// attackFLAC: issue 41's second attack. Each of -flac-attackers workspaces uploads the FLAC of
// constant frames (10 minutes at 384 kHz stereo, declared 1 s) and makes its report; a third
// tenant then reports a 1-second WAV and polls it every -poll-every, while the probe asks
// GET /me.
func attackFLAC(ctx context.Context, f *fake, o *options, res *result) error {
	file := constantFLAC(o.flacFrames, o.flacRate, 2)
	res.Other["flac_bytes"] = len(file)
	p, err := newProbe(ctx, f, o.probeEvery)
	if err != nil {
		return err
	}
	stopProbe := p.start(ctx)
	time.Sleep(o.baseline)
	p.set("attack")
	type made struct{ key, id string }
	var bombs []made
	for i := range o.flacAttackers {
		t, err := f.newTenant(ctx, fmt.Sprint("attacker-", i), 1)
		if err != nil {
			return err
		}
		r, err := f.reserve(ctx, t.Keys[0], "bomb.flac", "audio/flac", time.Second)
		if err != nil {
			return err
		}
		if a := f.put(ctx, r, "audio/flac", bytes.NewReader(file), int64(len(file))); a.Status != http.StatusOK {
			return fmt.Errorf("bomb PUT: %d %v %s", a.Status, a.Err, firstLine(a.Body))
		}
		if err := f.report(ctx, t.Keys[0], r, "bomb.flac", time.Second); err != nil {
			return err
		}
		bombs = append(bombs, made{t.Keys[0], r.ReportID})
	}
	victim, err := f.newTenant(ctx, "victim", 1)
	if err != nil {
		return err
	}
	wav := sineWAV(1, 48000, 2)
	r, err := f.reserve(ctx, victim.Keys[0], "one.wav", wavType, time.Second)
	if err != nil {
		return err
	}
	if a := f.put(ctx, r, wavType, bytes.NewReader(wav), int64(len(wav))); a.Status != http.StatusOK {
		return fmt.Errorf("victim PUT: %d %v", a.Status, a.Err)
	}
	if err := f.report(ctx, victim.Keys[0], r, "one.wav", time.Second); err != nil {
		return err
	}
	st, polls, err := f.pollReport(ctx, victim.Keys[0], r.ReportID, o.pollEvery, o.maxPolls)
	if err != nil {
		return err
	}
	res.Other["probe_get_me"] = stopProbe()
	res.Other["victim_wav"] = map[string]any{"status": st.Status, "polls": polls, "poll_every": o.pollEvery.String()}
	var outcomes []string
	for _, b := range bombs {
		st, polls, err := f.pollReport(ctx, b.key, b.id, o.pollEvery, o.maxPolls)
		if err != nil {
			return err
		}
		outcomes = append(outcomes, fmt.Sprintf("%s charged=%v after %d more polls", st.Status, st.CreditsCharged, polls))
	}
	res.Other["attacker_reports"] = outcomes
	return nil
}

// bodyGETs sends n keyed GET /me, each with a body of size bytes of fill, spread over keys,
// conc at a time; it returns the answers by status.
func bodyGETs(ctx context.Context, f *fake, keys []string, n, size int, fill byte, conc int) map[int]int {
	body := bytes.Repeat([]byte{fill}, size)
	var mu sync.Mutex
	statuses := map[int]int{}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for i := range jobs {
				req := f.newRequest("GET", "/api/rest/v1/me", keys[i%len(keys)], nil)
				req.Body = io.NopCloser(bytes.NewReader(body))
				req.ContentLength = int64(size)
				req.Header.Set("Content-Type", "application/octet-stream")
				a := f.do(ctx, req, false)
				mu.Lock()
				statuses[a.Status]++
				mu.Unlock()
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return statuses
}

// attackRunReport: issue 41's third attack. -gets keyed GETs with a -get-body body of
// -body-byte bytes over -get-keys keys, then GET /_fake/report back to back for -attack-for
// while the probe asks GET /me.
func attackRunReport(ctx context.Context, f *fake, o *options, res *result) error {
	if err := f.needRoute(ctx, "GET", "/_fake/report", f.Admin); err != nil {
		return err
	}
	t, err := f.newTenant(ctx, "filler", o.getKeys)
	if err != nil {
		return err
	}
	res.Other["gets"] = bodyGETs(ctx, f, t.Keys, o.gets, o.getBody, o.bodyByte, 8)
	fetches, sizes, cpu, err := getBackToBack(ctx, f, o, res, "/_fake/report")
	if err != nil {
		return err
	}
	res.Other["run_report"] = map[string]any{"fetches": len(sizes), "status": fetches, "bytes_max": maxOf(sizes),
		"cpu_s_per_fetch": cpu}
	return nil
}

// getBackToBack asks GET path with the admin token back to back for -attack-for (once at
// least), after the probe's baseline and while the probe asks GET /me (its figures go to
// res.Other["probe_get_me"]). It returns the answers counted by status, their sizes, and
// the fake's CPU seconds per answer.
func getBackToBack(ctx context.Context, f *fake, o *options, res *result, path string) (map[int]int, []int64, float64, error) {
	p, err := newProbe(ctx, f, o.probeEvery)
	if err != nil {
		return nil, nil, 0, err
	}
	stopProbe := p.start(ctx)
	time.Sleep(o.baseline)
	p.set("attack")
	cpu0, _ := readCPU(f.pid())
	status := map[int]int{}
	var sizes []int64
	for end := time.Now().Add(o.attackFor); len(sizes) == 0 || time.Now().Before(end); {
		a := f.do(ctx, f.newRequest("GET", path, f.Admin, nil), false)
		if a.Err != nil {
			stopProbe()
			return nil, nil, 0, a.Err
		}
		status[a.Status]++
		sizes = append(sizes, a.Len)
	}
	cpu1, _ := readCPU(f.pid())
	res.Other["probe_get_me"] = stopProbe()
	return status, sizes, round3((cpu1 - cpu0) / float64(len(sizes))), nil
}

// attackJournalPage: issue 41's fourth attack. -journal-gets GETs with such bodies fill the
// journal, then the dashboard's journal page is rendered back to back for -attack-for (the
// page's script re-fetches it every second while the journal moves), while the probe asks
// GET /me.
func attackJournalPage(ctx context.Context, f *fake, o *options, res *result) error {
	if err := f.needRoute(ctx, "GET", "/_fake/ui/requests", f.Admin); err != nil {
		return err
	}
	t, err := f.newTenant(ctx, "filler", keysFor(float64(o.journalGets)))
	if err != nil {
		return err
	}
	res.Other["gets"] = bodyGETs(ctx, f, t.Keys, o.journalGets, o.getBody, o.bodyByte, 8)
	status, pages, cpu, err := getBackToBack(ctx, f, o, res, "/_fake/ui/requests")
	if err != nil {
		return err
	}
	res.Other["page"] = map[string]any{"renders": len(pages), "status": status, "bytes_max": maxOf(pages),
		"cpu_s_per_render": cpu}
	return nil
}

// attackResetRace: issue 41's fifth attack. Each of -race-resets rounds makes a workspace
// with -race-uploaders keys, each sending -race-posts POST /uploads back to back, and resets
// the fake while they run; the answers are counted by status, and the panics in the log.
func attackResetRace(ctx context.Context, f *fake, o *options, res *result) error {
	statuses := map[int]int{}
	var mu sync.Mutex
	for round := range o.raceResets {
		t, err := f.newTenant(ctx, fmt.Sprint("racer-", round), o.raceUploaders)
		if err != nil {
			return err
		}
		var started sync.WaitGroup
		started.Add(o.raceUploaders)
		var wg sync.WaitGroup
		for _, key := range t.Keys {
			wg.Go(func() {
				started.Done()
				// Until the key is gone with its state: its later requests would race nothing.
				for range o.racePosts {
					a := f.do(ctx, f.newRequest("POST", "/api/rest/v1/uploads", key, uploadRequest("r.wav", wavType, time.Second)), false)
					mu.Lock()
					statuses[a.Status]++
					mu.Unlock()
					if a.Status == http.StatusUnauthorized || a.Status == http.StatusTooManyRequests {
						return
					}
				}
			})
		}
		started.Wait()
		// Let the first requests get admitted, then reset under them.
		time.Sleep(time.Duration(round%5) * time.Millisecond)
		if _, err := f.call(ctx, "POST", "/_fake/reset", f.Admin, nil, nil); err != nil {
			return err
		}
		wg.Wait()
	}
	res.Other["uploads_by_status"] = statuses
	res.Other["resets"] = o.raceResets
	res.Other["answers_500"] = statuses[http.StatusInternalServerError]
	res.Other["panics_logged"] = f.logCount("panic serving request")
	return nil
}

// slowReceiver is a webhook receiver on loopback that answers each delivery after delay, or
// when the fake hangs up.
type slowReceiver struct {
	srv      *http.Server
	url      string
	received atomic.Int64
}

func startSlowReceiver(delay time.Duration) (*slowReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &slowReceiver{url: "http://" + ln.Addr().String() + "/hook"}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.received.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusOK)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// attackResetHeap: issue 41's sixth attack. Slow webhook receivers, admin pollers and a reset
// every -reset-every for -resets resets; before each reset the Demo workspace gets
// -endpoints endpoints on the slow receiver and -reports-per-reset completed reports. The
// fake's RSS is read after each reset (it exposes no heap figure).
func attackResetHeap(ctx context.Context, f *fake, o *options, res *result) error {
	if !f.hasFlag("allow-private-urls") && !f.hasFlag("allow-private-webhook-urls") {
		return notApplicable{"the build has no flag to allow loopback webhook receivers"}
	}
	recv, err := startSlowReceiver(o.receiverDelay)
	if err != nil {
		return err
	}
	defer recv.srv.Close()
	pollCtx, stopPollers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var polls atomic.Int64
	for i := range o.pollers {
		path := []string{"/_fake/webhook-deliveries", "/_fake/requests?limit=100"}[i%2]
		wg.Go(func() {
			tick := time.NewTicker(o.pollerEvery)
			defer tick.Stop()
			for {
				f.do(pollCtx, f.newRequest("GET", path, f.Admin, nil), false)
				polls.Add(1)
				select {
				case <-pollCtx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	defer func() { stopPollers(); wg.Wait() }()
	seed := map[string]any{"reports": make([]map[string]any, o.reportsPerReset)}
	for i := range o.reportsPerReset {
		// 50 ms rather than 0: the build at 8a7fa92 refuses 0 on a real clock ("complete_at
		// must not be before the clock's now": the clock moves between its two readings).
		seed["reports"].([]map[string]any)[i] = map[string]any{"duration_s": 60, "complete_after_s": 0.05}
	}
	var rss []float64
	var seeded int
	for range o.resets {
		began := time.Now()
		if _, err := f.call(ctx, "PATCH", "/_fake/workspaces/"+f.DemoWS+"/credits", f.Admin, map[string]any{"charging_enabled": false}, nil); err != nil {
			return err
		}
		for range o.endpoints {
			if _, err := f.call(ctx, "POST", "/_fake/workspaces/"+f.DemoWS+"/webhook-endpoints", f.Admin,
				map[string]any{"url": recv.url, "events": []string{"report.completed"}}, nil); err != nil {
				return err
			}
		}
		if _, err := f.call(ctx, "POST", "/_fake/workspaces/"+f.DemoWS+"/reports", f.Admin, seed, nil); err != nil {
			return err
		}
		seeded += o.reportsPerReset
		time.Sleep(time.Until(began.Add(o.resetEvery)))
		if _, err := f.call(ctx, "POST", "/_fake/reset", f.Admin, nil, nil); err != nil {
			return err
		}
		m, err := readMem(f.pid())
		if err != nil {
			return err
		}
		rss = append(rss, mib(m.RSS))
	}
	res.Other["resets"] = o.resets
	res.Other["reports_seeded"] = seeded
	res.Other["deliveries_received"] = recv.received.Load()
	res.Other["admin_polls"] = polls.Load()
	res.Other["rss_mib_after_reset"] = map[string]any{"first": rss[0], "max": maxOf(rss), "last": rss[len(rss)-1], "all": rss}
	res.Other["heap"] = "not exposed by the fake: RSS only"
	return nil
}

// firstLine is the first line of b, at most 160 bytes, for a short account of an answer.
func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	if len(s) > 160 {
		s = s[:160]
	}
	return strings.TrimSpace(s)
}

func maxOf[T int64 | float64](s []T) T {
	var m T
	for _, x := range s {
		m = max(m, x)
	}
	return m
}

func mib(kib int64) float64 { return round2(float64(kib) / 1024) }

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// errUnknownAttack is the error of an -attack name that is not one of attackNames.
var errUnknownAttack = errors.New("unknown attack")
