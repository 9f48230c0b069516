package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Launch is everything needed to exec a harness: never a shell string.
type Launch struct {
	// Path is the program, resolved on PATH.
	Path string
	// Argv is the full argument vector, Argv[0] the command as named.
	Argv []string
	// Env is the full environment.
	Env []string
	// Dir is the working directory: the chat's own folder.
	Dir string
	// NewSessionID is set when this start gave the harness a new session id
	// (Claude Code's or Gemini CLI's --session-id) that the caller must store.
	NewSessionID string
	// Sandbox is, for a Codex chat, the sandbox this start runs in and who
	// chose it, as CodexSandbox.String says; "" for other harnesses.
	Sandbox string
	// FoldersReadOnly is set when the chat's sandbox cannot take writable
	// roots: the folders went as a note, readable but not writable.
	FoldersReadOnly bool
	// Bound is, for a sandboxed chat, the Landlock bound its harness
	// starts in (nil for none), and BoundSummary that bound in one line.
	// Wrapper is the program that applies it and then execs Path with
	// Argv: acpmux-tui itself (sandbox.Wrap).
	Bound        *sandbox.Bound
	BoundSummary string
	Wrapper      string
}

// Exec is the program and argument vector to start: the harness itself,
// or for a sandboxed chat the wrapper that bounds it first.
func (l Launch) Exec() (string, []string, error) {
	if l.Bound == nil {
		return l.Path, l.Argv, nil
	}
	if l.Wrapper == "" {
		return "", nil, errors.New("sandbox: no wrapper to start the harness in its bound (acpmux-tui's own path is unknown)")
	}
	return sandbox.Wrap(l.Wrapper, *l.Bound, l.Path, l.Argv)
}

// SetBound bounds the launch with b: the harness is started
// through self, and its TMPDIR is the chat's scratch folder.
func (l *Launch) SetBound(b ChatBound, self string) {
	l.Bound, l.BoundSummary, l.Wrapper = &b.Bound, b.Summary, self
	l.Env = setEnv(l.Env, "TMPDIR", b.Scratch)
}

// TermProgram is what a pty harness finds in TERM_PROGRAM: the terminal it
// runs in is acpmux-tui's.
const TermProgram = "acpmux-tui"

// LaunchOptions are the per-start inputs to BuildLaunch.
type LaunchOptions struct {
	// Getenv reads the environment acpmux-tui runs in.
	Getenv func(string) string
	// Environ is the environment inherited by the harness.
	Environ []string
	// NewSessionID returns a fresh session id (a UUID) for a first start.
	NewSessionID func() string
	// ForkFrom is, for a fork of a Claude Code or Codex chat, the parent's
	// session id: until the fork's own session exists, a start branches
	// from the parent's conversation (Claude Code: --resume PARENT
	// --fork-session; Codex: codex fork PARENT).
	ForkFrom string
	// Self is acpmux-tui's own absolute path and Home its agent home: when
	// both are set, a Claude Code chat gets hooks and a Codex chat a notify
	// program that run `Self hook ...` to report the chat's turns to Home's
	// server (see hooks.go).
	Self, Home string
}

