package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/coder/acp-go-sdk"
)

// hugeLineBytes is the size of the text in the line the huge command writes:
// twice the SDK's 10 MiB line limit.
const hugeLineBytes = 20 << 20

// Prompt runs one turn: the echo, or the command on the prompt's last line.
func (a *fakeAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	ss, ok := a.store.get(string(p.SessionId))
	if !ok {
		return acp.PromptResponse{}, unknownSession(p.SessionId)
	}
	text := promptText(p.Prompt)
	logf("acpfake: session/prompt %s %q", ss.ID, lastLine(text))
	links := append(append([]string(nil), ss.Links...), promptLinks(p.Prompt)...)
	t := &turnRun{a: a, ctx: ctx, sid: ss.ID, links: links}
	stop, err := t.run(text)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if err := a.store.update(ss.ID, func(s *session) {
		s.History = append(s.History, turn{User: text, Agent: t.reply.String()})
		s.Links = links
	}); err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: stop}, nil
}

// promptText joins a prompt's text blocks with newlines; other blocks are
// ignored.
func promptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// promptLinks are a prompt's resource_link blocks, as session.Links keeps
// them.
func promptLinks(blocks []acp.ContentBlock) []string {
	var out []string
	for _, b := range blocks {
		if l := b.ResourceLink; l != nil {
			mt := "-"
			if l.MimeType != nil {
				mt = *l.MimeType
			}
			out = append(out, l.Name+" "+l.Uri+" "+mt)
		}
	}
	return out
}

func lastLine(text string) string {
	text = strings.TrimRight(text, "\r\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return strings.TrimSpace(text)
}

// turnRun is one prompt turn in progress.
type turnRun struct {
	a     *fakeAgent
	ctx   context.Context // cancelled by session/cancel
	sid   string
	reply strings.Builder // the agent's text, kept in the history
	links []string        // the session's resource links, this prompt's too
}

// send emits an update. Updates are sent even after session/cancel (the
// spec lets an agent flush pending updates), so they use a context that
// outlives the cancelled turn; a closed connection still ends them.
func (t *turnRun) send(u acp.SessionUpdate) error {
	return t.a.update(context.WithoutCancel(t.ctx), t.sid, u)
}

// say emits an agent_message_chunk and keeps it for the history.
func (t *turnRun) say(text string) error {
	t.reply.WriteString(text)
	return t.send(acp.UpdateAgentMessageText(text))
}

func (t *turnRun) stopReason() acp.StopReason {
	if t.ctx.Err() != nil {
		return acp.StopReasonCancelled
	}
	return acp.StopReasonEndTurn
}

// attacks are the hostile commands, each in a file of its own (attack_*.go):
// the prompt's last line is "NAME ARG", and the command runs with ARG.
var attacks = map[string]func(t *turnRun, arg string) (acp.StopReason, error){}

func (t *turnRun) run(text string) (acp.StopReason, error) {
	line := lastLine(text)
	cmd, arg, _ := strings.Cut(line, " ")
	echo := func() (acp.StopReason, error) {
		return t.stopReason(), t.say("echo: " + text)
	}
	if attack, ok := attacks[cmd]; ok {
		return attack(t, arg)
	}
	if show, ok := rich[cmd]; ok {
		return show(t, arg)
	}
	switch {
	case line == "permission":
		return t.permission(false)
	case line == "permission always":
		return t.permission(true)
	case line == "size":
		return t.stopReason(), t.say("size: " + strconv.Itoa(len(text)))
	case line == "links":
		return t.stopReason(), t.say("links: " + strings.Join(t.links, " | "))
	case cmd == "mode" && arg != "" && t.a.cfg.modes:
		return t.mode(arg)
	case cmd == "terminal" && arg != "":
		return t.terminal(arg)
	case cmd == "read" && arg != "":
		return t.read(arg)
	case cmd == "write" && arg != "":
		path, content, _ := strings.Cut(arg, " ")
		return t.write(path, content)
	case line == "tool":
		return t.tool()
	case cmd == "tool-at" && arg != "":
		return t.toolAt(arg)
	case cmd == "title" && arg != "":
		return t.title(arg)
	case cmd == "usage" && arg != "":
		return t.usage(arg)
	case line == "plan":
		return t.stopReason(), t.send(acp.UpdatePlan(
			acp.PlanEntry{Content: "Read the code", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusCompleted},
			acp.PlanEntry{Content: "Write the fix", Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatusInProgress},
		))
	case line == "think":
		if err := t.send(acp.UpdateAgentThoughtText("pondering")); err != nil {
			return "", err
		}
		return echo()
	case line == "slow":
		if err := t.say("working slowly"); err != nil {
			return "", err
		}
		<-t.ctx.Done()
		return acp.StopReasonCancelled, nil
	case line == "crash":
		if err := t.say("about to crash"); err != nil {
			return "", err
		}
		logf("acpfake: crashing mid-turn as asked")
		os.Exit(3)
	case line == "garbage":
		if err := t.a.out.writeRaw([]byte("this is not JSON {{{\n")); err != nil {
			return "", err
		}
		return echo()
	case line == "huge":
		if err := t.a.out.writeRaw(hugeLine(t.sid)); err != nil {
			return "", err
		}
		return echo()
	}
	return echo()
}

// title sends a session_info_update with the title text, read as the body
// of a Go string when it is one (so "\x1b" and "\u202e" can be written in
// a prompt), else as it is; then "title: set".
func (t *turnRun) title(text string) (acp.StopReason, error) {
	if s, err := strconv.Unquote(`"` + text + `"`); err == nil {
		text = s
	}
	if err := t.send(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: &text}}); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("title: set")
}

