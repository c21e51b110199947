package poller

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseState feeds the file store's parser arbitrary files: it must never panic, and what
// it accepts must survive a save and load unchanged.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"version":1,"watermark":"2026-01-05T09:01:59.000000+00:00","seen":[{"id":"0b7c4f3e-9a51-4d1e-8f55-1c2d3e4f5a6b","updated_at":"2026-01-05T09:02:00.000000+00:00"}]}`))
	f.Add([]byte(`{"version":1,"watermark":"2026-01-05T09:00:00Z"}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseState(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(fileState{Version: fileVersion, State: st})
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseState(out)
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Fatalf("accepted state %+v did not round-trip: %+v, %v", st, again, err)
		}
	})
}

// FuzzNormalizeWatermark checks that whatever NormalizeWatermark accepts comes out in the fixed
// form, and that normalising again changes nothing.
func FuzzNormalizeWatermark(f *testing.F) {
	for _, s := range []string{"2026-01-05T09:00:00Z", "2026-01-05T09:00:00.123456789+02:00", "2026-01-05T09:00:00", "", " 2026-01-05T09:00:00.5-00:30 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		n, err := NormalizeWatermark(w)
		if err != nil {
			return
		}
		if len(n) != len("2026-01-05T09:00:00.000000+00:00") || !strings.HasSuffix(n, "+00:00") {
			t.Fatalf("%q normalised to %q, not the fixed form", w, n)
		}
		if again, err := NormalizeWatermark(n); err != nil || again != n {
			t.Fatalf("normalising %q again gave %q, %v", n, again, err)
		}
	})
}
