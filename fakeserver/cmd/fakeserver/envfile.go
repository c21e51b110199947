package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writeEnvFile writes the start line's values to path as POSIX shell exports, for `. path`:
// PODQA_BASE_URL, PODQA_API_KEY (the Demo workspace's key), PODQA_ADMIN_TOKEN and
// PODQA_WORKSPACE_ID. The file appears whole (written beside path, then renamed), so that a
// script waiting for it never reads half of it, and is readable by its owner only (it holds
// the admin token and a key).
func writeEnvFile(path string, line startLine) error {
	var b strings.Builder
	b.WriteString("# written by fakeserver -env-file; removed when it stops\n")
	for _, kv := range [][2]string{
		{"PODQA_BASE_URL", line.BaseURL},
		{"PODQA_API_KEY", line.APIKey},
		{"PODQA_ADMIN_TOKEN", line.AdminToken},
		{"PODQA_WORKSPACE_ID", line.WorkspaceID},
	} {
		fmt.Fprintf(&b, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fakeserver-env-*")
	if err != nil {
		return fmt.Errorf("-env-file: %w", err)
	}
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("-env-file: %w", err)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell: in single quotes, each single quote inside closed,
// escaped with a backslash and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
