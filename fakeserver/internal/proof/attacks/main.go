// Command attacks runs one of issue 41's attacks against a build of the fake and reports the
// fake's peak memory and CPU under it and what another tenant met meanwhile: the figures of the
// issue's "Peak RSS of the fake under each attack above, before and after".
//
// It starts the given binary on a loopback port (-addr 127.0.0.1:0, its JSON start line read
// for the base URL, admin token and Demo workspace), runs the attack over loopback, then reads
// the fake's peak resident set (VmHWM of /proc/PID/status) and its CPU seconds (utime+stime of
// /proc/PID/stat, counted from the start line) and prints one JSON object. A build that lacks
// a route or flag an attack needs gets "not_applicable", never a made-up figure.
//
// Usage, from fakeserver/internal/proof (Linux only, for /proc):
//
//	go build -o /tmp/fake-after ../../cmd/fakeserver
//	go run ./attacks -bin /tmp/fake-after -attack zeros
//	go run ./attacks -bin /tmp/fake-after -attack all -runs 2
//
// The attacks, as the issue words them, each with its sizes as flags (the by default):
//
//	zeros        two reservations declared 1 s, 512 MiB of zeros PUT to each; then another tenant's 1 KiB
//	trickle      two PUTs declaring 512 MiB sending a byte every 20 s for 30 s; another tenant's 1 KiB every 5 s
//	flac         the 61 KB FLAC (10 min of 384 kHz stereo, declared 1 s) from two workspaces; a third tenant's 1 s WAV
//	runreport    1,030 keyed GETs with 64 KiB bodies of 0x01 over 11 keys, then GET /_fake/report for 5 s
//	journalpage  200 such GETs, then the dashboard's journal page rendered back to back for 5 s
//	resetrace    resets racing POST /uploads: 500s and panics in the fake's log
//	resetheap    slow webhook receivers, admin pollers and a reset a second for 58 resets: RSS after each
//
// Latencies of the probing tenant's GET /me are wall time, given with the load average; the
// rest (requests, polls, bytes, statuses) are counts.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

// options are the flags: the binary, the attack, and each attack's sizes.
type options struct {
	bin, attack string
	runs        int
	timeout     time.Duration
	logDir      string

	probeEvery, baseline time.Duration

	zeroSize    int64
	zeroPuts    int
	victimTries int

	trickleSize                           int64
	trickleEvery, trickleFor, victimEvery time.Duration

	flacFrames, flacRate, flacAttackers int
	pollEvery                           time.Duration
	maxPolls                            int

	gets, getBody, getKeys int
	bodyByte               byte
	journalGets            int
	attackFor              time.Duration

	raceResets, raceUploaders, racePosts int

	resets, reportsPerReset, endpoints, pollers int
	resetEvery, receiverDelay, pollerEvery      time.Duration
}

