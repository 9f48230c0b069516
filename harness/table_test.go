package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	claudeHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(claudeHome, "projects", "-home-me-app"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"abc", "parent"} {
		if err := os.WriteFile(filepath.Join(claudeHome, "projects", "-home-me-app", id+".jsonl"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Codex's and Gemini CLI's stored sessions, where they keep them.
	codexHome, geminiHome := t.TempDir(), t.TempDir()
	writeCodexRollout(t, codexHome, "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90", "/home/me/app", time.Now())
	writeCodexRollout(t, codexHome, "1b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a91", "/home/me/app", time.Now())
	gemChats := filepath.Join(geminiHome, ".gemini", "tmp", "app", "chats")
	if err := os.MkdirAll(gemChats, 0o755); err != nil {
		t.Fatal(err)
	}
	for id, body := range map[string]string{
		"g1234567-aaaa":  `{"sessionId":"g1234567-aaaa","projectHash":"x"}` + "\n" + `{"id":"1","type":"user","content":"hi"}` + "\n",
		"g7654321-empty": `{"sessionId":"g7654321-empty","projectHash":"x"}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(gemChats, "session-2026-01-01T10-00-"+id[:8]+".jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const codexSid, codexParent = "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90", "1b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a91"
	const codexGone = "2b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a92"
	tests := []struct {
		harness, session string
		forkFrom         string
		dirs             []string
		argv             []string
		newSession       string
		envDirs          string
		via              string
	}{
		{"claude", "", "", dirs, []string{"/bin/true", "--session-id", newID(), "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, newID(), "", ViaArgv},
		{"claude", "abc", "", dirs, []string{"/bin/true", "--resume", "abc", "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, "", "", ViaArgv},
		{"claude", "abc", "", nil, []string{"/bin/true", "--resume", "abc"}, "", "", ViaNone},
		// A session Claude Code never wrote is started again, not resumed.
		{"claude", "gone", "", nil, []string{"/bin/true", "--session-id", "gone"}, "", "", ViaNone},
		// A fork's first start branches the parent's conversation, and so
		// does a start after one that died before Claude Code wrote the
		// fork's session; once it has, the fork resumes its own.
		{"claude", "", "parent", dirs, []string{"/bin/true", "--resume", "parent", "--fork-session", "--session-id", newID(), "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, newID(), "", ViaArgv},
		{"claude", "gone", "parent", nil, []string{"/bin/true", "--resume", "parent", "--fork-session", "--session-id", "gone"}, "", "", ViaNone},
		{"claude", "abc", "parent", nil, []string{"/bin/true", "--resume", "abc"}, "", "", ViaNone},
		// A parent whose session Claude Code never wrote has nothing to
		// branch: the fork starts fresh.
		{"claude", "", "unwritten", nil, []string{"/bin/true", "--session-id", newID()}, newID(), "", ViaNone},
		{"codex", "", "", dirs, []string{"/bin/true", "--full-auto", "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, "", "", ViaArgv},
		// Codex: the first start is plain; once the chat has learned the
		// session Codex made, `codex resume ID` (a subcommand, so first)
		// with the args and folders; a fork's first start `codex fork
		// PARENT`. A session Codex no longer has is not resumed.
		{"codex", codexSid, "", dirs, []string{"/bin/true", "resume", codexSid, "--full-auto", "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, "", "", ViaArgv},
		{"codex", "", codexParent, dirs, []string{"/bin/true", "fork", codexParent, "--full-auto", "--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}, "", "", ViaArgv},
		{"codex", codexSid, codexParent, nil, []string{"/bin/true", "resume", codexSid, "--full-auto"}, "", "", ViaNone},
		{"codex", codexGone, "", nil, []string{"/bin/true", "--full-auto"}, "", "", ViaNone},
		{"codex", "", codexGone, nil, []string{"/bin/true", "--full-auto"}, "", "", ViaNone},
		// Gemini CLI: as Claude Code, --session-id first, --resume once it
		// has stored a message in the session.
		{"gemini", "", "", dirs, []string{"/bin/true", "--session-id", newID(), "--include-directories", "/src/lib", "--include-directories", "/home/me/my notes"}, newID(), "", ViaArgv},
		{"gemini", "g1234567-aaaa", "", nil, []string{"/bin/true", "--resume", "g1234567-aaaa"}, "", "", ViaNone},
		{"gemini", "g7654321-empty", "", nil, []string{"/bin/true", "--session-id", "g7654321-empty"}, "", "", ViaNone},
		{"gemini", "gone", "", nil, []string{"/bin/true", "--session-id", "gone"}, "", "", ViaNone},
		{"shell", "", "", dirs, []string{"/bin/sh"}, "", "/src/lib:/home/me/my notes", ViaEnv},
		{"gemini-acp", "", "", dirs, []string{"/bin/true", "--acp", "--include-directories", "/src/lib", "--include-directories", "/home/me/my notes"}, "", "", ViaFlag},
		{"opencode", "", "", dirs, []string{"/bin/true", "acp"}, "", "", ViaNote},
		{"claude-acp", "", "", dirs, []string{"/bin/true"}, "", "", ViaACP},
	}
	for _, tt := range tests {
		t.Run(tt.harness+"/"+tt.session+"/"+tt.forkFrom, func(t *testing.T) {
			spec, ok := table.Get(tt.harness)
			if !ok {
				t.Fatalf("no harness %s", tt.harness)
			}
			m := &sessions.Meta{ID: "k3x9q2", Cwd: "/home/me/app", AdditionalDirectories: tt.dirs, AgentSessionID: tt.session}
			l, err := spec.BuildLaunch(m, LaunchOptions{Getenv: getenv, Environ: []string{"HOME=/home/me", "CLAUDE_CONFIG_DIR=" + claudeHome, "CODEX_HOME=" + codexHome, "GEMINI_CLI_HOME=" + geminiHome, EnvAdditionalDirectories + "=/inherited"}, NewSessionID: newID, ForkFrom: tt.forkFrom})
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

func TestClaudeHasSession(t *testing.T) {
	home := t.TempDir()
	config := t.TempDir()
	write := func(root, project, name string) {
		t.Helper()
		dir := filepath.Join(root, "projects", project)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude"), "-src-app", "in-home.jsonl")
	write(config, "-src-lib", "in-config.jsonl")
	if err := os.Mkdir(filepath.Join(config, "projects", "-src-lib", "a-folder.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  []string
		id   string
		want bool
	}{
		{[]string{"HOME=" + home}, "in-home", true},
		{[]string{"HOME=" + home}, "in-config", false},
		{[]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config}, "in-config", true},
		{[]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config}, "in-home", false},
		// The last value wins, as in an exec'd environment built by appending.
		{[]string{"HOME=/nowhere", "HOME=" + home}, "in-home", true},
		{[]string{"HOME=" + home}, "", false},
		{[]string{"HOME=" + home}, "../-src-app/in-home", false},
		{[]string{"CLAUDE_CONFIG_DIR=" + config}, "a-folder", false},
		{nil, "in-home", false},
	}
	for _, tt := range tests {
		if got := ClaudeHasSession(tt.env, tt.id); got != tt.want {
			t.Errorf("ClaudeHasSession(%q, %q) = %v, want %v", tt.env, tt.id, got, tt.want)
		}
	}
}

func TestHarnessEnvironmentIsItsOwn(t *testing.T) {
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{
		"shell":    {Command: "/bin/true", Env: map[string]string{"MINE": "1"}},
		"opencode": {Command: "/bin/true"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	outer := []string{
		"PATH=/usr/bin", "HOME=/home/me", "LANG=C.UTF-8",
		"TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%3", "STY=1.pts", "TERM_PROGRAM=tmux",
		"TERM_PROGRAM_VERSION=3.4", "WEZTERM_PANE=2", "KITTY_WINDOW_ID=1", "ITERM_SESSION_ID=w0",
		"ZELLIJ=0", "ZELLIJ_SESSION_NAME=s", "TERM=screen-256color",
	}
	for _, name := range []string{"shell", "opencode"} {
		spec, _ := table.Get(name)
		l, err := spec.BuildLaunch(&sessions.Meta{ID: "k3x9q2", Cwd: "/tmp"}, LaunchOptions{Getenv: env(nil), Environ: outer})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, kv := range l.Env {
			k, v, _ := strings.Cut(kv, "=")
			if _, dup := got[k]; dup {
				t.Errorf("%s: %s set twice", name, k)
			}
			got[k] = v
		}
		for _, k := range []string{"TMUX", "TMUX_PANE", "STY", "TERM_PROGRAM_VERSION", "WEZTERM_PANE", "KITTY_WINDOW_ID", "ITERM_SESSION_ID", "ZELLIJ", "ZELLIJ_SESSION_NAME"} {
			if v, ok := got[k]; ok {
				t.Errorf("%s: the outer terminal's %s=%s reached the harness", name, k, v)
			}
		}
		for _, k := range []string{"PATH", "HOME", "LANG"} {
			if got[k] == "" {
				t.Errorf("%s: %s was dropped", name, k)
			}
		}
		if spec.Transport == TransportPty {
			if got["TERM_PROGRAM"] != TermProgram || got["TERM"] != "xterm-256color" || got["MINE"] != "1" {
				t.Errorf("%s: TERM_PROGRAM=%q TERM=%q MINE=%q", name, got["TERM_PROGRAM"], got["TERM"], got["MINE"])
			}
		} else if v, ok := got["TERM_PROGRAM"]; ok {
			t.Errorf("%s: an ACP harness got TERM_PROGRAM=%q", name, v)
		}
	}
}

// TestLoadRefusalsNameFileLineAndKey: every config the table refuses, as
// the CLI and the server load it, names the file, the line and the key.
func TestLoadRefusalsNameFileLineAndKey(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"default harness naming no harness", "scrollback = 10\ndefault_harness = \"aider\"\n", []string{"line 2", "default_harness", `"aider" names no harness`, "known: claude"}},
		{"default harness naming a harness the file adds", "default_harness = \"aider\"\n[harness.aidr]\ncommand = \"aider\"\n", []string{"line 1", "default_harness", `"aider" names no harness`, "aidr"}},
		{"new harness without a command", "[harness.claude]\nargs = [\"-v\"]\n\n[harness.mine]\nkind = \"plain\"\n", []string{"line 4", "harness.mine.command", "needs a command"}},
		{"kind acp over a pty", "[harness.mine]\ncommand = \"x\"\nkind = \"acp\"\ntransport = \"pty\"\n", []string{"line 3", "harness.mine.kind", "kind acp needs transport acp"}},
		{"unknown key", "[harness.claude]\ncommand = \"x\"\ncolour = \"red\"\n", []string{"line 3", `"harness.claude.colour"`}},
		{"bad transport", "[harness.claude]\ntransport = \"tcp\"\n", []string{"line 2", "harness.claude.transport"}},
		{"syntax error", "[harness.claude\ncommand = \"x\"\n", []string{"toml: line 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := Load(path)
			if err == nil {
				t.Fatalf("config accepted:\n%s", tt.text)
			}
			for _, w := range append([]string{"config " + path + ": "}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "line 0") {
				t.Errorf("error %q has no line", err)
			}
		})
	}
	// A default that names a harness the file adds, or a built-in, loads.
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("default_harness = \"aider\"\n[harness.aider]\ncommand = \"aider\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, table, err := Load(path); err != nil {
		t.Fatalf("a default naming an added harness refused: %v", err)
	} else if _, ok := table.Get("aider"); !ok {
		t.Fatal("the added harness is not in the table")
	}
}
