package drift_test

import (
	"context"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/drift"
)

// TestCheckFindsNothingAgainstAFake is issue 42's first test: a second fake playing the live
// service does not differ from the fake, keyless or with a key.
func TestCheckFindsNothingAgainstAFake(t *testing.T) {
	t.Parallel()
	live, seed := liveFake(t)
	for _, tt := range []struct {
		name string
		opts []drift.Option
	}{
		{"keyless", nil},
		{"with a key", []drift.Option{drift.WithAPIKey(seed.APIKey)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]drift.Option{drift.WithHTTPClient(live.Client()), drift.WithClock(live.Clock())}, tt.opts...)
			rep, err := drift.Check(context.Background(), live.URL(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			var table strings.Builder
			_ = rep.WriteTable(&table)
			if rep.Drifted() {
				t.Fatalf("a fake drifted from itself:\n%s", table.String())
			}
			want := 2
			if len(tt.opts) > 0 {
				want = 2 + 7 + 4
			}
			if len(rep.Checked) != want {
				t.Errorf("checked %d things, want %d: %q", len(rep.Checked), want, rep.Checked)
			}
			if !strings.Contains(table.String(), "no differences") {
				t.Errorf("table:\n%s", table.String())
			}
		})
	}
}