// usage sends a usage_update from "USED SIZE [AMOUNT CURRENCY]" as it
// is, absurd or not, then "usage: sent"; arguments it cannot read are
// said instead.
func (t *turnRun) usage(arg string) (acp.StopReason, error) {
	f := strings.Fields(arg)
	bad := func() (acp.StopReason, error) { return t.stopReason(), t.say("usage: bad arguments " + arg) }
	if len(f) != 2 && len(f) != 4 {
		return bad()
	}
	used, err1 := strconv.Atoi(f[0])
	size, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return bad()
	}
	u := &acp.SessionUsageUpdate{SessionUpdate: "usage_update", Used: used, Size: size}
	if len(f) == 4 {
		amount, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return bad()
		}
		u.Cost = &acp.Cost{Amount: amount, Currency: f[3]}
	}
	if err := t.send(acp.SessionUpdate{UsageUpdate: u}); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("usage: sent")
}

// hugeLine is one session/update message far over the SDK's line limit.
func hugeLine(sid string) []byte {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`, sid)
	tail := `"}}}}` + "\n"
	b := make([]byte, 0, len(head)+hugeLineBytes+len(tail))
	b = append(b, head...)
	b = append(b, strings.Repeat("x", hugeLineBytes)...)
	return append(b, tail...)
}

func (t *turnRun) nextToolCallID() acp.ToolCallId {
	return acp.ToolCallId(fmt.Sprintf("call-%d", t.a.toolCalls.Add(1)))
}

