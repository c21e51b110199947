package examples_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReceiverStoresOnlyWithTag holds the webhook receiver's plain build free of the store
// drivers, which a first `go run ./examples/webhook-receiver` would otherwise compile, and the
// build with -tags stores holding them (so that the first check can fail).
func TestReceiverStoresOnlyWithTag(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the check lists packages with the go command: %v", err)
	}
	storePackages := []string{
		"github.com/jackc/pgx/v5",
		"github.com/redis/go-redis/v9",
		"github.com/podqa/podqa-go/webhook/webhookpg",
		"github.com/podqa/podqa-go/webhook/webhookredis",
	}
	tests := []struct {
		name   string
		tags   []string
		stores bool // whether every store package is in the build
	}{
		{name: "plain", stores: false},
		{name: "-tags stores", tags: []string{"-tags", "stores"}, stores: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"list", "-deps"}, tt.tags...), "./webhook-receiver")
			out, err := exec.Command(goBin, args...).Output()
			if err != nil {
				t.Fatalf("go %s: %v", strings.Join(args, " "), err)
			}
			deps := make(map[string]bool)
			for _, p := range strings.Fields(string(out)) {
				deps[p] = true
			}
			if !deps["github.com/podqa/podqa-go/webhook"] {
				t.Fatalf("go %s does not list the webhook package:\n%s", strings.Join(args, " "), out)
			}
			for _, p := range storePackages {
				if deps[p] != tt.stores {
					t.Errorf("%s build: %s in the build is %v, want %v", tt.name, p, deps[p], tt.stores)
				}
			}
		})
	}
}
