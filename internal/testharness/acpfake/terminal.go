package main

import (
	"context"
	"fmt"

	"github.com/coder/acp-go-sdk"
)

// terminal is the prompt command "terminal CWD": terminal/create of
// `echo hi` (in CWD, "-" for none), shown in an execute tool call "Run
// echo hi" (its content the terminal), then terminal/wait_for_exit,
// terminal/output and terminal/release on it, the call then completed;
// the reply is "terminal: OUTPUT exit N", or "terminal error: <msg>" at
// the first refusal.
func (t *turnRun) terminal(cwd string) (acp.StopReason, error) {
	ctx := context.WithoutCancel(t.ctx)
	sid := acp.SessionId(t.sid)
	req := acp.CreateTerminalRequest{SessionId: sid, Command: "echo", Args: []string{"hi"}}
	if cwd != "-" {
		req.Cwd = acp.Ptr(cwd)
	}
	fail := func(err error) (acp.StopReason, error) {
		return t.stopReason(), t.say("terminal error: " + errorText(err))
	}
	made, err := t.a.conn.CreateTerminal(ctx, req)
	if err != nil {
		return fail(err)
	}
	call := t.nextToolCallID()
	if err := t.send(acp.StartToolCall(call, "Run echo hi", acp.WithStartKind(acp.ToolKindExecute),
		acp.WithStartStatus(acp.ToolCallStatusInProgress),
		acp.WithStartContent([]acp.ToolCallContent{acp.ToolTerminalRef(made.TerminalId)}))); err != nil {
		return "", err
	}
	exit, err := t.a.conn.WaitForTerminalExit(ctx, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: made.TerminalId})
	if err != nil {
		return fail(err)
	}
	out, err := t.a.conn.TerminalOutput(ctx, acp.TerminalOutputRequest{SessionId: sid, TerminalId: made.TerminalId})
	if err != nil {
		return fail(err)
	}
	if _, err := t.a.conn.ReleaseTerminal(ctx, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: made.TerminalId}); err != nil {
		return fail(err)
	}
	if err := t.send(acp.UpdateToolCall(call, acp.WithUpdateStatus(acp.ToolCallStatusCompleted))); err != nil {
		return "", err
	}
	code := -1
	if exit.ExitCode != nil {
		code = *exit.ExitCode
	}
	return t.stopReason(), t.say(fmt.Sprintf("terminal: %s exit %d", out.Output, code))
}
