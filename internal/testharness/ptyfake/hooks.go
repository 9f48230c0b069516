package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// This file is the fake's side of how harnesses report their turns: on the
// input line `hook EVENT [ARG]` it runs the command hooks its settings
// configure for EVENT as Claude Code does, and on `notify TYPE` the notify
// program of its `-c notify=[...]` as Codex does. Each run is recorded in
// $ACPMUX_FAKE_RECORD.hooks, one JSON line (a hookRun) per program run.

// hookRun is what one hook or notify program run did.
type hookRun struct {
	Event string `json:"event"`
	// Command is the hook's command, run with sh -c; for a notify program,
	// Argv is what was run (the notification's JSON last).
	Command string   `json:"command,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	// Input is what the program got on stdin (a notify program: nothing).
	Input string `json:"input,omitempty"`
	// Exit is the exit status, -1 when it was killed or did not start.
	Exit     int     `json:"exit"`
	TimedOut bool    `json:"timedOut,omitempty"`
	Err      string  `json:"err,omitempty"`
	Millis   float64 `json:"ms"`
	// OutputBytes counts what it wrote to stdout and stderr together;
	// Output is their first hookOutputMax bytes.
	OutputBytes int    `json:"outputBytes"`
	Output      string `json:"output,omitempty"`
}

// hookOutputMax bounds the output kept in a record.
const hookOutputMax = 4 << 10

// hookDefaultTimeout is Claude Code's timeout for a command hook that sets
// none.
const hookDefaultTimeout = 60 * time.Second

// inputCommand runs the fake's hook and notify input lines and returns
// what to print; ok is false for any other line, which is echoed.
//
//	hook EVENT [ARG]  Claude Code's hooks for EVENT; ARG is the
//	                  notification_type of a Notification, the tool name of
//	                  PreToolUse/PostToolUse (default Bash), the source of
//	                  SessionStart (default startup, or resume)
//	notify TYPE       Codex's notify program, for a notification of TYPE
func inputCommand(line string) (reply string, ok bool) {
	f := strings.Fields(line)
	switch {
	case len(f) >= 2 && len(f) <= 3 && f[0] == "hook":
		arg := ""
		if len(f) == 3 {
			arg = f[2]
		}
		if err := runClaudeHooks(f[1], arg); err != nil {
			return "hook error: " + err.Error(), true
		}
		return "hooked: " + f[1], true
	case len(f) == 2 && f[0] == "notify":
		if err := runCodexNotify(f[1]); err != nil {
			return "notify error: " + err.Error(), true
		}
		return "notified: " + f[1], true
	}
	return "", false
}

// claudeHookSettings is the part of Claude Code's settings that holds hooks.
type claudeHookSettings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string  `json:"type"`
			Command string  `json:"command"`
			Timeout float64 `json:"timeout"` // seconds
		} `json:"hooks"`
	} `json:"hooks"`
}

// claudeHook is one command hook to run.
type claudeHook struct {
	command string
	timeout time.Duration
}

// runClaudeHooks runs, one after another, every command hook the settings
// configure for event whose matcher matches, as Claude Code would, each
// with the event's JSON on stdin. Settings come, as Claude Code's do, from
// the user's settings.json (in $CLAUDE_CONFIG_DIR or ~/.claude), the
// project's .claude/settings.json and .claude/settings.local.json, and
// --settings (a JSON object, or a file holding one); all their hooks run,
// a command configured twice once.
func runClaudeHooks(event, arg string) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	hooks, err := claudeHooksFor(event, matchTarget(event, arg), cwd)
	if err != nil {
		return err
	}
	input, err := json.Marshal(claudeHookInput(event, arg, cwd))
	if err != nil {
		return err
	}
	env := append(os.Environ(), "CLAUDE_PROJECT_DIR="+cwd)
	for _, h := range hooks {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
		cmd := exec.CommandContext(ctx, "sh", "-c", h.command)
		cmd.Dir, cmd.Env, cmd.Stdin = cwd, env, bytes.NewReader(input)
		run := hookRun{Event: event, Command: h.command, Input: string(input)}
		runProgram(cmd, &run)
		run.TimedOut = ctx.Err() != nil
		cancel()
		recordHookRun(run)
	}
	return nil
}

// claudeHooksFor returns the hooks configured for event whose matcher
// matches target.
func claudeHooksFor(event, target, cwd string) ([]claudeHook, error) {
	root := os.Getenv("CLAUDE_CONFIG_DIR")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), ".claude")
	}
	var sources [][]byte
	for _, path := range []string{
		filepath.Join(root, "settings.json"),
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(cwd, ".claude", "settings.local.json"),
	} {
		if b, err := os.ReadFile(path); err == nil {
			sources = append(sources, b)
		}
	}
	if i := slices.Index(os.Args, "--settings"); i >= 0 && i+1 < len(os.Args) {
		v := os.Args[i+1]
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			sources = append(sources, []byte(v))
		} else {
			b, err := os.ReadFile(v)
			if err != nil {
				return nil, fmt.Errorf("--settings: %w", err)
			}
			sources = append(sources, b)
		}
	}
	var hooks []claudeHook
	for _, src := range sources {
		var s claudeHookSettings
		if err := json.Unmarshal(src, &s); err != nil {
			return nil, fmt.Errorf("settings: %w", err)
		}
		for _, m := range s.Hooks[event] {
			if !matcherMatches(m.Matcher, target) {
				continue
			}
			for _, h := range m.Hooks {
				if h.Type != "command" || slices.ContainsFunc(hooks, func(o claudeHook) bool { return o.command == h.Command }) {
					continue
				}
				timeout := hookDefaultTimeout
				if h.Timeout > 0 {
					timeout = time.Duration(h.Timeout * float64(time.Second))
				}
				hooks = append(hooks, claudeHook{command: h.Command, timeout: timeout})
			}
		}
	}
	return hooks, nil
}

// matchTarget is what an event's matchers match: the tool's name for the
// tool events, the notification's type, the session start's source; ""
// for events that have no matcher.
func matchTarget(event, arg string) string {
	switch event {
	case "PreToolUse", "PostToolUse":
		return toolName(arg)
	case "Notification":
		return arg
	case "SessionStart":
		return startSource(arg)
	}
	return ""
}

// matcherMatches applies a Claude Code matcher: empty or "*" match
// everything, as does any matcher of an event without matchers; otherwise
// it is a regular expression that must match the whole target ("Bash",
// "Edit|Write"), or, if not one, the target itself.
func matcherMatches(matcher, target string) bool {
	if matcher == "" || matcher == "*" || target == "" {
		return true
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	if err != nil {
		return matcher == target
	}
	return re.MatchString(target)
}

func toolName(arg string) string {
	if arg == "" {
		return "Bash"
	}
	return arg
}

func startSource(arg string) string {
	switch {
	case arg != "":
		return arg
	case slices.Contains(os.Args, "--resume"):
		return "resume"
	}
	return "startup"
}

// claudeHookInput is the JSON Claude Code gives a hook of event on stdin.
func claudeHookInput(event, arg, cwd string) map[string]any {
	id := claudeSessionID()
	in := map[string]any{
		"session_id":      id,
		"transcript_path": claudeTranscript(cwd, id),
		"cwd":             cwd,
		"hook_event_name": event,
		"permission_mode": "default",
	}
	toolInput := map[string]any{"command": "ls -la", "description": "List the files"}
	switch event {
	case "SessionStart":
		in["source"] = startSource(arg)
	case "UserPromptSubmit":
		in["prompt"] = "fix the bug"
	case "PreToolUse":
		in["tool_name"], in["tool_input"], in["tool_use_id"] = toolName(arg), toolInput, "toolu_fake"
	case "PostToolUse":
		in["tool_name"], in["tool_input"], in["tool_use_id"] = toolName(arg), toolInput, "toolu_fake"
		in["tool_response"] = map[string]any{"stdout": "total 0\n", "stderr": "", "interrupted": false, "isImage": false}
	case "Notification":
		in["notification_type"] = arg
		in["message"] = notificationMessage(arg)
	case "Stop":
		in["stop_hook_active"] = false
	case "SessionEnd":
		in["reason"] = "other"
	}
	return in
}

// notificationMessage is the message Claude Code sends with a notification
// of that type.
func notificationMessage(kind string) string {
	switch kind {
	case "permission_prompt":
		return "Claude needs your permission to use Bash"
	case "idle_prompt":
		return "Claude is waiting for your input"
	case "elicitation_dialog":
		return "Claude has a question for you"
	}
	return "Claude Code notification"
}

// fakeSessionID is this process's session id when its argv gives none.
var fakeSessionID = sync.OnceValue(newUUID)

// claudeSessionID is the session of this start: --session-id's or
// --resume's (a fork's --resume names the parent: --session-id wins).
func claudeSessionID() string {
	for _, flag := range []string{"--session-id", "--resume"} {
		if i := slices.Index(os.Args, flag); i >= 0 && i+1 < len(os.Args) {
			return os.Args[i+1]
		}
	}
	return fakeSessionID()
}

// claudeTranscript is where Claude Code keeps session id's conversation
// (see storeClaudeSession).
func claudeTranscript(cwd, id string) string {
	root := os.Getenv("CLAUDE_CONFIG_DIR")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), ".claude")
	}
	return filepath.Join(root, "projects", strings.ReplaceAll(cwd, "/", "-"), id+".jsonl")
}

// notifyTurns counts the notify program's runs: the turn ids.
var notifyTurns int

// runCodexNotify runs the notify program of the fake's `-c notify=[...]`
// (or --config) as Codex does at the end of a turn: argv from the JSON
// array, the notification's JSON appended as the last argument, stdin
// /dev/null. The thread id is `resume ID`'s, or one of this process's.
func runCodexNotify(kind string) error {
	var argv []string
	for i := 1; i+1 < len(os.Args); i++ {
		if os.Args[i] != "-c" && os.Args[i] != "--config" {
			continue
		}
		if v, ok := strings.CutPrefix(os.Args[i+1], "notify="); ok {
			argv = nil
			if err := json.Unmarshal([]byte(v), &argv); err != nil {
				return fmt.Errorf("-c notify: %w", err)
			}
		}
	}
	if len(argv) == 0 {
		return errors.New("no -c notify=[...] given")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	thread := fakeSessionID()
	if len(os.Args) > 2 && os.Args[1] == "resume" {
		thread = os.Args[2]
	}
	notifyTurns++
	note, err := json.Marshal(map[string]string{"type": kind, "thread-id": thread, "turn-id": fmt.Sprint(notifyTurns), "cwd": cwd})
	if err != nil {
		return err
	}
	argv = append(argv, string(note))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd // Stdin nil: /dev/null
	run := hookRun{Event: "notify", Argv: argv}
	runProgram(cmd, &run)
	recordHookRun(run)
	return nil
}

// runProgram runs cmd to its end and fills in run's outcome: exit status,
// time, output.
func runProgram(cmd *exec.Cmd, run *hookRun) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second // a grandchild holding the output open
	begin := time.Now()
	err := cmd.Run()
	run.Millis = float64(time.Since(begin).Microseconds()) / 1000
	run.Exit = -1
	if cmd.ProcessState != nil {
		run.Exit = cmd.ProcessState.ExitCode()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		run.Err = err.Error()
	}
	run.OutputBytes = out.Len()
	run.Output = string(out.Bytes()[:min(out.Len(), hookOutputMax)])
}

// recordHookRun appends run to $ACPMUX_FAKE_RECORD.hooks; without
// $ACPMUX_FAKE_RECORD, nothing.
func recordHookRun(run hookRun) {
	path := os.Getenv("ACPMUX_FAKE_RECORD")
	if path == "" {
		return
	}
	line, err := json.Marshal(run)
	if err != nil {
		fail(err)
	}
	f, err := os.OpenFile(path+".hooks", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fail(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}
