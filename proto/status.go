package proto

import (
	"fmt"
	"slices"
	"time"
)

// Status is where a chat's harness is in its life.
type Status int

// The statuses a chat reports.
const (
	// StatusStopped: not started yet, or stopped on request.
	StatusStopped Status = iota
	// StatusStarting: spawned, no output yet.
	StatusStarting
	// StatusRunning: working on a turn.
	StatusRunning
	// StatusAsking: waiting for the user's answer to a permission request
	// or a question, in the middle of a turn.
	StatusAsking
	// StatusWaiting: the turn is done; ready for the user's input.
	StatusWaiting
	// StatusExited: the harness exited by itself; ExitCode says how.
	StatusExited
	// StatusFailed: it could not start, or kept crashing; Reason says why.
	StatusFailed
)

var statusNames = [...]string{"stopped", "starting", "running", "asking", "waiting", "exited", "failed"}

// String returns the status as shown in `ls` and `--json`.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Live reports whether a harness process exists in this status.
func (s Status) Live() bool {
	return s == StatusStarting || s == StatusRunning || s == StatusAsking || s == StatusWaiting
}

// StatusSource says where a chat's status comes from.
type StatusSource string

// The sources.
const (
	// SourceScreen: inferred from what the harness prints (a bell, a
	// desktop notification, OSC 9;4 progress, or quiet).
	SourceScreen StatusSource = "screen"
	// SourceHooks: Claude Code's hooks report every change.
	SourceHooks StatusSource = "hooks"
	// SourceNotify: Codex's notify program reports each turn's end; the
	// rest is inferred from the screen.
	SourceNotify StatusSource = "notify"
	// SourceACP: the protocol itself (a prompt in flight, a pending
	// permission request, the prompt's end).
	SourceACP StatusSource = "acp"
)

// Phrase says where a status comes from, for the summary and `show`.
func (s StatusSource) Phrase() string {
	switch s {
	case SourceHooks:
		return "from Claude Code's hooks"
	case SourceNotify:
		return "turn ends from Codex's notify program, the rest inferred from its screen"
	case SourceACP:
		return "from ACP"
	case SourceScreen:
		return "inferred from its screen"
	}
	return ""
}

// Short is Phrase for a narrow pane: empty for ACP, whose status is exact.
func (s StatusSource) Short() string {
	switch s {
	case SourceHooks:
		return "from hooks"
	case SourceNotify:
		return "turn ends from notify, else inferred"
	case SourceScreen:
		return "inferred"
	}
	return ""
}

// State is a chat's harness as the UI shows it.
type State struct {
	Status Status
	// ExitCode is the last exit status (-1 for a signal).
	ExitCode int
	// Exit says how the harness's last process ended, "exit status 1" or
	// "killed by SIGKILL"; "" before one ended.
	Exit string
	// Reason says why the chat failed, or how it last exited.
	Reason string
	// Pid is the harness's process id while it runs.
	Pid int
	// Started is when the current process started.
	Started time.Time
	// Restarts counts starts after the first in this acpmux-tui process.
	Restarts int
	// LastError is the last error met starting or running the harness.
	LastError string
	// LastOutput is the line a pty harness printed on its screen before it
	// last exited by itself that says why it ended, in its own words: of
	// its last lines, the last that reads as an error, else the last that
	// is not a bare link or decoration; as one plain line (escape
	// sequences stripped, blanks trimmed and joined). It is kept with
	// LastError, cleared by a start on request.
	LastOutput string
	// Title is the terminal title a pty harness set (OSC 0/2), or, for an
	// ACP chat (which has no terminal), the title its agent gave its
	// session (session_info_update), cleaned; the latter is kept in the
	// chat file too (the chat's title).
	Title string
	// Usage is, for an ACP chat, its context window and cost as its agent
	// last said them (usage_update), checked; nil until it says. It is
	// kept in memory only, replaced whole (never changed in place).
	Usage *Usage
	// Settings are, for an ACP chat, its session mode and configuration
	// options as its agent last said them: each one's name and its current
	// value's name, cleaned (SettingsOf); nil when it said none.
	Settings []Setting
	// Unread is set when the chat asked for its user or finished a turn
	// while nobody looked at it (see Mux.Look), until someone does or types
	// to it.
	Unread bool
	// StatusFrom says where Status comes from; empty before a start.
	StatusFrom StatusSource
	// Argv is the argument vector of the current or last start.
	Argv []string
	// Transport is "pty" or "acp".
	Transport string
	// FoldersVia says how the folders reached an ACP agent once it is
	// initialized ("acp", "flag", "note", "none"); empty before.
	FoldersVia string
	// Sandbox is, for a Codex chat, the sandbox of the current or last
	// start and who chose it (harness.CodexSandbox); "" for other harnesses.
	Sandbox string
	// Bound is, for a sandboxed chat, its Landlock bound at the current or
	// last start in one line (harness.ChatBound.Summary); "" for a chat
	// that is not sandboxed.
	Bound string
	// FoldersReadOnly is set when that sandbox cannot take writable roots:
	// the folders reached the harness as a note, readable, not writable.
	FoldersReadOnly bool
	// AgentName is the ACP agent's name and version.
	AgentName string
	// SessionID is the ACP session in use.
	SessionID string
	// TurnActive is set while an ACP prompt turn runs.
	TurnActive bool
	// Permission is the ACP agent's pending permission request, if any.
	Permission *Permission
	// PendingDirectories is the chat's stored folder list while the running
	// harness still has another (RunningDirectories), until the change is
	// applied at the end of its turn (see FoldersChanged); both are nil when
	// nothing is pending.
	PendingDirectories []string
	RunningDirectories []string
	// PendingFiles and RunningFiles are the same for the chat's single
	// files: the stored list and the running harness's, while they differ.
	PendingFiles []string
	RunningFiles []string
	// PendingUntilRestart is set when the harness cannot resume its
	// conversation, so the change waits for a restart the user asks for.
	PendingUntilRestart bool
	// SignIn is, for an ACP chat whose agent answered "authentication
	// required", the ways it offered to sign in (cleaned; see SignIn);
	// nil once a session is made.
	SignIn []SignIn
	// Commands are the slash commands the ACP agent offers, as its last
	// available_commands_update gave them (cleaned, at most MaxCommands);
	// nil when it offered none.
	Commands []Command
}

