package core

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/podqa/podqa-go/fakeserver/internal/clock"
)

// TestAnalysisPoolMadeOnFirstUse: a pool closed before any measurement hands out a cancelled
// context and drops what is queued after; one used first is cancelled by its close too.
func TestAnalysisPoolMadeOnFirstUse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		useNext bool
	}{{"closed unused", false}, {"closed after use", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newAnalysisPoolSize(2)
			if p.ctx != nil || p.running != nil {
				t.Fatal("a new pool made its context and maps before its first measurement")
			}
			ctx := p.ctx
			if tc.useNext {
				ctx = p.context()
				if ctx.Err() != nil {
					t.Fatal("an open pool's context is cancelled")
				}
			}
			p.close()
			if ctx == nil {
				ctx = p.context()
			}
			if ctx.Err() == nil {
				t.Error("a closed pool's context is not cancelled")
			}
			ran := false
			p.run(uuid.New(), func() { ran = true })
			p.close() // waits for anything started
			if ran {
				t.Error("a closed pool ran a measurement")
			}
		})
	}
}

// TestBuiltinStandardsSharedReadOnly: cores share the process's table of built-in standards,
// and what BuiltinStandards and a core hand out are copies: changing them changes neither the
// table nor another core's standards.
func TestBuiltinStandardsSharedReadOnly(t *testing.T) {
	t.Parallel()
	a := New(clock.NewManual(time.Unix(0, 0)), Deps{})
	b := New(clock.NewManual(time.Unix(0, 0)), Deps{})
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	if &a.standards[0] != &b.standards[0] {
		t.Error("two cores built their own tables of the built-in standards")
	}
	want := a.standards[0].Limits.SampleRates[0]
	mine := BuiltinStandards()
	mine[0].Limits.SampleRates[0] = 1
	ws := mustWorkspace(t, a, Personal, "Ada")
	listed, err := a.Standards(ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	listed[0].Limits.SampleRates[0] = 2
	if got := b.standards[0].Limits.SampleRates[0]; got != want {
		t.Errorf("another core's Podcast sample rate is %d after changing copies, want %d", got, want)
	}
	if got := BuiltinStandards()[0].Limits.SampleRates[0]; got != want {
		t.Errorf("BuiltinStandards' Podcast sample rate is %d after changing copies, want %d", got, want)
	}
}
