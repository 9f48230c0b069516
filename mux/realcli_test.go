package mux

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file starts the real terminal harnesses (Claude Code, Codex CLI,
// Gemini CLI, installed at pinned versions in .peers/ by scripts/test)
// through the real mux, as chats with two folders, offline, each with a
// throwaway HOME: each must take our flags and reach its first screen.

// refusedFlag is text a CLI prints when it refuses its command line: if any
// of it is on the screen, a flag of ours was not taken.
var refusedFlag = []string{
	"unknown option", "Unknown argument", "unexpected argument", "Error adding directories",
	"invalid value", "Unknown arguments", "error: unrecognized", "Error loading configuration",
}

// throwawayHome is an environment that points a harness at a HOME of the
// test's own, so nothing of the machine's configuration or credentials is
// read and nothing is left there.
func throwawayHome(t *testing.T) map[string]string {
	home := t.TempDir()
	// Codex refuses a CODEX_HOME that does not exist.
	if err := os.Mkdir(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"),
		"CODEX_HOME": filepath.Join(home, ".codex"), "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"),
		"GEMINI_CLI_HOME": home,
		// Claude Code run as root (CI containers) wants to know it is
		// in a sandbox.
		"IS_SANDBOX": "1",
		// A chat's pty is interactive; under CI=true Gemini CLI would
		// not draw its screen but ask for an API key and exit, as if
		// run in a pipeline. The test may run under CI=true.
		"CI": "false",
	}
}

