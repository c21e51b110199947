// Package modules_test proves the split of the repository into modules from a consumer's side:
// a program importing the SDK's client, webhook and poller has neither pgx nor go-redis in its
// module graph, while one importing a store has the store's driver.
package modules_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the root of this checkout, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The SDK's module and its store modules, as a consumer requires them before any tag exists.
const (
	sdk         = "github.com/podqa/podqa-go"
	untaggedVer = "v0.0.0-00010101000000-000000000000"
)

var storeModules = []string{"webhook/webhookpg", "webhook/webhookredis", "poller/pollerpg", "poller/pollerredis"}

// TestConsumerModuleGraph loads a consumer module in a temporary directory, offline
// (GOPROXY=off, GOWORK=off, the module cache only), with a replace of each of this
// repository's modules to its directory, and reads its `go mod graph`.
func TestConsumerModuleGraph(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the consumer is built with the go command: %v", err)
	}
	root := repoRoot(t)
	heavy := []string{"github.com/jackc/pgx", "github.com/redis/go-redis"}
	tests := []struct {
		name    string
		imports []string
		// want and absent are module paths that must, and must not, be in the graph.
		want, absent []string
	}{
		{
			name:    "client, webhook and poller",
			imports: []string{sdk + "/client", sdk + "/webhook", sdk + "/poller"},
			want:    []string{sdk + "@", "github.com/standard-webhooks/standard-webhooks/libraries"},
			absent:  heavy,
		},
		{
			// The control: the same check finds the drivers when a store is imported.
			name:    "webhook and its PostgreSQL and Redis stores",
			imports: []string{sdk + "/webhook", sdk + "/webhook/webhookpg", sdk + "/webhook/webhookredis"},
			want:    append([]string{sdk + "/webhook/webhookpg@"}, heavy...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var mod strings.Builder
			mod.WriteString("module example.com/consumer\n\ngo 1.25.0\n\nrequire " + sdk + " " + untaggedVer + "\n\nreplace " + sdk + " => " + root + "\n")
			for _, m := range storeModules {
				mod.WriteString("replace " + sdk + "/" + m + " => " + filepath.Join(root, m) + "\n")
			}
			var src strings.Builder
			src.WriteString("package main\n\nimport (\n")
			for _, imp := range tt.imports {
				src.WriteString("\t_ \"" + imp + "\"\n")
			}
			src.WriteString(")\n\nfunc main() {}\n")
			// The checksums the repository's modules already hold: nothing is looked up.
			var sum bytes.Buffer
			for _, m := range append([]string{"."}, storeModules...) {
				data, err := os.ReadFile(filepath.Join(root, m, "go.sum"))
				if err != nil {
					t.Fatal(err)
				}
				sum.Write(data)
			}
			for name, data := range map[string]string{"go.mod": mod.String(), "go.sum": sum.String(), "main.go": src.String()} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			run := func(args ...string) []byte {
				t.Helper()
				cmd := exec.Command(goBin, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
				}
				return out
			}
			// -mod=mod: loading the imports adds the requirements they need to go.mod.
			run("list", "-deps", ".")
			graph := string(run("mod", "graph"))
			for _, m := range tt.want {
				if !strings.Contains(graph, m) {
					t.Errorf("go mod graph has no %s:\n%s", strings.TrimSpace(m), graph)
				}
			}
			for _, m := range tt.absent {
				if strings.Contains(graph, m) {
					t.Errorf("go mod graph has %s:\n%s", m, graph)
				}
			}
			t.Logf("%s: %d edges in go mod graph", tt.name, strings.Count(graph, "\n"))
		})
	}
}
