package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// storeClaudeSession does what Claude Code does with --session-id X: it
// keeps the conversation in ${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/
// <cwd with / as ->/X.jsonl, which is what a later --resume X needs. In mode
// die-first the first start exits before it writes anything (as Claude Code
// does offline or logged out); the marker of that first start is a file
// beside $ACPMUX_FAKE_RECORD. It reports whether the start goes on.
func storeClaudeSession(mode string) bool {
	if mode == "die-first" {
		marker := os.Getenv("ACPMUX_FAKE_RECORD") + ".died"
		if _, err := os.Stat(marker); err != nil {
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				fail(err)
			}
			return false
		}
	}
	i := slices.Index(os.Args, "--session-id")
	if i < 0 || i+1 >= len(os.Args) {
		return true
	}
	root := os.Getenv("CLAUDE_CONFIG_DIR")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), ".claude")
	}
	cwd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	dir := filepath.Join(root, "projects", strings.ReplaceAll(cwd, "/", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, os.Args[i+1]+".jsonl"), []byte(`{"type":"summary"}`+"\n"), 0o644); err != nil {
		fail(err)
	}
	return true
}
