package pollertest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/podqa/podqa-go/poller"
	"github.com/podqa/podqa-go/poller/pollertest"
)

// TestIncompleteHarness: a harness without what the cases need fails the test at once, saying
// what is missing, instead of running cases that cannot hold. The test runs itself in a child
// process (this test binary, with an environment variable set) on the incomplete harness; the
// child's failure is the expected outcome.
func TestIncompleteHarness(t *testing.T) {
	if os.Getenv("POLLERTEST_HARNESS_CHILD") != "" {
		pollertest.TestStore(t, pollertest.Harness{
			New: func(*testing.T) poller.Store { return poller.NewMemoryLeaseStore() },
		})
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIncompleteHarness$", "-test.count=1")
	cmd.Env = append(os.Environ(), "POLLERTEST_HARNESS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed on LeaseStores with no Elapse and no Short:\n%s", out)
	}
	const want = "pollertest.Harness for a LeaseStore needs Elapse and a positive Short"
	if !strings.Contains(string(out), want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
}
