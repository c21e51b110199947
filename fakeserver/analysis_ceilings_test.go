package fakeserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// flacAtRate is a FLAC of frames of 65,535 constant samples at rate on ch channels: tens of
// bytes a frame, any rate FLAC can declare (issue 41's file is 3,516 frames at 384 kHz stereo,
// 10 minutes in 63 KB).
func flacAtRate(frames, rate, ch int) []byte {
	const block = 65535
	var b bytes.Buffer
	b.WriteString("fLaC")
	b.Write([]byte{0x80, 0, 0, 34}) // last metadata block: STREAMINFO
	var si [34]byte
	binary.BigEndian.PutUint16(si[0:], block)
	binary.BigEndian.PutUint16(si[2:], block)
	binary.BigEndian.PutUint64(si[10:], uint64(rate)<<44|uint64(ch-1)<<41|uint64(15)<<36|uint64(frames*block))
	b.Write(si[:])
	crc8 := func(p []byte) (c byte) {
		for _, x := range p {
			c ^= x
			for range 8 {
				c = c<<1 ^ byte(0x07*int(c>>7))
			}
		}
		return c
	}
	crc16 := func(p []byte) (c uint16) {
		for _, x := range p {
			c ^= uint16(x) << 8
			for range 8 {
				c = c<<1 ^ uint16(0x8005*int(c>>15))
			}
		}
		return c
	}
	for n := range frames {
		h := []byte{0xFF, 0xF8, 0x70, byte(ch-1)<<4 | 0x08} // rate from STREAMINFO, 16 bits
		switch {                                            // the frame number, UTF-8 coded
		case n < 0x80:
			h = append(h, byte(n))
		case n < 0x800:
			h = append(h, 0xC0|byte(n>>6), 0x80|byte(n&0x3F))
		default:
			h = append(h, 0xE0|byte(n>>12), 0x80|byte(n>>6&0x3F), 0x80|byte(n&0x3F))
		}
		bs := uint16(block - 1)
		h = append(h, byte(bs>>8), byte(bs))
		h = append(h, crc8(h))
		for range ch {
			h = append(h, 0x00, 0x12, 0x34) // constant subframe
		}
		c := crc16(h)
		b.Write(append(h, byte(c>>8), byte(c)))
	}
	return b.Bytes()
}

// TestSampleRateCeilingFailsTheReport: an upload above 192 kHz (issue 41's 63 KB of 10
// minutes at 384 kHz stereo, declared 2 s) fails its report at once with the ceiling named,
// and is not charged.
func TestSampleRateCeilingFailsTheReport(t *testing.T) {
	t.Parallel()
	srv, seed := NewTest(t, WithAnalysisPace(0))
	file := flacAtRate(3516, 384000, 2)
	credits := func() string {
		_, _, b := call(t, srv, "GET", "/api/rest/v1/credits", bearer(seed.APIKey), "")
		return string(b)
	}
	before := credits()
	id := uploadReport(t, srv, seed.APIKey, file)
	if _, err := srv.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	_, _, body := call(t, srv, "GET", "/api/rest/v1/reports/"+id, bearer(seed.APIKey), "")
	var r struct {
		Status         string  `json:"status"`
		CreditsCharged *string `json:"credits_charged"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "FAILED" || r.CreditsCharged != nil {
		t.Fatalf("report %s", body)
	}
	acct, err := srv.ReportAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(acct.Failure, "a sample rate of 384000 Hz; at most 192000 Hz is measured") {
		t.Fatalf("failure reason %q", acct.Failure)
	}
	if after := credits(); after != before {
		t.Fatalf("credits before %s, after %s", before, after)
	}
}