// result is what one run of one attack printed: the fake's memory and CPU, and what the other
// tenants met.
type result struct {
	Attack        string         `json:"attack"`
	Bin           string         `json:"bin"`
	NotApplicable string         `json:"not_applicable,omitempty"`
	StartRSSMiB   float64        `json:"start_rss_mib"`
	PeakRSSMiB    float64        `json:"peak_rss_mib"`
	EndRSSMiB     float64        `json:"end_rss_mib"`
	CPUSeconds    float64        `json:"cpu_s"`
	Load          string         `json:"loadavg"`
	Other         map[string]any `json:"other"`
	Log           string         `json:"log"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "attacks:", err)
		os.Exit(2)
	}
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("attacks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bin, "bin", "", "the fake's binary (required)")
	fs.StringVar(&o.attack, "attack", "all", fmt.Sprintf("the attack: all, or one of %q", attackNames))
	fs.IntVar(&o.runs, "runs", 1, "runs of each attack, each on a fresh fake")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "bound of one run")
	fs.StringVar(&o.logDir, "log-dir", os.TempDir(), "where the fakes' logs go")
	fs.DurationVar(&o.probeEvery, "probe-every", 100*time.Millisecond, "the probing tenant's pace of GET /me")
	fs.DurationVar(&o.baseline, "baseline", 2*time.Second, "probing before the attack, the same run's baseline")
	fs.Int64Var(&o.zeroSize, "zeros-size", 512<<20, "zeros: bytes PUT to each reservation")
	fs.IntVar(&o.zeroPuts, "zeros-puts", 2, "zeros: reservations filled")
	fs.IntVar(&o.victimTries, "victim-tries", 3, "zeros: the other tenant's 1 KiB uploads afterwards")
	fs.Int64Var(&o.trickleSize, "trickle-size", 512<<20, "trickle: Content-Length each PUT declares")
	fs.DurationVar(&o.trickleEvery, "trickle-every", 20*time.Second, "trickle: a byte sent this often")
	fs.DurationVar(&o.trickleFor, "trickle-for", 30*time.Second, "trickle: how long the PUTs trickle")
	fs.DurationVar(&o.victimEvery, "victim-every", 5*time.Second, "trickle: the other tenant's 1 KiB upload this often")
	fs.IntVar(&o.flacFrames, "flac-frames", 3516, "flac: frames of 65,535 samples (3,516 at 384 kHz: 10 minutes)")
	fs.IntVar(&o.flacRate, "flac-rate", 384000, "flac: sample rate declared")
	fs.IntVar(&o.flacAttackers, "flac-attackers", 2, "flac: workspaces each reporting the file")
	fs.DurationVar(&o.pollEvery, "poll-every", time.Second, "flac: the victim's poll of its report")
	fs.IntVar(&o.maxPolls, "max-polls", 80, "flac: polls before giving up on a report")
	fs.IntVar(&o.gets, "gets", 1030, "runreport: keyed GETs with a body")
	fs.IntVar(&o.getBody, "get-body", 64<<10, "runreport, journalpage: bytes in each GET's body")
	bodyByte := fs.Uint("body-byte", 0x01, "runreport, journalpage: the byte the bodies are made of (0x01 escapes to 6 bytes in JSON, '\"' = 34 to 5 or 6 in HTML)")
	fs.IntVar(&o.getKeys, "get-keys", 11, "runreport: keys the GETs are spread over")
	fs.IntVar(&o.journalGets, "journal-gets", 200, "journalpage: keyed GETs with a body before the renders")
	fs.DurationVar(&o.attackFor, "attack-for", 5*time.Second, "runreport, journalpage: how long the report is fetched or the page rendered, back to back")
	fs.IntVar(&o.raceResets, "race-resets", 40, "resetrace: resets")
	fs.IntVar(&o.raceUploaders, "race-uploaders", 4, "resetrace: keys sending POST /uploads in each round")
	fs.IntVar(&o.racePosts, "race-posts", 6, "resetrace: POST /uploads of each key in each round")
	fs.IntVar(&o.resets, "resets", 58, "resetheap: resets")
	fs.DurationVar(&o.resetEvery, "reset-every", time.Second, "resetheap: a reset this often")
	fs.IntVar(&o.reportsPerReset, "reports-per-reset", 360, "resetheap: completed reports seeded before each reset")
	fs.IntVar(&o.endpoints, "endpoints", 2, "resetheap: webhook endpoints on the slow receiver")
	fs.IntVar(&o.pollers, "pollers", 2, "resetheap: admin pollers")
	fs.DurationVar(&o.pollerEvery, "poller-every", 100*time.Millisecond, "resetheap: each admin poller's pace")
	fs.DurationVar(&o.receiverDelay, "receiver-delay", 5*time.Second, "resetheap: how long the receiver takes to answer")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *bodyByte > 0xFF {
		return nil, fmt.Errorf("-body-byte must be a byte, not %d", *bodyByte)
	}
	o.bodyByte = byte(*bodyByte)
	if o.bin == "" {
		return nil, fmt.Errorf("-bin is required")
	}
	if o.attack != "all" {
		if _, ok := attacks[o.attack]; !ok {
			return nil, fmt.Errorf("%w %q: want all or one of %q", errUnknownAttack, o.attack, attackNames)
		}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	names := []string{o.attack}
	if o.attack == "all" {
		names = attackNames
	}
	enc := json.NewEncoder(stdout)
	for _, name := range names {
		for range o.runs {
			res, err := runOne(ctx, o, name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := enc.Encode(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// runOne starts a fresh fake, runs the attack and reads the fake's figures before stopping it.
func runOne(ctx context.Context, o *options, name string) (*result, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	f, err := startFake(ctx, o.bin, o.logDir, []string{"-allow-private-urls", "-log-level", "warn"})
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.stop() }()
	res := &result{Attack: name, Bin: o.bin, Other: map[string]any{}, Log: f.logPath}
	m0, err := readMem(f.pid())
	if err != nil {
		return nil, err
	}
	cpu0, err := readCPU(f.pid())
	if err != nil {
		return nil, err
	}
	res.StartRSSMiB = mib(m0.RSS)
	if err := attacks[name](ctx, f, o, res); err != nil {
		if !isNotApplicable(err) {
			return nil, err
		}
		res.NotApplicable = err.Error()
	}
	m1, err := readMem(f.pid())
	if err != nil {
		return nil, err
	}
	cpu1, err := readCPU(f.pid())
	if err != nil {
		return nil, err
	}
	res.PeakRSSMiB, res.EndRSSMiB = mib(m1.HWM), mib(m1.RSS)
	res.CPUSeconds = round2(cpu1 - cpu0)
	res.Load = loadAverage()
	return res, nil
}
