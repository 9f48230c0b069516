package main

import (
	"os"

	"github.com/coder/acp-go-sdk"
)

// Hostile text of the osc command: OSC 52 (set the clipboard), OSC 0 (set
// the window title), CSI (clear the screen, colours, conceal), C1 controls
// as code points (CSI U+009B, OSC U+009D, ST U+009C), BEL, CR and BS.
const (
	oscClipboard = "\x1b]52;c;cHduZWQ=\x07"          // OSC 52: clipboard := "pwned"
	oscTitle     = "\x1b]0;pwned\x1b\\"              // OSC 0 ended by ST
	csiClear     = "\x1b[2J\x1b[H"                   // ED 2, CUP
	c1Sequences  = "\u009b31m\u009d0;c1 title\u009c" // C1 CSI, C1 OSC ... C1 ST
)

// osc sends text full of escape sequences and control characters through
// every way an agent has to put text before the user: message chunks (one
// sequence split across two chunks), a thought, a tool call title and
// status update, a plan, a permission request's title and option names,
// and a line on stderr. It replies "osc: <answer>" and ends the turn.
func init() {
	attacks["osc"] = func(t *turnRun, _ string) (acp.StopReason, error) {
		// A raw C1 byte (0x9b) on stderr, which is not even UTF-8.
		_, _ = os.Stderr.WriteString("acpfake: osc on stderr " + oscTitle + "\x1b[31mred\x1b[0m \x9b2J\a\r\n")
		updates := []acp.SessionUpdate{
			acp.UpdateAgentMessageText("before " + oscClipboard + " middle " + oscTitle + csiClear),
			acp.UpdateAgentMessageText(c1Sequences + " bell\a back\b cr\r split \x1b]52;c;"),
			acp.UpdateAgentMessageText("cHduZWQ=\x07 after\n"),
			acp.UpdateAgentThoughtText("hidden " + "\x1b[8m" + "concealed" + oscTitle),
		}
		id := t.nextToolCallID()
		updates = append(updates,
			acp.StartToolCall(id, "Run "+oscTitle+"\x1b[31mrm\x1b[0m"+c1Sequences,
				acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending)),
			acp.UpdateToolCall(id, acp.WithUpdateTitle("Ran "+oscClipboard+"rm")),
			acp.UpdatePlan(acp.PlanEntry{Content: "Step " + oscClipboard + csiClear + "one",
				Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusPending}),
		)
		for _, u := range updates {
			if err := t.send(u); err != nil {
				return "", err
			}
		}
		resp, err := t.a.conn.RequestPermission(t.ctx, acp.RequestPermissionRequest{
			SessionId: acp.SessionId(t.sid),
			ToolCall: acp.ToolCallUpdate{
				ToolCallId: id,
				Title:      acp.Ptr("Edit " + oscClipboard + oscTitle + "\x1b[1mmain.go\u009b0m\nsecond line"),
			},
			Options: []acp.PermissionOption{
				{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow" + oscTitle, OptionId: "allow_once"},
				{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject" + c1Sequences, OptionId: "reject_once"},
			},
		})
		if err != nil {
			return "", err
		}
		answer := "cancelled"
		if s := resp.Outcome.Selected; s != nil {
			answer = string(s.OptionId)
		}
		return t.stopReason(), t.say("osc: " + answer + csiClear + "\n")
	}
}
