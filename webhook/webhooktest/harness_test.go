package webhooktest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/webhook"
	"github.com/podqa/podqa-go/webhook/webhooktest"
)

// TestIncompleteHarness: a harness without what the cases need fails the test at once, saying
// what is missing, instead of running cases that cannot hold. The test runs itself in a child
// process (this test binary, with an environment variable set) on the incomplete harness; the
// child's failure is the expected outcome.
func TestIncompleteHarness(t *testing.T) {
	if os.Getenv("WEBHOOKTEST_HARNESS_CHILD") != "" {
		webhooktest.TestDedupStore(t, webhooktest.Harness{
			New: func(_ *testing.T, doneTTL time.Duration) webhook.DedupStore { return newMapStore(doneTTL, time.Now) },
		})
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIncompleteHarness$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WEBHOOKTEST_HARNESS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed with no Elapse and no Short:\n%s", out)
	}
	const want = "webhooktest.Harness needs New, Elapse and a positive Short"
	if !strings.Contains(string(out), want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
}
