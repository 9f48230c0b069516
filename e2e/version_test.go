package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// buildSetting returns a setting the go command recorded in the built
// binary (`go version -m`), or "" when it recorded none.
func buildSetting(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "build" {
			if k, v, ok := strings.Cut(f[1], "="); ok && k == key {
				return v
			}
		}
	}
	return ""
}

func TestVersionJSON(t *testing.T) {
	c := newCLI(t)
	out := c.ok("version", "--json")
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("version --json is not one JSON object: %v\n%s", err, out)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"commit", "go", "modified", "version"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	var v versionJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Version == "" || !strings.HasPrefix(v.Go, "go1.") {
		t.Errorf("version %q, go %q", v.Version, v.Go)
	}
	// The commit is the one the go command stamped into the binary, or
	// empty when it stamped none (-buildvcs=false, no git).
	if want := buildSetting(t, "vcs.revision"); v.Commit != want {
		t.Errorf("commit %q, want %q (go version -m)", v.Commit, want)
	}
	if v.Commit != "" && !regexp.MustCompile(`^[0-9a-f]{40,64}$`).MatchString(v.Commit) {
		t.Errorf("commit %q is not a hash", v.Commit)
	}
	if want := buildSetting(t, "vcs.modified") == "true"; v.Modified != want {
		t.Errorf("modified %v, want %v", v.Modified, want)
	}

	// The text form names the same version and Go release.
	text := c.ok("version")
	if !strings.HasPrefix(text, "acpmux-tui "+v.Version+" (") || !strings.Contains(text, v.Go) {
		t.Errorf("version = %q, want acpmux-tui %s (… %s)", text, v.Version, v.Go)
	}
	if v.Commit != "" && !strings.Contains(text, "commit "+v.Commit[:12]) {
		t.Errorf("version = %q lacks the commit", text)
	}
}

func TestVersionFlag(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if got, want := c.ok(args...), c.ok("version"); got != want {
			t.Errorf("%q printed %q, version printed %q", args, got, want)
		}
	}
	if got, want := c.ok("--version", "--json"), c.ok("version", "--json"); got != want {
		t.Errorf("--version --json printed %q, version --json printed %q", got, want)
	}
	// Nothing is created: the flag prints and exits.
	if _, err := os.Stat(c.home); !os.IsNotExist(err) {
		t.Errorf("--version touched the agent home: %v", err)
	}
	for _, args := range [][]string{{"version", "extra"}, {"--version", "--bogus"}, {"harnesses", "extra"}} {
		if r := c.run(args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, want 2 and nothing", args, r.code, r.stdout)
		}
	}
}

func TestHarnessesJSON(t *testing.T) {
	c := newCLI(t)
	// A claude on PATH, and a harness added by the config.
	claude := filepath.Join(c.root, "bin", "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.config, []byte("[harness.mine]\ncommand = \"/bin/cat\"\nargs = [\"-u\"]\nkind = \"gemini\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := c.ok("harnesses", "--json")
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("harnesses --json is not a JSON array: %v\n%s", err, out)
	}
	for _, row := range raw {
		var keys []string
		for k := range row {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"args", "command", "foldersVia", "installed", "kind", "name", "transport"}; !slices.Equal(keys, want) {
			t.Errorf("%v: keys %v, want %v", row["name"], keys, want)
		}
		if _, ok := row["args"].([]any); !ok {
			t.Errorf("%v: args %#v, want an array", row["name"], row["args"])
		}
	}
	var rows []harnessJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	type row struct{ transport, kind, command, args, installed, via string }
	want := map[string]row{
		"claude":     {"pty", "claude", "claude", "", claude, "argv"},
		"codex":      {"pty", "codex", "codex", "", "", "argv"},
		"gemini":     {"pty", "gemini", "gemini", "", "", "argv"},
		"shell":      {"pty", "plain", "$SHELL", "", "/bin/sh", "env"},
		"claude-acp": {"acp", "acp", "claude-agent-acp", "", "", "acp"},
		"codex-acp":  {"acp", "acp", "codex-acp", "", "", "note"},
		"gemini-acp": {"acp", "acp", "gemini", "--acp", "", "flag"},
		"opencode":   {"acp", "acp", "opencode", "acp", "", "note"},
		"pi":         {"acp", "acp", "pi-acp", "", "", "note"},
		"mine":       {"pty", "gemini", "/bin/cat", "-u", "/bin/cat", "argv"},
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
		got := row{r.Transport, r.Kind, r.Command, strings.Join(r.Args, " "), r.Installed, r.FoldersVia}
		if got != want[r.Name] {
			t.Errorf("%s: %+v, want %+v", r.Name, got, want[r.Name])
		}
	}
	// The built-ins in table order, then the added harness.
	if wantNames := []string{"claude", "codex", "gemini", "shell", "claude-acp", "codex-acp", "gemini-acp", "opencode", "pi", "mine"}; !slices.Equal(names, wantNames) {
		t.Errorf("names %v, want %v", names, wantNames)
	}

	// The text table says the same.
	text := c.ok("harnesses")
	for _, line := range []string{"claude  ", claude, "mine  ", "/bin/cat -u"} {
		if !strings.Contains(text, line) {
			t.Errorf("harnesses lacks %q:\n%s", line, text)
		}
	}
}