// permissionOptions are what permission offers: allow and reject once,
// and with always, allow always too.
func permissionOptions(always bool) []acp.PermissionOption {
	o := []acp.PermissionOption{
		{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow_once"},
		{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject_once"},
	}
	if always {
		o = append(o, acp.PermissionOption{Kind: acp.PermissionOptionKindAllowAlways, Name: "Always allow", OptionId: "allow_always"})
	}
	return o
}

// permission asks the client before a fake edit. The request does not end
// with session/cancel: the client must answer it (with the cancelled
// outcome after a cancel), as the spec requires.
func (t *turnRun) permission(always bool) (acp.StopReason, error) {
	return t.askEdit("Fake tool", nil, always)
}

// askEdit starts a pending edit tool call titled title with content,
// asks the client's permission for it, ends the call completed (allowed
// once) or failed, and says "permission: <optionId>" or "permission:
// cancelled".
func (t *turnRun) askEdit(title string, content []acp.ToolCallContent, always bool) (acp.StopReason, error) {
	id := t.nextToolCallID()
	opts := []acp.ToolCallStartOpt{acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending)}
	if content != nil {
		opts = append(opts, acp.WithStartContent(content))
	}
	if err := t.send(acp.StartToolCall(id, title, opts...)); err != nil {
		return "", err
	}
	resp, err := t.a.conn.RequestPermission(context.WithoutCancel(t.ctx), acp.RequestPermissionRequest{
		SessionId: acp.SessionId(t.sid),
		ToolCall: acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(title), Kind: acp.Ptr(acp.ToolKindEdit),
			Status: acp.Ptr(acp.ToolCallStatusPending), Content: content},
		Options: permissionOptions(always),
	})
	if err != nil {
		return "", err
	}
	answer, status := "cancelled", acp.ToolCallStatusFailed
	if s := resp.Outcome.Selected; s != nil {
		answer = string(s.OptionId)
		if s.OptionId == "allow_once" {
			status = acp.ToolCallStatusCompleted
		}
	}
	if err := t.send(acp.UpdateToolCall(id, acp.WithUpdateStatus(status))); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("permission: " + answer)
}

func (t *turnRun) read(path string) (acp.StopReason, error) {
	resp, err := t.a.conn.ReadTextFile(t.ctx, acp.ReadTextFileRequest{SessionId: acp.SessionId(t.sid), Path: path})
	if err != nil {
		return t.stopReason(), t.say("read error: " + errorText(err))
	}
	return t.stopReason(), t.say("read: " + resp.Content)
}

func (t *turnRun) write(path, content string) (acp.StopReason, error) {
	_, err := t.a.conn.WriteTextFile(t.ctx, acp.WriteTextFileRequest{SessionId: acp.SessionId(t.sid), Path: path, Content: content})
	if err != nil {
		return t.stopReason(), t.say("write error: " + errorText(err))
	}
	return t.stopReason(), t.say("wrote")
}

// errorText is a client's error as a reply shows it: the message, then the
// data if any.
func errorText(err error) string {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	if re.Data == nil {
		return re.Message
	}
	data, _ := json.Marshal(re.Data)
	return re.Message + " " + string(data)
}

func (t *turnRun) tool() (acp.StopReason, error) {
	id := t.nextToolCallID()
	steps := []acp.SessionUpdate{
		acp.StartToolCall(id, "Fake tool", acp.WithStartKind(acp.ToolKindOther), acp.WithStartStatus(acp.ToolCallStatusPending)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress)),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("fake tool output"))})),
	}
	for _, u := range steps {
		if err := t.send(u); err != nil {
			return "", err
		}
	}
	return t.stopReason(), nil
}

// toolAt is a tool call at a place: tool_call "Fake tool" pending with the
// location PATH, line LINE, then tool_call_update completed that moves it
// to line LINE+1 (arg is "PATH LINE"; PATH may have spaces).
func (t *turnRun) toolAt(arg string) (acp.StopReason, error) {
	sp := strings.LastIndexByte(arg, ' ')
	if sp < 0 {
		return t.stopReason(), t.say("tool-at: give PATH LINE")
	}
	path, lineText := arg[:sp], arg[sp+1:]
	line, err := strconv.Atoi(lineText)
	if err != nil {
		return t.stopReason(), t.say("tool-at: bad line " + lineText)
	}
	id := t.nextToolCallID()
	steps := []acp.SessionUpdate{
		acp.StartToolCall(id, "Fake tool", acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending),
			acp.WithStartLocations([]acp.ToolCallLocation{{Path: path, Line: acp.Ptr(line)}})),
		acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
			acp.WithUpdateLocations([]acp.ToolCallLocation{{Path: path, Line: acp.Ptr(line + 1)}})),
	}
	for _, u := range steps {
		if err := t.send(u); err != nil {
			return "", err
		}
	}
	return t.stopReason(), nil
}
