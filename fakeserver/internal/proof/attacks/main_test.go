package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A /proc/PID/status as Linux 6 writes it, cut to the lines around the two read.
const statusText = `Name:	fakeserver
Umask:	0022
State:	S (sleeping)
VmPeak:	 1893424 kB
VmSize:	 1893424 kB
VmHWM:	 1076224 kB
VmRSS:	   65536 kB
RssAnon:	   50000 kB
Threads:	12
`

func TestParseStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       procMem
		err        bool
	}{
		{"the two lines", statusText, procMem{HWM: 1076224, RSS: 65536}, false},
		{"VmHWM missing", "VmRSS:\t 10 kB\n", procMem{}, true},
		{"not kB", "VmHWM:\t 10 MB\nVmRSS:\t 10 kB\n", procMem{}, true},
		{"not a number", "VmHWM:\t x kB\nVmRSS:\t 10 kB\n", procMem{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseStatus(tc.text)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("parseStatus = %+v, %v; want %+v, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestParseStatCPU(t *testing.T) {
	t.Parallel()
	// Fields 14 and 15 (utime, stime) are 1234 and 567; the command name holds ") (" to show
	// the fields are counted from the last parenthesis.
	const stat = "4242 (fake ) (x) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 567 0 0 20 0 12 0 100 1893424 16384 18446744073709551615"
	for _, tc := range []struct {
		name, text string
		want       int64
		err        bool
	}{
		{"a stat line", stat, 1801, false},
		{"no command", "4242 S 1", 0, true},
		{"cut short", "4242 (fake) S 1 2 3", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseStatCPU(tc.text)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("parseStatCPU = %d, %v; want %d, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestConstantFLAC: the second attack's file is what the issue describes: 10 minutes of
// 384 kHz stereo in about 61 KB, frames of 65,535 constant samples.
func TestConstantFLAC(t *testing.T) {
	t.Parallel()
	b := constantFLAC(3516, 384000, 2)
	if len(b) < 55_000 || len(b) > 65_000 {
		t.Errorf("%d bytes, want about 61 KB", len(b))
	}
	if string(b[:4]) != "fLaC" || b[4] != 0x80 {
		t.Fatalf("head % x", b[:8])
	}
	packed := binary.BigEndian.Uint64(b[8+10:])
	rate, ch, samples := packed>>44, (packed>>41&7)+1, packed&(1<<36-1)
	if rate != 384000 || ch != 2 {
		t.Errorf("rate %d, channels %d", rate, ch)
	}
	if d := time.Duration(samples) * time.Second / time.Duration(rate); d < 10*time.Minute || d > 10*time.Minute+time.Second {
		t.Errorf("%d samples: %s, want 10 minutes", samples, d)
	}
	// The first frame: sync code, then a constant subframe per channel.
	frame := b[42:]
	if frame[0] != 0xFF || frame[1] != 0xF8 {
		t.Fatalf("frame sync % x", frame[:2])
	}
	if !bytes.Equal(frame[8:11], []byte{0x00, 0x12, 0x34}) {
		t.Errorf("subframe % x, want a constant one", frame[8:11])
	}
	if crc8(frame[:7]) != frame[7] {
		t.Errorf("header CRC %x, want %x", frame[7], crc8(frame[:7]))
	}
}

func TestSineWAV(t *testing.T) {
	t.Parallel()
	b := sineWAV(1, 48000, 2)
	if len(b) != 44+48000*4 {
		t.Fatalf("%d bytes, want %d", len(b), 44+48000*4)
	}
	if string(b[:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("head %q", b[:40])
	}
	if rate := binary.LittleEndian.Uint32(b[24:]); rate != 48000 {
		t.Errorf("rate %d", rate)
	}
}

// TestAttackRequests: the requests the first and third attacks send are the issue's: an
// upload declared 1 s, a PUT declaring the whole length with the reservation's type, a
// trickle's head declaring 512 MiB, and keyed GETs with a body of 0x01 bytes.
func TestAttackRequests(t *testing.T) {
	t.Parallel()
	var up map[string]any
	b, _ := json.Marshal(uploadRequest("z.wav", wavType, time.Second))
	if err := json.Unmarshal(b, &up); err != nil || up["duration_ms"] != 1000.0 || up["file_type"] != wavType {
		t.Errorf("POST /uploads body %s", b)
	}
	put := putRequest("http://127.0.0.1:1/_uploads/x?sig=y", wavType, io.LimitReader(zeroReader{}, 512<<20), 512<<20)
	if put.Method != http.MethodPut || put.ContentLength != 512<<20 || put.Header.Get("Content-Type") != wavType || put.Header.Get("Authorization") != "" {
		t.Errorf("PUT %s %d %v", put.Method, put.ContentLength, put.Header)
	}
	// The body is zeros and as long as declared (shown on 1 MiB: the test stays quick).
	small := putRequest("http://127.0.0.1:1/_uploads/x?sig=y", wavType, io.LimitReader(zeroReader{}, 1<<20), 1<<20)
	if body, _ := io.ReadAll(small.Body); len(body) != 1<<20 || !bytes.Equal(body, make([]byte, 1<<20)) {
		t.Errorf("PUT body %d bytes, not all zero", len(body))
	}
	head := trickleHead("127.0.0.1:1", "/_uploads/x?sig=y", 512<<20)
	if !strings.HasPrefix(head, "PUT /_uploads/x?sig=y HTTP/1.1\r\n") || !strings.Contains(head, "\r\nContent-Length: 536870912\r\n") || !strings.HasSuffix(head, "\r\n\r\n") {
		t.Errorf("trickle head %q", head)
	}
	if keysFor(1030) != 12 || keysFor(90) != 1 || keysFor(600) != 7 {
		t.Errorf("keysFor(1030, 90, 600) = %d, %d, %d", keysFor(1030), keysFor(90), keysFor(600))
	}
}

func TestPercentiles(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	got := percentiles(d)
	if got != (latency{N: 100, P50: 50, P99: 99, Max: 100}) {
		t.Errorf("percentiles = %+v", got)
	}
	if percentiles(nil) != (latency{}) {
		t.Errorf("percentiles(nil) = %+v", percentiles(nil))
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-bin", "/x"}, io.Discard)
	if err != nil || o.zeroSize != 512<<20 || o.gets != 1030 || o.getKeys != 11 || o.resets != 58 || o.flacRate != 384000 {
		t.Fatalf("defaults %+v, %v", o, err)
	}
	if _, err := parseFlags([]string{"-bin", "/x", "-attack", "nope"}, io.Discard); !errors.Is(err, errUnknownAttack) {
		t.Errorf("unknown attack: %v", err)
	}
	if o.bodyByte != 0x01 || o.getBody != 64<<10 {
		t.Errorf("bodies of %d bytes of %#x, want 64 KiB of 0x01", o.getBody, o.bodyByte)
	}
	if _, err := parseFlags([]string{"-bin", "/x", "-body-byte", "256"}, io.Discard); err == nil {
		t.Error("-body-byte 256: no error")
	}
	if _, err := parseFlags(nil, io.Discard); err == nil {
		t.Error("no -bin: no error")
	}
}