// BuildLaunch builds the argv, environment and folder of one start of the
// chat's harness. Every start calls it, so every start gets the stored
// folders: per folder the harness's flag (--add-dir, --include-directories),
// or for a plain harness the colon-separated ACPMUX_ADDITIONAL_DIRECTORIES;
// and the stored single files: in ACPMUX_ADDITIONAL_FILES for every pty
// harness, and as a note in Claude Code's system prompt and Codex's
// developer instructions (files.go).
// Claude Code and Gemini CLI get --session-id at the first start and
// --resume after; Codex gets `codex resume ID` once the chat has learned its
// session id. A fork's first start branches the parent's conversation.
func (s Spec) BuildLaunch(m *sessions.Meta, o LaunchOptions) (Launch, error) {
	path, err := s.ResolveCommand(o.Getenv)
	if err != nil {
		return Launch{}, err
	}
	l := Launch{Path: path, Dir: m.Cwd}
	argv0 := s.Command
	if argv0 == "$SHELL" || strings.HasPrefix(argv0, "$") {
		argv0 = path
	}
	l.Argv = append([]string{argv0}, s.Args...)
	l.Env = s.environment(m, o.Environ)
	switch s.Kind {
	case KindClaude:
		id := m.AgentSessionID
		switch {
		case id != "" && ClaudeHasSession(l.Env, id):
			l.Argv = append(l.Argv, "--resume", id)
		default:
			// A first start; or the first start died before Claude Code
			// wrote the session (offline, not logged in), and --resume
			// would fail with "No conversation found" at every start: start
			// it again under the same id.
			if id == "" {
				id = o.NewSessionID()
				l.NewSessionID = id
			}
			if o.ForkFrom != "" && ClaudeHasSession(l.Env, o.ForkFrom) {
				l.Argv = append(l.Argv, "--resume", o.ForkFrom, "--fork-session")
			}
			l.Argv = append(l.Argv, "--session-id", id)
		}
	case KindGemini:
		// As Claude Code: Gemini CLI takes the id of a new session
		// (--session-id) and resumes it by id once it has stored a message
		// in it (--resume refuses an empty or unknown session). The id is
		// ours, so no other chat's conversation can be resumed.
		id := m.AgentSessionID
		switch {
		case id != "" && GeminiHasSession(l.Env, id):
			l.Argv = append(l.Argv, "--resume", id)
		default:
			if id == "" {
				id = o.NewSessionID()
				l.NewSessionID = id
			}
			l.Argv = append(l.Argv, "--session-id", id)
		}
	case KindCodex:
		// Codex picks its own session id; the mux learns it from Codex's
		// files after a start (see FindCodexSessions). Resuming and forking
		// are subcommands, which go first: the harness's args and the folder
		// flags are the subcommand's options then.
		id := m.AgentSessionID
		switch {
		case id != "" && CodexHasSession(l.Env, id):
			l.Argv = append([]string{argv0, "resume", id}, s.Args...)
		case o.ForkFrom != "" && CodexHasSession(l.Env, o.ForkFrom):
			l.Argv = append([]string{argv0, "fork", o.ForkFrom}, s.Args...)
		}
	}
	if o.Self != "" && o.Home != "" && s.Transport == TransportPty {
		switch s.Kind {
		case KindClaude:
			l.Argv = append(l.Argv, "--settings", claudeSettings(o.Self))
		case KindCodex:
			l.Argv = append(l.Argv, "-c", codexNotify(o.Self))
			if own := userCodexNotify(l.Env); own != "" {
				l.Env = setEnv(l.Env, EnvCodexNotify, own)
			}
		}
		l.Env = setEnv(l.Env, EnvHome, o.Home)
	}
	if s.Kind == KindClaude && s.Transport == TransportPty && len(m.AdditionalFiles) > 0 {
		l.Argv = withClaudeFilesNote(l.Argv, m.AdditionalFiles)
	}
	if s.Kind == KindCodex {
		l.Argv = l.codexSandbox(s.Args, m.AdditionalDirectories, m.AdditionalFiles)
	}
	if s.IsCodexACP() {
		l.Argv = l.codexACPSandbox(s.Args, m.AdditionalDirectories)
	}
	if s.FolderFlag != "" && !l.FoldersReadOnly {
		for _, d := range m.AdditionalDirectories {
			l.Argv = append(l.Argv, s.FolderFlag, d)
		}
	}
	return l, nil
}

// codexSandbox gives a Codex start a sandbox that takes the folders as
// writable roots (--sandbox workspace-write) when the chat has folders and
// the user chose no sandbox; when the user's sandbox cannot take them, the
// folders go as a note in the developer instructions instead of --add-dir
// (which Codex would refuse, and exit). The chat's single files always go
// as a note there, in the same override. It returns the argv and records
// the sandbox in the launch.
func (l *Launch) codexSandbox(args, dirs, files []string) []string {
	choice := codexUserChoice(args, l.Env)
	sb := choice.sandbox
	argv := l.Argv
	if len(dirs) > 0 && sb.Mode == "" {
		sb = CodexSandbox{Mode: CodexWorkspaceWrite, From: SandboxByAcpmux}
		argv = append(argv, "--sandbox", CodexWorkspaceWrite)
	}
	l.Sandbox = sb.String()
	var noteDirs []string
	if len(dirs) > 0 && !sb.TakesWritableRoots() {
		l.FoldersReadOnly = true
		noteDirs = dirs
	}
	if len(noteDirs) > 0 || len(files) > 0 {
		argv = append(argv, "-c", codexInstructions(choice.instructions, choice.set, sb, noteDirs, files))
	}
	return argv
}

// ClaudeHasSession reports whether Claude Code, run with the environment env,
// has stored the session id (see ClaudeSessionLog).
func ClaudeHasSession(env []string, id string) bool { return ClaudeSessionLog(env, id) != "" }