func TestRealTerminalHarnessesStartWithFolders(t *testing.T) {
	type firstScreen struct {
		harness, bin string
		// screen is what its first screen shows; it must appear.
		screen []string
		// exitsOffline is set for Claude Code, which exits 1 when it
		// cannot reach its service: it is respawned, so "still
		// running" is not asked of it.
		exitsOffline bool
		// folderArgs are the folder arguments its argv must carry.
		folderArgs func(dirs []string) []string
		// codexFiles are written to its CODEX_HOME.
		codexFiles map[string]string
		// sandboxed starts it in its bound (Landlock, through the
		// wrapper): it must reach the same screen.
		sandboxed bool
	}
	codexFolders := func(dirs []string) []string {
		return append([]string{"--sandbox", "workspace-write"}, wantFolderArgs("--add-dir", dirs)...)
	}
	cases := []firstScreen{
		{harness: "claude", bin: "@anthropic-ai/claude-agent-sdk-linux-x64/claude",
			screen: []string{"Welcome to Claude Code"}, exitsOffline: true,
			folderArgs: func(dirs []string) []string { return wantFolderArgs("--add-dir", dirs) }},
		{harness: "codex", bin: ".bin/codex",
			screen: []string{"Welcome to Codex", "Sign in with ChatGPT"}, folderArgs: codexFolders},
		// Signed in (a key that is never used offline), Codex goes past
		// sign-in to its prompt, and checks --add-dir only when its
		// session is configured, after its calls out have failed (some
		// seconds offline): the case where, in a read-only sandbox, it
		// prints "Error adding directories" and exits 1. The session's
		// line under the prompt ("MODEL default · FOLDER") shows it is
		// past that point.
		{harness: "codex", bin: ".bin/codex", codexFiles: map[string]string{"auth.json": codexFakeAuth},
			screen: codexSessionScreen, folderArgs: codexFolders},
		{harness: "gemini", bin: ".bin/gemini",
			screen:     []string{"Do you trust the files in this folder?"},
			folderArgs: func(dirs []string) []string { return wantFolderArgs("--include-directories", dirs) }},
	}
	// Each again, sandboxed: its folders and its own state writable, the
	// rest of the disk read-only, and it still starts.
	for _, tc := range slices.Clone(cases) {
		if tc.codexFiles == nil {
			tc.sandboxed = true
			cases = append(cases, tc)
		}
	}
	for _, tc := range cases {
		name := tc.harness
		if tc.codexFiles != nil {
			name += "-signed-in"
		}
		if tc.sandboxed {
			name += "-sandboxed"
		}
		t.Run(name, func(t *testing.T) {
			bin := peerFile(t, tc.bin)
			env := throwawayHome(t)
			writeFiles(t, env["CODEX_HOME"], tc.codexFiles)
			r := newRig(t, "echo", func(cfg *config.Config, o *Options) {
				cfg.Harness = map[string]config.HarnessConfig{tc.harness: {Command: bin, Env: env}}
				// Hooks and the notify program are part of our flags:
				// Self is a real program, so they run harmlessly.
				o.Self, o.Home = "/bin/true", t.TempDir()
				o.Wrapper = os.Args[0] // TestMain runs the sandbox's wrapper
			})
			dirs := r.folders(2)
			if tc.sandboxed {
				requireLandlock(t)
			}
			m, err := r.store.Create(sessions.NewChat{Harness: tc.harness, AdditionalDirectories: dirs, Sandbox: &tc.sandboxed})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.mux.Start(m.ID, 120, 40); err != nil {
				t.Fatal(err)
			}
			argv := r.mux.State(m.ID).Argv
			if want := tc.folderArgs(dirs); !containsRun(argv, want) {
				t.Fatalf("%s argv %q does not carry the folders as %q", tc.harness, argv, want)
			}
			for _, text := range tc.screen {
				r.waitRealScreen(m.ID, tc.harness, text)
			}
			if tc.harness == "gemini" {
				// Its trust dialog waits for an answer: asking, once quiet.
				waitFor(t, "gemini's trust dialog to read as asking", func() bool { return r.mux.State(m.ID).Status == proto.StatusAsking })
			}
			r.refuseRefusals(m.ID, tc.harness)
			if bound := r.mux.State(m.ID).Bound; tc.sandboxed != (bound != "") {
				t.Fatalf("%s sandboxed %v, bound %q", tc.harness, tc.sandboxed, bound)
			}
			if tc.harness == "claude" {
				claudeOfflineErrorOnScreen(t, r, m.ID)
				return
			}
			st := r.mux.State(m.ID)
			if !st.Status.Live() || st.Restarts != 0 {
				t.Fatalf("%s at its first screen: status %s, %d restarts (%s, last error %q): it must still run its first process\n%s",
					tc.harness, st.Status, st.Restarts, st.Reason, st.LastError, strings.Join(r.mux.PlainLines(m.ID), "\n"))
			}
			if tc.harness == "codex" && st.Sandbox != "workspace-write (acpmux-tui, for the folders)" {
				t.Fatalf("codex sandbox %q", st.Sandbox)
			}
		})
	}
}

// TestRealCodexReadOnlyStartsWithFoldersAsNote: the real Codex in a
// read-only sandbox of the user's (its config.toml) is not given --add-dir,
// which it would refuse; it takes the note in its developer instructions and,
// signed in, reaches its prompt.
func TestRealCodexReadOnlyStartsWithFoldersAsNote(t *testing.T) {
	bin := peerFile(t, ".bin/codex")
	env := throwawayHome(t)
	writeFiles(t, env["CODEX_HOME"], map[string]string{"config.toml": "sandbox_mode = \"read-only\"\n", "auth.json": codexFakeAuth})
	r := newRig(t, "echo", func(cfg *config.Config, o *Options) {
		cfg.Harness = map[string]config.HarnessConfig{"codex": {Command: bin, Env: env}}
	})
	dirs := r.folders(2)
	m := r.create("codex", dirs)
	if err := r.mux.Start(m.ID, 120, 40); err != nil {
		t.Fatal(err)
	}
	st := r.mux.State(m.ID)
	if slices.Contains(st.Argv, "--add-dir") || !st.FoldersReadOnly || st.Sandbox != "read-only (config.toml)" {
		t.Fatalf("argv %q sandbox %q read-only %v: want the folders as a note in read-only", st.Argv, st.Sandbox, st.FoldersReadOnly)
	}
	for _, text := range codexSessionScreen {
		r.waitRealScreen(m.ID, "codex", text)
	}
	r.refuseRefusals(m.ID, "codex")
	if st := r.mux.State(m.ID); !st.Status.Live() || st.Restarts != 0 {
		t.Fatalf("codex at its first screen: status %s, %d restarts (%s): it must still run", st.Status, st.Restarts, st.Reason)
	}
	if via := r.loadMeta(m.ID).FoldersVia; via != harness.ViaNote {
		t.Fatalf("foldersVia %q, want note", via)
	}
}

