package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/acp-go-sdk"
)

// maxPerms bounds the perms command's count.
const maxPerms = 1000

// perms N announces N tool calls ("Tool 1" to "Tool N"), then asks
// session/request_permission for all of them at once and waits for every
// answer: a client that shows one card at a time and loses the rest hangs
// here. The reply names each answer in order:
// "perms: Tool 1=allow_once; Tool 2=cancelled; ...". Like the permission
// command, the requests outlive session/cancel: the client must answer them.
func init() {
	attacks["perms"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > maxPerms {
			return "", fmt.Errorf("perms: want a count from 1 to %d, got %q", maxPerms, arg)
		}
		ids := make([]acp.ToolCallId, n)
		for i := range ids {
			ids[i] = t.nextToolCallID()
			if err := t.send(acp.StartToolCall(ids[i], permsTitle(i),
				acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending))); err != nil {
				return "", err
			}
		}
		answers := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i], errs[i] = t.askPermission(ids[i], permsTitle(i))
			}()
		}
		wg.Wait()
		parts := make([]string, n)
		for i := range ids {
			if errs[i] != nil {
				return "", fmt.Errorf("perms: %s: %w", permsTitle(i), errs[i])
			}
			parts[i] = permsTitle(i) + "=" + answers[i]
		}
		logf("acpfake: perms: %d answered", n)
		return t.stopReason(), t.say("perms: " + strings.Join(parts, "; "))
	}
}

// permsTitle is the title of the perms command's i-th tool call (from 0).
func permsTitle(i int) string { return fmt.Sprintf("Tool %d", i+1) }

// askPermission asks the client about tool call id (allow_once "Allow",
// reject_once "Reject"), marks the tool call completed or failed by the
// answer, and returns the option id or "cancelled".
func (t *turnRun) askPermission(id acp.ToolCallId, title string) (string, error) {
	resp, err := t.a.conn.RequestPermission(context.WithoutCancel(t.ctx), acp.RequestPermissionRequest{
		SessionId: acp.SessionId(t.sid),
		ToolCall: acp.ToolCallUpdate{
			ToolCallId: id,
			Title:      acp.Ptr(title),
			Kind:       acp.Ptr(acp.ToolKindEdit),
			Status:     acp.Ptr(acp.ToolCallStatusPending),
		},
		Options: []acp.PermissionOption{
			{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow_once"},
			{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject_once"},
		},
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
	return answer, t.send(acp.UpdateToolCall(id, acp.WithUpdateStatus(status)))
}