// Pending reports whether a change of the chat's folders or files waits
// for the end of its turn (or its next restart).
func (s State) Pending() bool {
	return s.PendingDirectories != nil || s.PendingFiles != nil
}

// PendingFileChange is what a pending change of the single files adds and
// removes.
func (s State) PendingFileChange() (added, removed []string) {
	if s.PendingFiles == nil {
		return nil, nil
	}
	return missingFrom(s.PendingFiles, s.RunningFiles), missingFrom(s.RunningFiles, s.PendingFiles)
}

// missingFrom is what of list is not in other, in list's order.
func missingFrom(list, other []string) []string {
	var out []string
	for _, d := range list {
		if !slices.Contains(other, d) {
			out = append(out, d)
		}
	}
	return out
}

// PendingChange is what a pending change of folders adds and removes.
func (s State) PendingChange() (added, removed []string) {
	if s.PendingDirectories == nil {
		return nil, nil
	}
	for _, d := range s.PendingDirectories {
		if !slices.Contains(s.RunningDirectories, d) {
			added = append(added, d)
		}
	}
	for _, d := range s.RunningDirectories {
		if !slices.Contains(s.PendingDirectories, d) {
			removed = append(removed, d)
		}
	}
	return added, removed
}

// The one wording of when a running chat takes a change of its folders,
// for `show`, the TUI's summary and its status line: at the end of its
// turn, or (PendingUntilRestart) at its next restart.
const (
	PendingAtTurnEnd = "at the end of its turn"
	PendingAtRestart = "at its next restart"
)

// Equal reports whether two states are the same, field for field, as
// reflect.DeepEqual would say (a nil list is not an empty one: Pending
// tells them apart), without reflection: the server compares a chat's
// state with the one it last told each client at every change of its
// screen.
func (s State) Equal(o State) bool {
	return s.Status == o.Status && s.ExitCode == o.ExitCode && s.Exit == o.Exit && s.Reason == o.Reason &&
		s.Pid == o.Pid && s.Started == o.Started && s.Restarts == o.Restarts &&
		s.LastError == o.LastError && s.LastOutput == o.LastOutput && s.Title == o.Title &&
		s.Unread == o.Unread && s.StatusFrom == o.StatusFrom && sameList(s.Argv, o.Argv) &&
		s.Transport == o.Transport && s.FoldersVia == o.FoldersVia && s.Sandbox == o.Sandbox && s.Bound == o.Bound &&
		s.FoldersReadOnly == o.FoldersReadOnly && s.AgentName == o.AgentName &&
		s.SessionID == o.SessionID && s.TurnActive == o.TurnActive &&
		s.Permission.Equal(o.Permission) &&
		sameList(s.PendingDirectories, o.PendingDirectories) &&
		sameList(s.RunningDirectories, o.RunningDirectories) &&
		sameList(s.PendingFiles, o.PendingFiles) && sameList(s.RunningFiles, o.RunningFiles) &&
		s.PendingUntilRestart == o.PendingUntilRestart && s.Usage.Equal(o.Usage) &&
		sameSettings(s.Settings, o.Settings) && sameSignIns(s.SignIn, o.SignIn) &&
		sameCommands(s.Commands, o.Commands)
}

// Equal reports whether two permission requests (either may be nil) are
// the same, field for field.
func (p *Permission) Equal(o *Permission) bool {
	if p == nil || o == nil {
		return p == o
	}
	return p.Title == o.Title && (p.Options == nil) == (o.Options == nil) && slices.Equal(p.Options, o.Options) &&
		p.Pending == o.Pending &&
		p.Seq == o.Seq && p.ToolCallID == o.ToolCallID && p.Kind == o.Kind && sameContents(p.Content, o.Content)
}

// sameList is slices.Equal that, as reflect.DeepEqual, tells nil from
// empty.
func sameList(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}