// codexFakeAuth signs Codex in with an API key that is never sent: the
// test runs offline, and Codex draws its prompt without calling out.
const codexFakeAuth = `{"OPENAI_API_KEY":"sk-acpmux-test-not-a-key"}`

// codexSessionScreen is what a signed-in Codex shows once its session is
// configured: the prompt, and the session's line under it.
var codexSessionScreen = []string{"Ask Codex to do anything", "default · "}

// writeFiles writes files (name → body) into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// claudeOfflineErrorOnScreen asks for Claude Code's offline error, the
// lines it prints after its welcome before it exits 1; once it has exited,
// the line kept as why (LastOutput, which the summary quotes) is one of
// those, not the link it prints last ("Check supported countries at",
// then https://anthropic.com/supported-countries).
func claudeOfflineErrorOnScreen(t *testing.T, r *rig, id string) {
	t.Helper()
	r.waitRealScreen(id, "claude", "Unable to connect to Anthropic services")
	waitFor(t, "claude's exit to keep the line that says why", func() bool { return r.mux.State(id).LastOutput != "" })
	said := r.mux.State(id).LastOutput
	if !strings.Contains(said, "Unable to connect") && !strings.HasPrefix(said, "Failed to connect to api.anthropic.com") || strings.Contains(said, "supported-countries") {
		t.Fatalf("claude exited offline; the line kept as why is %q, want its connection error; the screen and scrollback:\n%s",
			said, strings.Join(r.mux.History(id, 0), "\n"))
	}
}

// waitRealScreen waits for text on a real harness's screen, failing at
// once, with the screen, if the harness refused a flag of ours.
func (r *rig) waitRealScreen(id, name, text string) {
	r.t.Helper()
	wait.UntilShow(r.t, fmt.Sprintf("%s's first screen: %q (a real CLI, offline, with two folders)", name, text), func() bool {
		// The scrollback too: Claude Code exits offline, and a respawn
		// turns the page on what it printed.
		lines := r.mux.History(id, 0)
		r.refuseRefusalsIn(lines, name)
		found := slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, text) })
		if st := r.mux.State(id); !found && st.Status == proto.StatusFailed {
			r.t.Fatalf("%s failed (%s) before %q was on its screen; argv %q, screen and scrollback:\n%s", name, st.LastError, text, st.Argv, strings.Join(lines, "\n"))
		}
		return found
	}, func() string {
		st := r.mux.State(id)
		return fmt.Sprintf("status %s, %d restarts, last error %q, argv %q, screen and scrollback:\n%s", st.Status, st.Restarts, st.LastError, st.Argv, strings.Join(r.mux.History(id, 0), "\n"))
	})
}

// refuseRefusals fails when the screen or its scrollback shows a refused
// flag.
func (r *rig) refuseRefusals(id, name string) {
	r.t.Helper()
	r.refuseRefusalsIn(r.mux.History(id, 0), name)
}

func (r *rig) refuseRefusalsIn(lines []string, name string) {
	r.t.Helper()
	for _, l := range lines {
		for _, bad := range refusedFlag {
			if strings.Contains(l, bad) {
				r.t.Fatalf("%s refused its command line (%q):\n%s\nargv %q", name, bad, strings.Join(lines, "\n"), r.mux.State(r.onlyChat()).Argv)
			}
		}
	}
}

