package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestBuildLaunchPerKind(t *testing.T) {
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{
		"claude":     {Command: "/bin/true"},
		"codex":      {Command: "/bin/true", Args: []string{"--full-auto"}},
		"gemini":     {Command: "/bin/true"},
		"gemini-acp": {Command: "/bin/true"},
		"opencode":   {Command: "/bin/true"},
		"claude-acp": {Command: "/bin/true"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"/src/lib", "/home/me/my notes"}
	getenv := env(map[string]string{"SHELL": "/bin/sh", "PATH": "/usr/bin:/bin"})
	newID := func() string { return "11111111-2222-3333-4444-555555555555" }
	tests := []struct {
		harness, session string
		dirs             []string
		argv             []string
		newSession       string
		envDirs          string
		via              string
	}{
		{"claude", "", dirs, []string{"/bin/true", "--session-id", newID(), "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, newID(), "", ViaArgv},
		{"claude", "abc", dirs, []string{"/bin/true", "--resume", "abc", "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, "", "", ViaArgv},
		{"claude", "abc", nil, []string{"/bin/true", "--resume", "abc"}, "", "", ViaNone},
		{"codex", "", dirs, []string{"/bin/true", "--full-auto", "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, "", "", ViaArgv},
		{"gemini", "", dirs, []string{"/bin/true", "--include-directories", "/src/lib", "--include-directories", "/home/me/my notes"}, "", "", ViaArgv},
		{"shell", "", dirs, []string{"/bin/sh"}, "", "/src/lib:/home/me/my notes", ViaEnv},
		{"gemini-acp", "", dirs, []string{"/bin/true", "--acp", "--include-directories", "/src/lib", "--include-directories", "/home/me/my notes"}, "", "", ViaFlag},
		{"opencode", "", dirs, []string{"/bin/true", "acp"}, "", "", ViaNote},
		{"claude-acp", "", dirs, []string{"/bin/true"}, "", "", ViaACP},
	}
	for _, tt := range tests {
		t.Run(tt.harness+"/"+tt.session, func(t *testing.T) {
			spec, ok := table.Get(tt.harness)
			if !ok {
				t.Fatalf("no harness %s", tt.harness)
			}
			m := &sessions.Meta{ID: "k3x9q2", Cwd: "/home/me/app", AdditionalDirectories: tt.dirs, AgentSessionID: tt.session}
			l, err := spec.BuildLaunch(m, LaunchOptions{Getenv: getenv, Environ: []string{"HOME=/home/me", EnvAdditionalDirectories + "=/inherited"}, NewSessionID: newID})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.Argv, tt.argv) {
				t.Fatalf("argv\n got %q\nwant %q", l.Argv, tt.argv)
			}
			if l.NewSessionID != tt.newSession || l.Dir != m.Cwd {
				t.Fatalf("new session %q dir %q", l.NewSessionID, l.Dir)
			}
			var got []string
			for _, kv := range l.Env {
				if v, ok := strings.CutPrefix(kv, EnvAdditionalDirectories+"="); ok {
					got = append(got, v)
				}
			}
			if tt.envDirs == "" && len(got) != 0 || tt.envDirs != "" && !slices.Equal(got, []string{tt.envDirs}) {
				t.Fatalf("%s = %q, want %q", EnvAdditionalDirectories, got, tt.envDirs)
			}
			if !slices.Contains(l.Env, "ACPMUX_CHAT_ID=k3x9q2") || !slices.Contains(l.Env, "HOME=/home/me") {
				t.Fatalf("env %q", l.Env)
			}
			if via := spec.FoldersVia(len(tt.dirs), nil); via != tt.via {
				t.Fatalf("foldersVia %q, want %q", via, tt.via)
			}
		})
	}
}

func TestConfigOverridesAndAdditions(t *testing.T) {
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{
		"claude": {Args: []string{"--model", "opus"}, Env: map[string]string{"X": "1"}},
		"mine":   {Command: "my-agent", Kind: "gemini"},
		"myacp":  {Command: "my-acp", Transport: "acp"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	claude, _ := table.Get("claude")
	if claude.Command != "claude" || !slices.Equal(claude.Args, []string{"--model", "opus"}) || claude.Env["X"] != "1" || claude.FolderFlag != "--add-dir" {
		t.Fatalf("claude override %+v", claude)
	}
	mine, _ := table.Get("mine")
	if mine.FolderFlag != "--include-directories" || mine.Transport != TransportPty {
		t.Fatalf("mine %+v", mine)
	}
	myacp, _ := table.Get("myacp")
	if myacp.Kind != KindACP || myacp.FoldersVia(1, nil) != ViaNote {
		t.Fatalf("myacp %+v", myacp)
	}
	names := table.Names()
	if names[len(names)-2] != "mine" || names[len(names)-1] != "myacp" {
		t.Fatalf("added harnesses not last in order: %q", names)
	}
	if _, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{"nocmd": {Kind: "plain"}}}); err == nil {
		t.Fatal("a new harness without a command was accepted")
	}
	if _, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{"x": {Command: "x", Kind: "acp", Transport: "pty"}}}); err == nil {
		t.Fatal("kind acp over a pty was accepted")
	}
}

func TestDefaultHarness(t *testing.T) {
	table, _ := NewTable(&config.Config{})
	if got := table.Default(&config.Config{}, env(map[string]string{"PATH": "/nonexistent"})); got != "shell" {
		t.Fatalf("default with no agents installed = %q, want shell", got)
	}
	if got := table.Default(&config.Config{DefaultHarness: "codex"}, env(nil)); got != "codex" {
		t.Fatalf("configured default = %q", got)
	}
}
