package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

func TestClaudeHookSignal(t *testing.T) {
	for _, tt := range []struct {
		event, kind, message string
		want                 TurnSignal
		ok                   bool
	}{
		{"UserPromptSubmit", "", "", SignalWorking, true},
		{"PreToolUse", "", "", SignalWorking, true},
		{"PostToolUse", "", "", SignalWorking, true},
		{"Stop", "", "", SignalDone, true},
		{"SessionStart", "", "", SignalReady, true},
		{"SessionEnd", "", "", "", false},
		{"Notification", "permission_prompt", "", SignalAsking, true},
		{"Notification", "elicitation_dialog", "", SignalAsking, true},
		{"Notification", "idle_prompt", "", SignalReady, true},
		{"Notification", "auth_success", "", "", false},
		{"Notification", "", "Claude needs your permission to use Bash", SignalAsking, true},
		{"Notification", "", "Claude is waiting for your input", SignalReady, true},
		{"Notification", "", "something else", "", false},
		{"SubagentStop", "", "", "", false},
		{"", "", "", "", false},
	} {
		got, ok := ClaudeHookSignal(tt.event, tt.kind, tt.message)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ClaudeHookSignal(%q, %q, %q) = %q, %v; want %q, %v", tt.event, tt.kind, tt.message, got, ok, tt.want, tt.ok)
		}
	}
	if s, ok := CodexNotifySignal("agent-turn-complete"); s != SignalDone || !ok {
		t.Errorf("codex turn end: %q %v", s, ok)
	}
	if _, ok := CodexNotifySignal("something-new"); ok {
		t.Error("an unknown Codex notification changed the status")
	}
}

// TestLaunchCarriesHooks checks what a Claude Code and a Codex start get
// when the mux knows its own path: Claude Code's --settings with a command
// hook per event that runs `SELF hook EVENT` (quoted for sh, whose -c Claude
// Code runs it with), Codex's notify program, and ACPMUX_HOME; and that
// other harnesses, and a mux without its path, get none of it.
func TestLaunchCarriesHooks(t *testing.T) {
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{
		"claude": {Command: "/bin/true"}, "codex": {Command: "/bin/true"}, "gemini": {Command: "/bin/true"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	self := "/opt/my tools/acpmux-tui"
	meta := &sessions.Meta{ID: "k3x9q2", Cwd: "/tmp", AdditionalDirectories: []string{"/srv"}}
	launch := func(name string, o LaunchOptions) Launch {
		t.Helper()
		spec, _ := table.Get(name)
		o.Getenv, o.NewSessionID = env(map[string]string{"PATH": "/bin"}), func() string { return "11111111-2222-3333-4444-555555555555" }
		l, err := spec.BuildLaunch(meta, o)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	on := LaunchOptions{Self: self, Home: "/home/me/.local/share/acpmux", Environ: []string{"ACPMUX_HOME=/elsewhere"}}

	l := launch("claude", on)
	i := slices.Index(l.Argv, "--settings")
	if i < 0 || i+1 >= len(l.Argv) {
		t.Fatalf("claude argv %q has no --settings", l.Argv)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(l.Argv[i+1]), &settings); err != nil {
		t.Fatalf("--settings is not JSON: %v", err)
	}
	for _, ev := range ClaudeHookEvents {
		m := settings.Hooks[ev]
		if len(m) != 1 || len(m[0].Hooks) != 1 || m[0].Hooks[0].Type != "command" {
			t.Fatalf("%s: hooks %+v", ev, m)
		}
		// The command as sh reads it: the path in one word, then the event.
		out, err := exec.Command("sh", "-c", "for a in "+m[0].Hooks[0].Command+`; do printf '%s\n' "$a"; done`).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !slices.Equal(got, []string{self, "hook", ev}) {
			t.Errorf("%s: sh reads the command as %q", ev, got)
		}
	}
	if got := Shown(l.Argv); !slices.Contains(got, "{acpmux hooks}") || slices.Contains(got, l.Argv[i+1]) || !slices.Equal(got[i+2:], l.Argv[i+2:]) {
		t.Errorf("shown as %q", got)
	}
	if len(settings.Hooks) != len(ClaudeHookEvents) {
		t.Errorf("hooks for %d events, want %d", len(settings.Hooks), len(ClaudeHookEvents))
	}
	if !slices.Contains(l.Env, "ACPMUX_HOME=/home/me/.local/share/acpmux") || slices.Contains(l.Env, "ACPMUX_HOME=/elsewhere") {
		t.Errorf("claude env %q: want this home only", l.Env)
	}
	if !slices.Contains(l.Argv, "--add-dir") {
		t.Errorf("claude argv %q lost its folders", l.Argv)
	}

	l = launch("codex", on)
	i = slices.Index(l.Argv, "-c")
	if i < 0 || i+1 >= len(l.Argv) {
		t.Fatalf("codex argv %q has no -c", l.Argv)
	}
	for _, kv := range l.Env {
		if strings.HasPrefix(kv, EnvCodexNotify+"=") {
			t.Errorf("codex with no notify of its own got %s", kv)
		}
	}
	var notify struct{ Notify []string }
	if _, err := toml.Decode(l.Argv[i+1], &notify); err != nil {
		t.Fatalf("codex -c %q is not TOML: %v", l.Argv[i+1], err)
	}
	if !slices.Equal(notify.Notify, []string{self, "hook", CodexHookEvent}) {
		t.Errorf("codex notify = %q", notify.Notify)
	}

	for _, tt := range []struct {
		name string
		o    LaunchOptions
	}{{"gemini", on}, {"claude", LaunchOptions{}}, {"codex", LaunchOptions{Home: "/h"}}} {
		l := launch(tt.name, tt.o)
		if slices.Contains(l.Argv, "--settings") || slices.Contains(l.Argv, "-c") {
			t.Errorf("%s with %+v: argv %q has hooks", tt.name, tt.o, l.Argv)
		}
	}
}

// TestCodexNotifyOfTheUser: `-c notify=` replaces the notify program of
// the user's Codex config; the hook is told of it to run it in turn.
func TestCodexNotifyOfTheUser(t *testing.T) {
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{"codex": {Command: "/bin/true"}}})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := table.Get("codex")
	codexHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte("model = \"o3\"\nnotify = [\"notify-send\", \"--app-name=codex\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := LaunchOptions{Self: "/bin/acpmux-tui", Home: "/h", Getenv: env(map[string]string{"PATH": "/bin"}),
		Environ: []string{"CODEX_HOME=" + codexHome, EnvCodexNotify + "=[\"stale\"]"}}
	l, err := spec.BuildLaunch(&sessions.Meta{ID: "k3x9q2", Cwd: "/tmp"}, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range l.Env {
		if strings.HasPrefix(kv, EnvCodexNotify+"=") {
			got = append(got, kv)
		}
	}
	if want := EnvCodexNotify + `=["notify-send","--app-name=codex"]`; len(got) != 1 || got[0] != want {
		t.Errorf("env %q, want only %s", got, want)
	}
}
