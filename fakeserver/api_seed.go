package fakeserver

import "time"

// DemoWorkspace is the Demo workspace and its key, ready for a client, as SeedDemo and NewTest
// make them.
type DemoWorkspace struct {
	WorkspaceID string
	APIKeyID    string
	// APIKey is the key itself, for Authorization: Bearer.
	APIKey string
}

// demoAllowance is the Demo workspace's monthly credits: 20 hours of audio, plenty for a quick
// start.
const demoAllowance = 12000

// SeedDemo creates the personal workspace named Demo, with enough credits for a quick start, and
// a key for it. The program seeds it at start.
//
// Reset makes the Demo workspace again, with the same ids and key, once SeedDemo has made it.
func (s *Server) SeedDemo() (_ DemoWorkspace, err error) {
	defer apiError(&err)
	s.start.mu.Lock()
	if s.start.demo == nil {
		s.start.demo = s.rand.Save()
	}
	s.start.mu.Unlock()
	return s.seedDemo()
}

func (s *Server) seedDemo() (DemoWorkspace, error) {
	allowance := float64(demoAllowance)
	limit := 10
	ws, err := s.CreateWorkspace(WorkspaceSpec{Type: "personal", Name: "Demo", PlanAllowance: &allowance, PodcastLimit: &limit})
	if err != nil {
		return DemoWorkspace{}, err
	}
	key, err := s.CreateAPIKey(ws.ID, "Demo key")
	if err != nil {
		return DemoWorkspace{}, err
	}
	return DemoWorkspace{WorkspaceID: ws.ID, APIKeyID: key.ID, APIKey: key.Key}, nil
}

// TestStart returns the instant a NewTest fake's manual clock starts at unless an option says
// otherwise: fixed, so that tests are repeatable.
func TestStart() time.Time { return time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) }

// TB is what NewTest needs of a test: *testing.T, *testing.B, *testing.F and any testing.TB
// satisfy it. It is not testing.TB itself so that a program importing the fake (such as
// cmd/fakeserver) does not compile and link the testing package.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// NewTest starts a fake for a test, seeds the Demo workspace and its key (SeedDemo), and closes
// the fake when the test ends; New, by contrast, starts with no workspace and refuses loopback
// URLs. Its clock is manual and starts at TestStart() unless opts say otherwise, so
// the test moves time with Advance instead of sleeping. It accepts loopback and private URLs
// (WithPrivateURLs), so that the test's own feed servers and webhook receivers work; pass
// WithPrivateURLs(false) to test the service's refusals. Setup failures end the test with Fatal.
//
// A t that also has Log, Failed and Name, as every testing.TB does, hears the fake: its log
// lines go to t.Log from INFO up (WithTestLogLevel; WithLogger sends them elsewhere), which go
// test shows for a failed test or with -v, and none after the test has ended. When the test
// fails, the fake writes its run report (WithFailureReport; default in os.TempDir()) into files
// named after the test and says where in the test's log.
func NewTest(t TB, opts ...Option) (*Server, DemoWorkspace) {
	t.Helper()
	out, outOpts := newTestOutput(t, opts)
	t.Cleanup(out.end) // registered first, so it runs last: nothing reaches t after its end
	srv, err := New(append(append([]Option{WithManualClock(TestStart()), WithPrivateURLs(true)}, outOpts...), opts...)...)
	if err != nil {
		t.Fatalf("fakeserver: %v", err)
	}
	t.Cleanup(func() {
		out.beforeClose(srv)
		err := srv.Close()
		out.afterClose(srv, err)
		if err != nil {
			t.Errorf("fakeserver: close: %v", err)
		}
	})
	seed, err := srv.SeedDemo()
	if err != nil {
		t.Fatalf("fakeserver: seed: %v", err)
	}
	return srv, seed
}
