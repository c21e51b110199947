// Package modules_test proves the split of the repository into modules from a consumer's side:
// a program importing any of the SDK's packages has neither the fake (its module and every
// dependency only it needs) nor pgx or go-redis in its module graph, and links no audio decoder;
// one importing a store has the store's driver, and one importing the fake has the fake's
// dependencies.
package modules_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	fake        = sdk + "/fakeserver"
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
	fakeOnly := fakeOnlyModules(t, goBin, root)
	// The heaviest of them by name, so that the check cannot pass by reading nothing.
	for _, m := range []string{"github.com/getkin/kin-openapi@", "github.com/pion/opus@", "github.com/mewkiz/flac@", "github.com/bogem/id3v2/v2@", "github.com/swaggo/files/v2@"} {
		if !slices.Contains(fakeOnly, m) {
			t.Errorf("%s is not among the fake's own dependencies %v", m, fakeOnly)
		}
	}
	if len(fakeOnly) < 5 {
		t.Fatalf("the fake's go.mod names %d modules the SDK's does not: %v", len(fakeOnly), fakeOnly)
	}
	sdkAbsent := append(append([]string{fake + "@"}, heavy...), fakeOnly...)
	tests := []struct {
		name    string
		imports []string
		// want and absent are module paths that must, and must not, be in the graph.
		want, absent []string
		// noDecoder: no package the program links decodes audio.
		noDecoder bool
	}{
		{
			name:      "client",
			imports:   []string{sdk + "/client"},
			want:      []string{sdk + "@", "github.com/hashicorp/go-retryablehttp"},
			absent:    sdkAbsent,
			noDecoder: true,
		},
		{
			name:      "graphqlclient",
			imports:   []string{sdk + "/graphqlclient"},
			want:      []string{sdk + "@", "github.com/Khan/genqlient"},
			absent:    sdkAbsent,
			noDecoder: true,
		},
		{
			name:      "webhook",
			imports:   []string{sdk + "/webhook"},
			want:      []string{sdk + "@", "github.com/standard-webhooks/standard-webhooks/libraries"},
			absent:    sdkAbsent,
			noDecoder: true,
		},
		{
			name:      "poller",
			imports:   []string{sdk + "/poller"},
			want:      []string{sdk + "@"},
			absent:    sdkAbsent,
			noDecoder: true,
		},
		{
			name:      "client, graphqlclient, webhook and poller",
			imports:   []string{sdk + "/client", sdk + "/graphqlclient", sdk + "/webhook", sdk + "/poller"},
			want:      []string{sdk + "@", "github.com/standard-webhooks/standard-webhooks/libraries"},
			absent:    sdkAbsent,
			noDecoder: true,
		},
		{
			// The control of the fake's side: importing the fake brings its dependencies.
			name:    "the fake",
			imports: []string{fake},
			want:    append([]string{fake + "@"}, fakeOnly...),
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
			mod.WriteString("replace " + fake + " => " + filepath.Join(root, "fakeserver") + "\n")
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
			for _, m := range append([]string{".", "fakeserver"}, storeModules...) {
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
			deps := strings.Fields(string(run("list", "-deps", ".")))
			if tt.noDecoder {
				for _, p := range deps {
					if strings.HasPrefix(p, sdk+"/") && (strings.HasSuffix(p, "dec") || strings.HasSuffix(p, "enc") || strings.Contains(p, "/audio")) {
						t.Errorf("the program links %s, a codec", p)
					}
				}
			}
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

// fakeOnlyModules returns the modules the fake's go.mod requires that are nowhere in the SDK
// module's own graph (`go mod graph` of the root module): the dependencies that only the fake
// brings, which a consumer of the SDK must not have in its graph. (Modules that the SDK's required
// dependencies bring, gqlgen through genqlient's go.mod for one, are the SDK's.)
func fakeOnlyModules(t *testing.T, goBin, root string) []string {
	t.Helper()
	cmd := exec.Command(goBin, "mod", "graph")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod graph of the SDK: %v", err)
	}
	inSDK := map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		inSDK[strings.SplitN(f, "@", 2)[0]] = true
	}
	data, err := os.ReadFile(filepath.Join(root, "fakeserver", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var only []string
	block := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		var m string
		switch {
		case len(f) == 0:
		case f[0] == "require" && len(f) > 1 && f[1] == "(":
			block = true
		case f[0] == ")":
			block = false
		case f[0] == "require" && len(f) >= 3:
			m = f[1]
		case block && len(f) >= 2:
			m = f[0]
		}
		if m != "" && !inSDK[m] {
			only = append(only, m+"@")
		}
	}
	return only
}
