package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// This file holds how a harness tells acpmux-tui where its turn is, where
// it can: Claude Code runs hooks, Codex runs a notify program. Both run
// `acpmux-tui hook ...` (the binary's absolute path), which reports to the
// server; the mux turns what it reports into the chat's status.

// TurnSignal is what a harness told of its turn.
type TurnSignal string

// The signals.
const (
	// SignalWorking: the user sent a prompt, or a tool is about to run or
	// has run: the harness works on a turn.
	SignalWorking TurnSignal = "working"
	// SignalAsking: the harness waits for the user's answer (a permission,
	// a question).
	SignalAsking TurnSignal = "asking"
	// SignalDone: the turn is over; the harness waits for input.
	SignalDone TurnSignal = "done"
	// SignalReady: the harness waits for input without having finished a
	// turn (a session started, or it has been idle a while).
	SignalReady TurnSignal = "ready"
)

// EnvChatID and EnvHome tell `acpmux-tui hook`, run by a harness, which
// chat it reports for and which agent home's server to tell.
const (
	EnvChatID = "ACPMUX_CHAT_ID"
	EnvHome   = "ACPMUX_HOME"
)

// EnvCodexNotify carries, to the hook a Codex chat runs as its notify
// program, the notify program of the user's own Codex config (a JSON
// array): `-c notify=` replaces it, so the hook runs it in turn.
const EnvCodexNotify = "ACPMUX_CODEX_NOTIFY"

// codexConfigMax bounds the Codex config read for its notify program.
const codexConfigMax = 1 << 20

// userCodexNotify is the notify program of the Codex config that a Codex
// run with the environment env reads (${CODEX_HOME:-$HOME/.codex}/
// config.toml), as JSON; "" when it has none or cannot be read. The file
// is the user's: read bounded, only if it is a regular file.
func userCodexNotify(env []string) string {
	home := codexHome(env)
	if home == "" {
		return ""
	}
	path := filepath.Join(home, "config.toml")
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > codexConfigMax {
		return ""
	}
	var cfg struct {
		Notify []string `toml:"notify"`
	}
	if _, err := toml.DecodeFile(path, &cfg); err != nil || len(cfg.Notify) == 0 || cfg.Notify[0] == "" {
		return ""
	}
	b, _ := json.Marshal(cfg.Notify)
	return string(b)
}

// HookCommand is the subcommand a harness's hooks run.
const HookCommand = "hook"

// CodexHookEvent is the event name of Codex's notify program: Codex adds
// the notification's JSON as the last argument.
const CodexHookEvent = "codex-notify"

// ClaudeHookEvents are the Claude Code hook events acpmux-tui listens to.
var ClaudeHookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SessionEnd"}

// ClaudeHookSignal maps a Claude Code hook event to a signal; ok is false
// for an event that says nothing of the turn (SessionEnd: the process's
// exit tells that; a notification that is neither a question nor idleness).
// A Notification carries notification_type in current Claude Code versions;
// older ones only a message, read as a permission request when it says so.
func ClaudeHookSignal(event, notificationType, message string) (TurnSignal, bool) {
	switch event {
	case "UserPromptSubmit", "PreToolUse", "PostToolUse":
		return SignalWorking, true
	case "Stop":
		return SignalDone, true
	case "SessionStart":
		return SignalReady, true
	case "Notification":
		switch notificationType {
		case "permission_prompt", "elicitation_dialog":
			return SignalAsking, true
		case "idle_prompt":
			return SignalReady, true
		case "elicitation_response":
			return SignalWorking, true
		case "":
			msg := strings.ToLower(message)
			switch {
			case strings.Contains(msg, "permission"), strings.Contains(msg, "needs your"):
				return SignalAsking, true
			case strings.Contains(msg, "waiting for your input"):
				return SignalReady, true
			}
		}
	}
	return "", false
}

// CodexNotifySignal maps the type of a Codex notification to a signal.
func CodexNotifySignal(kind string) (TurnSignal, bool) {
	switch kind {
	case "agent-turn-complete":
		return SignalDone, true
	case "approval-requested":
		return SignalAsking, true
	}
	return "", false
}

// claudeSettings is the --settings JSON a claude-kind chat starts with:
// one command hook per event, added to whatever hooks the user's own
// settings have (Claude Code runs all that match).
func claudeSettings(self string) string {
	type command struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	type matcher struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []command `json:"hooks"`
	}
	hooks := map[string][]matcher{}
	for _, ev := range ClaudeHookEvents {
		m := matcher{Hooks: []command{{Type: "command", Command: ShellQuote(self) + " " + HookCommand + " " + ev, Timeout: 5}}}
		if ev == "PreToolUse" || ev == "PostToolUse" {
			m.Matcher = "*"
		}
		hooks[ev] = []matcher{m}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	return string(b)
}

// codexNotify is the -c override that makes Codex run the hook at the end
// of each turn. JSON strings are TOML basic strings, which -c parses.
func codexNotify(self string) string {
	b, _ := json.Marshal([]string{self, HookCommand, CodexHookEvent})
	return "notify=" + string(b)
}

// ShellQuote quotes s for sh -c, which Claude Code runs a hook's command
// with (and benchtool tmux's window commands).
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~=%{}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// reportsTurns reports whether a kind's harness is given a way to report
// its turns (hooks or a notify program) when the mux knows its own path.
func reportsTurns(kind string) bool { return kind == KindClaude || kind == KindCodex }

// ReportsTurns reports whether a chat of this spec tells its turns through
// `acpmux-tui hook` (Claude Code's hooks, Codex's notify program); other pty
// harnesses' statuses are inferred from their screens.
func (s Spec) ReportsTurns() bool { return s.Transport == TransportPty && reportsTurns(s.Kind) }

// Shown is argv as the summary shows it: the --settings JSON that carries
// the hooks, hundreds of bytes, is named rather than spelled out, so the
// arguments that follow it (the folders) stay in view.
func Shown(argv []string) []string {
	out := append([]string(nil), argv...)
	for i := 1; i < len(out); i++ {
		if out[i-1] == "--settings" && strings.HasPrefix(out[i], `{"hooks":`) {
			out[i] = "{acpmux hooks}"
		}
	}
	return out
}
