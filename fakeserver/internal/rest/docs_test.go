package rest

import (
	"strings"
	"testing"
)

// TestExplorerPageIsOffline: the REST explorer's page loads nothing from the internet; its
// assets are served by the fake (ExplorerAssets).
func TestExplorerPageIsOffline(t *testing.T) {
	t.Parallel()
	if strings.Contains(explorerPage, "https://") {
		t.Fatal("the explorer page loads something from the internet")
	}
}