// ClaudeSessionLog returns the log in which Claude Code, run with the
// environment env, keeps session id: <id>.jsonl, a regular file (a link is
// not followed), in one of the project folders under
// ${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/; "" when it has none.
func ClaudeSessionLog(env []string, id string) string {
	if !safeSessionID(id) {
		return ""
	}
	root := lookupEnv(env, "CLAUDE_CONFIG_DIR")
	if root == "" {
		home := lookupEnv(env, "HOME")
		if home == "" {
			return ""
		}
		root = filepath.Join(home, ".claude")
	}
	projects := filepath.Join(root, "projects")
	entries, err := os.ReadDir(projects)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		p := filepath.Join(projects, e.Name(), id+".jsonl")
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// lookupEnv returns the last value of key in an environment list.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// outerTerminalVars are the variables that describe the terminal or
// multiplexer acpmux-tui itself runs in. A harness runs in acpmux-tui's pty,
// not there: with TMUX set, Claude Code warns about tmux focus events and any
// tool that calls tmux acts on the user's pane.
var outerTerminalVars = []string{
	"TMUX", "TMUX_PANE", "STY", "WINDOW", "TERM_PROGRAM", "TERM_PROGRAM_VERSION",
	"TERM_SESSION_ID", "WEZTERM_PANE", "WEZTERM_EXECUTABLE", "WEZTERM_UNIX_SOCKET",
	"WEZTERM_CONFIG_DIR", "WEZTERM_CONFIG_FILE", "KITTY_WINDOW_ID", "KITTY_PID",
	"KITTY_LISTEN_ON", "KITTY_PUBLIC_KEY", "KITTY_INSTALLATION_DIR", "ITERM_SESSION_ID",
	"ITERM_PROFILE", "LC_TERMINAL", "LC_TERMINAL_VERSION", "ALACRITTY_WINDOW_ID",
	"ALACRITTY_SOCKET", "ALACRITTY_LOG", "GHOSTTY_RESOURCES_DIR", "GHOSTTY_BIN_DIR",
	"VTE_VERSION", "KONSOLE_VERSION", "KONSOLE_DBUS_SESSION", "KONSOLE_DBUS_SERVICE",
	"KONSOLE_DBUS_WINDOW", "TILIX_ID", "TERMINATOR_UUID", "WT_SESSION", "WT_PROFILE_ID",
	"VSCODE_INJECTION", "VSCODE_GIT_IPC_HANDLE", "WINDOWID",
}

// outerTerminalPrefixes are families of such variables.
var outerTerminalPrefixes = []string{"ZELLIJ", "WEZTERM_", "KITTY_", "ITERM_", "KONSOLE_", "GHOSTTY_"}

// isOuterTerminalVar reports whether an inherited variable belongs to the
// terminal or multiplexer acpmux-tui runs in.
func isOuterTerminalVar(k string) bool {
	for _, v := range outerTerminalVars {
		if k == v {
			return true
		}
	}
	for _, p := range outerTerminalPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// environment is the inherited environment without any variable this
// function sets, then the harness's own variables, then acpmux-tui's.
func (s Spec) environment(m *sessions.Meta, inherited []string) []string {
	set := map[string]string{
		EnvChatID: m.ID,
	}
	if s.Transport == TransportPty {
		set["TERM"] = "xterm-256color"
		set["COLORTERM"] = "truecolor"
		set["TERM_PROGRAM"] = TermProgram
	}
	for k, v := range s.Env {
		set[k] = v
	}
	dirs, files := "", ""
	if s.Kind == KindPlain && len(m.AdditionalDirectories) > 0 {
		dirs = strings.Join(m.AdditionalDirectories, string(filepath.ListSeparator))
	}
	if s.Transport == TransportPty && len(m.AdditionalFiles) > 0 {
		files = strings.Join(m.AdditionalFiles, string(filepath.ListSeparator))
	}
	env := make([]string, 0, len(inherited)+len(set)+1)
	for _, kv := range inherited {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; ours || k == EnvAdditionalDirectories || k == EnvAdditionalFiles || k == EnvCodexNotify || isOuterTerminalVar(k) {
			continue
		}
		env = append(env, kv)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+set[k])
	}
	if dirs != "" {
		env = append(env, EnvAdditionalDirectories+"="+dirs)
	}
	if files != "" {
		env = append(env, EnvAdditionalFiles+"="+files)
	}
	return env
}

// setEnv sets k to v in env, replacing an inherited value.
func setEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}

// Environment is the environment a start of the harness gets for chat m,
// built from the inherited one: what the harness finds in HOME,
// CODEX_HOME and the like is what tells where it keeps its sessions.
func (s Spec) Environment(m *sessions.Meta, inherited []string) []string {
	return s.environment(m, inherited)
}

// String shows a launch for logs: the argv, quoted where needed.
func (l Launch) String() string {
	parts := make([]string, len(l.Argv))
	for i, a := range l.Argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$") {
			parts[i] = fmt.Sprintf("%q", a)
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ") + " (in " + l.Dir + ")"
}
