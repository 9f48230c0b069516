package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coder/acp-go-sdk"
)

// This file is what an agent sends that a client draws richly: a long
// markdown message, tool calls with their content (diffs, a command's
// output), a full plan, thoughts, slash commands, a permission request
// that carries its diff, and hostile or huge versions of them. Each is a
// prompt command (main.go lists them); like attacks, the prompt's last
// line is "NAME ARG".
var rich = map[string]func(t *turnRun, arg string) (acp.StopReason, error){
	"markdown":          (*turnRun).markdown,
	"edit-diff":         (*turnRun).editDiff,
	"execute":           func(t *turnRun, _ string) (acp.StopReason, error) { return t.execute(false) },
	"execute-fail":      func(t *turnRun, _ string) (acp.StopReason, error) { return t.execute(true) },
	"plan-full":         (*turnRun).planFull,
	"thoughts":          (*turnRun).thoughts,
	"commands":          (*turnRun).commands,
	"permission-edit":   (*turnRun).permissionEdit,
	"hostile-diff":      (*turnRun).hostileDiff,
	"hostile-commands":  (*turnRun).hostileCommands,
	"big-message":       (*turnRun).bigMessage,
	"big-diff":          (*turnRun).bigDiff,
	"terminal-content":  (*turnRun).terminalContent,
	"commands-withdraw": (*turnRun).commandsWithdraw,
}

// MarkdownReply is the markdown command's message: headings, emphasis,
// lists, a link, a block quote, a table and a Go code fence.
const MarkdownReply = "# Parser report\n\n" +
	"The tokenizer is **flaky** under *load*, and `nextToken` returns early on a trailing space.\n\n" +
	"## What changed\n\n" +
	"- Split the **lexer** from the parser\n" +
	"- Added a _fuzz_ test\n" +
	"  - with a seed corpus\n" +
	"- Kept the old API\n\n" +
	"1. Read the code\n" +
	"2. Write the fix\n" +
	"3. Run the tests\n\n" +
	"> Note: the old behaviour stays behind a flag,\n" +
	"> for one release.\n\n" +
	"| file | lines | status |\n" +
	"| --- | ---: | --- |\n" +
	"| parser.go | 120 | changed |\n" +
	"| lexer.go | 48 | new |\n\n" +
	"See [the ACP overview](https://agentclientprotocol.com/protocol/overview) for the protocol.\n\n" +
	"```go\n" +
	"// nextToken splits s at its first space.\n" +
	"func nextToken(s string) (tok, rest string) {\n" +
	"\ti := strings.IndexByte(s, ' ')\n" +
	"\tif i < 0 {\n" +
	"\t\treturn s, \"\"\n" +
	"\t}\n" +
	"\treturn s[:i], s[i+1:]\n" +
	"}\n" +
	"```\n\n" +
	"### Next\n\n" +
	"Nothing else is ~~broken~~ known to be broken. *Done.*\n"

// markdown streams MarkdownReply in chunks of a few lines, as an agent
// streams its reply.
func (t *turnRun) markdown(string) (acp.StopReason, error) {
	lines := strings.SplitAfter(MarkdownReply, "\n")
	for i := 0; i < len(lines); i += 3 {
		if err := t.say(strings.Join(lines[i:min(i+3, len(lines))], "")); err != nil {
			return "", err
		}
	}
	return t.stopReason(), nil
}

// cwd is the session's folder, for the paths of tool calls.
func (t *turnRun) cwd() string {
	ss, _ := t.a.store.get(t.sid)
	return ss.Cwd
}

// The edit-diff command's files: parser.go changed, lexer.go new.
const (
	diffOldParser = "package parser\n\nfunc Parse(s string) []string {\n\treturn strings.Fields(s)\n}\n"
	diffNewParser = "package parser\n\n// Parse splits s into tokens.\nfunc Parse(s string) []string {\n\treturn tokens(s)\n}\n"
	diffNewLexer  = "package parser\n\nfunc tokens(s string) []string {\n\treturn strings.Fields(s)\n}\n"
)

// steps sends updates in order.
func (t *turnRun) steps(updates ...acp.SessionUpdate) error {
	for _, u := range updates {
		if err := t.send(u); err != nil {
			return err
		}
	}
	return nil
}