// onlyChat is the id of the rig's one chat, for messages.
func (r *rig) onlyChat() string {
	list, _ := r.store.List()
	for _, e := range list {
		return e.ID
	}
	return ""
}

// containsRun reports whether want appears in argv as a contiguous run.
func containsRun(argv, want []string) bool {
	for i := 0; i+len(want) <= len(argv); i++ {
		if slices.Equal(argv[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// TestRealClaudeStartsWithFiles: the real Claude Code, offline, takes a
// chat's single files as --append-system-prompt (beside --add-dir) and
// draws its first screen: no flag of ours is refused.
func TestRealClaudeStartsWithFiles(t *testing.T) {
	bin := peerFile(t, "@anthropic-ai/claude-agent-sdk-linux-x64/claude")
	env := throwawayHome(t)
	r := newRig(t, "echo", func(cfg *config.Config, o *Options) {
		cfg.Harness = map[string]config.HarnessConfig{"claude": {Command: bin, Env: env}}
		o.Self, o.Home = "/bin/true", t.TempDir()
	})
	dirs := r.folders(1)
	files := sharedFiles(t, "api spec.md", "notes.txt")
	m, err := r.store.Create(sessions.NewChat{Harness: "claude", AdditionalDirectories: dirs, AdditionalFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(m.ID, 120, 40); err != nil {
		t.Fatal(err)
	}
	argv := r.mux.State(m.ID).Argv
	if !containsRun(argv, []string{harness.FlagAppendSystemPrompt, harness.FilesNote(files)}) || !containsRun(argv, wantFolderArgs("--add-dir", dirs)) {
		t.Fatalf("claude argv %q does not carry the files note and the folder", argv)
	}
	r.waitRealScreen(m.ID, "claude", "Welcome to Claude Code")
	r.refuseRefusals(m.ID, "claude")
	claudeOfflineErrorOnScreen(t, r, m.ID)
	if via := r.loadMeta(m.ID).FilesVia; via != harness.ViaFlag {
		t.Fatalf("files_via %q, want flag", via)
	}
}

// TestRealCodexStartsWithFiles: the real Codex, signed in and offline,
// takes a chat's single files as a note in its developer instructions and
// reaches its prompt, its first process still running.
func TestRealCodexStartsWithFiles(t *testing.T) {
	bin := peerFile(t, ".bin/codex")
	env := throwawayHome(t)
	writeFiles(t, env["CODEX_HOME"], map[string]string{"auth.json": codexFakeAuth})
	r := newRig(t, "echo", func(cfg *config.Config, o *Options) {
		cfg.Harness = map[string]config.HarnessConfig{"codex": {Command: bin, Env: env}}
	})
	files := sharedFiles(t, "api spec.md")
	m, err := r.store.Create(sessions.NewChat{Harness: "codex", AdditionalFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(m.ID, 120, 40); err != nil {
		t.Fatal(err)
	}
	st := r.mux.State(m.ID)
	if !slices.ContainsFunc(st.Argv, func(a string) bool {
		return strings.HasPrefix(a, "developer_instructions=") && strings.Contains(a, files[0])
	}) {
		t.Fatalf("codex argv %q does not carry the files note", st.Argv)
	}
	for _, text := range codexSessionScreen {
		r.waitRealScreen(m.ID, "codex", text)
	}
	r.refuseRefusals(m.ID, "codex")
	if st := r.mux.State(m.ID); !st.Status.Live() || st.Restarts != 0 {
		t.Fatalf("codex at its first screen: status %s, %d restarts (%s): it must still run", st.Status, st.Restarts, st.Reason)
	}
}

// requireLandlock skips where the kernel has no Landlock a bound can use.
func requireLandlock(t *testing.T) {
	t.Helper()
	if abi, err := sandbox.ABI(); err != nil || abi < sandbox.MinABI {
		t.Skipf("a sandboxed chat needs Landlock ABI %d or later: %d, %v", sandbox.MinABI, abi, err)
	}
}