// editDiff is a completed edit: tool_call "Edit parser.go" (kind edit,
// pending, at parser.go:3), in_progress, then completed with two diffs:
// parser.go changed and lexer.go new (no oldText).
func (t *turnRun) editDiff(string) (acp.StopReason, error) {
	id := t.nextToolCallID()
	parser, lexer := filepath.Join(t.cwd(), "parser.go"), filepath.Join(t.cwd(), "lexer.go")
	err := t.steps(
		acp.StartToolCall(id, "Edit parser.go", acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending),
			acp.WithStartLocations([]acp.ToolCallLocation{{Path: parser, Line: acp.Ptr(3)}})),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted), acp.WithUpdateContent([]acp.ToolCallContent{
			acp.ToolDiffContent(parser, diffNewParser, diffOldParser),
			acp.ToolDiffContent(lexer, diffNewLexer),
		})),
	)
	if err != nil {
		return "", err
	}
	return t.stopReason(), t.say("edited parser.go and lexer.go")
}

// ExecuteLines is how many lines the execute command's output has.
const ExecuteLines = 40

// execute is a command run: tool_call "Run go test ./..." (kind execute,
// pending), in_progress, then completed with ExecuteLines lines of output
// as a text content; failed, with an error's output, when fail is set.
func (t *turnRun) execute(fail bool) (acp.StopReason, error) {
	id := t.nextToolCallID()
	var out strings.Builder
	for i := 1; i <= ExecuteLines; i++ {
		fmt.Fprintf(&out, "=== RUN   TestParse%02d\n--- PASS: TestParse%02d (0.00s)\n", i, i)
	}
	out.WriteString("PASS\nok  \texample.com/parser\t0.012s\n")
	status, title := acp.ToolCallStatusCompleted, "Run go test ./..."
	if fail {
		out.Reset()
		out.WriteString("# example.com/parser\n./parser.go:5:9: undefined: tokens\nFAIL\texample.com/parser [build failed]\n")
		status, title = acp.ToolCallStatusFailed, "Run go build ./..."
	}
	err := t.steps(
		acp.StartToolCall(id, title, acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(status),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(out.String()))})),
	)
	if err != nil {
		return "", err
	}
	return t.stopReason(), nil
}

// planFull is a plan of three entries, each of another status and
// priority.
func (t *turnRun) planFull(string) (acp.StopReason, error) {
	return t.stopReason(), t.send(acp.UpdatePlan(
		acp.PlanEntry{Content: "Read the code", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusCompleted},
		acp.PlanEntry{Content: "Write the fix", Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatusInProgress},
		acp.PlanEntry{Content: "Run the tests", Priority: acp.PlanEntryPriorityLow, Status: acp.PlanEntryStatusPending},
	))
}

// thoughts are two thought chunks of one thought over several lines, then
// the reply "thought it through".
func (t *turnRun) thoughts(string) (acp.StopReason, error) {
	err := t.steps(
		acp.UpdateAgentThoughtText("The tokenizer splits on spaces only.\nTabs would be "),
		acp.UpdateAgentThoughtText("missed: use strings.Fields.\n"),
	)
	if err != nil {
		return "", err
	}
	return t.stopReason(), t.say("thought it through")
}

// FakeCommands are the slash commands the agent offers with the commands
// command, and after every session setup with ACPMUX_FAKE_COMMANDS=1.
var FakeCommands = []acp.AvailableCommand{
	{Name: "review", Description: "Review the changes of this chat"},
	{Name: "test", Description: "Run the tests", Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "package pattern"}}},
	{Name: "explain", Description: "Explain a piece of code", Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "what to explain"}}},
}

// commandsUpdate is an available_commands_update of cmds.
func commandsUpdate(cmds []acp.AvailableCommand) acp.SessionUpdate {
	return acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{
		SessionUpdate: "available_commands_update", AvailableCommands: cmds}}
}

// commands sends FakeCommands again, then "commands: sent".
func (t *turnRun) commands(string) (acp.StopReason, error) {
	if err := t.send(commandsUpdate(FakeCommands)); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("commands: sent")
}

// commandsWithdraw sends an empty available_commands_update, then
// "commands: withdrawn".
func (t *turnRun) commandsWithdraw(string) (acp.StopReason, error) {
	if err := t.send(commandsUpdate([]acp.AvailableCommand{})); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("commands: withdrawn")
}

// offerCommands sends FakeCommands once a session is set up, as agents
// do, with ACPMUX_FAKE_COMMANDS=1. It runs beside the answer, so it may
// reach the client just before or just after it.
func (a *fakeAgent) offerCommands(sid string) {
	if !a.cfg.commands {
		return
	}
	go func() {
		if err := a.update(context.Background(), sid, commandsUpdate(FakeCommands)); err != nil {
			logf("acpfake: available_commands_update: %v", err)
		}
	}()
}

// permissionEdit asks before an edit and shows its diff: tool_call "Edit
// main.go" (kind edit, pending, with the diff), then
// session/request_permission carrying the kind and the diff, then the
// call completed (allowed) or failed, and "permission: <optionId>" or
// "permission: cancelled".
func (t *turnRun) permissionEdit(string) (acp.StopReason, error) {
	path := filepath.Join(t.cwd(), "main.go")
	diff := []acp.ToolCallContent{acp.ToolDiffContent(path, "package main\n\nfunc main() { run() }\n", "package main\n\nfunc main() {}\n")}
	return t.askEdit("Edit main.go", diff, false)
}

// Hostile text inside content: OSC 52, CSI, a right-to-left override and
// isolate, C1 controls, BEL and backspace.
const hostileText = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202eevil\u2066\u009b31m\a\b"

// hostileDiff is a completed edit whose content is full of escapes: a diff
// (path, old and new text), a text and a terminal id, each with
// hostileText inside; then "hostile: sent".
func (t *turnRun) hostileDiff(string) (acp.StopReason, error) {
	id := t.nextToolCallID()
	path := filepath.Join(t.cwd(), "x"+hostileText+".go")
	err := t.steps(
		acp.StartToolCall(id, "Edit "+hostileText, acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted), acp.WithUpdateContent([]acp.ToolCallContent{
			acp.ToolDiffContent(path, "new "+hostileText+"\nline\ttab\n", "old "+hostileText+"\n"),
			acp.ToolContent(acp.TextBlock("out " + hostileText + "\n")),
			acp.ToolTerminalRef("term" + hostileText),
		})),
	)
	if err != nil {
		return "", err
	}
	return t.stopReason(), t.say("hostile: sent")
}

// hostileCommands offers commands some of which break the rules: a name
// with an escape, one with a space, an empty one, one listed twice, and a
// description and hint full of escapes; then "commands: sent".
func (t *turnRun) hostileCommands(string) (acp.StopReason, error) {
	cmds := []acp.AvailableCommand{
		{Name: "ok", Description: "fine " + hostileText, Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "hint\n" + hostileText}}},
		{Name: "bad\x1b[31m", Description: "an escape in the name"},
		{Name: "two words", Description: "a space in the name"},
		{Name: "", Description: "no name"},
		{Name: "ok", Description: "listed twice"},
		{Name: "rtl\u202e", Description: "a bidi control in the name"},
	}
	if err := t.send(commandsUpdate(cmds)); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("commands: sent")
}

// bigChunk is the size of one chunk of the big commands.
const bigChunk = 64 << 10

// bigMessage is an agent message of N bytes (arg; at most maxBig) in
// chunks of bigChunk, lines of 64 bytes; the history keeps its size only.
func (t *turnRun) bigMessage(arg string) (acp.StopReason, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 || n > maxBig {
		return t.stopReason(), t.say("big-message: give N, 1 to " + strconv.Itoa(maxBig))
	}
	line := strings.Repeat("m", 63) + "\n"
	chunk := strings.Repeat(line, bigChunk/len(line))
	for sent := 0; sent < n; {
		c := chunk[:min(len(chunk), n-sent)]
		if err := t.send(acp.UpdateAgentMessageText(c)); err != nil {
			return "", err
		}
		sent += len(c)
	}
	t.reply.WriteString(fmt.Sprintf("[big message of %d bytes]", n))
	return t.stopReason(), nil
}

// bigDiff is a completed edit whose diff's new text is N bytes (arg; at
// most 3 MiB, so the message stays under an agent's 8 MiB bound) and old
// text one line; then "big-diff: sent".
func (t *turnRun) bigDiff(arg string) (acp.StopReason, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 || n > 3<<20 {
		return t.stopReason(), t.say("big-diff: give N, 1 to " + strconv.Itoa(3<<20))
	}
	id := t.nextToolCallID()
	text := strings.Repeat(strings.Repeat("d", 63)+"\n", n/64+1)[:n]
	err = t.steps(
		acp.StartToolCall(id, "Edit big.txt", acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted), acp.WithUpdateContent([]acp.ToolCallContent{
			acp.ToolDiffContent(filepath.Join(t.cwd(), "big.txt"), text, "small\n"),
		})),
	)
	if err != nil {
		return "", err
	}
	return t.stopReason(), t.say("big-diff: sent")
}

// terminalContent is a completed execute call whose content is a terminal
// by its id (arg, "term-1" when none): what an agent that runs commands
// in the client's terminals sends; then "terminal-content: sent".
func (t *turnRun) terminalContent(arg string) (acp.StopReason, error) {
	if arg == "" {
		arg = "term-1"
	}
	id := t.nextToolCallID()
	err := t.steps(
		acp.StartToolCall(id, "Run make", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress),
			acp.WithStartContent([]acp.ToolCallContent{acp.ToolTerminalRef(arg)})),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted)),
	)
	if err != nil {
		return "", err
	}
	return t.stopReason(), t.say("terminal-content: sent")
}
