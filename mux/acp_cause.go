package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	acp "github.com/coder/acp-go-sdk"
)

// lingerGrace is how long an agent whose output has ended may take to exit
// before it is stopped: its connection is gone, so it can do no more.
const lingerGrace = 5 * time.Second

// connectionFailed reports whether err is the SDK's word that the
// connection to p's agent broke, not an answer from the agent.
func (p *acpProcess) connectionFailed(err error) bool {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return false
	}
	detail := agent.SDKDetail(re)
	switch {
	case detail == "":
		return false
	case re.Code == -32603 && strings.HasPrefix(detail, "peer disconnected"):
		return p.broken() // else an agent's own error that reads the same
	case re.Code == -32603 && p.conn.WriteFailed():
		return true
	}
	// The process's own context ends when it has exited.
	return p.ctx.Err() != nil && (re.Code == -32800 || re.Code == -32603) &&
		(detail == context.Canceled.Error() || detail == context.DeadlineExceeded.Error())
}

// cause says why p's connection ended, phase naming the step. It waits for
// the agent to exit, to give its status; lingerGrace after its output ended
// it is stopped, so the wait is bounded.
func (p *acpProcess) cause(phase string) string {
	if b, ok := p.conn.Bad(); ok {
		return b.In(phase)
	}
	wait := time.NewTimer(lingerGrace + 10*time.Second)
	defer wait.Stop()
	select {
	case <-p.exited:
	case <-wait.C:
		if p.conn.WriteFailed() {
			return "agent stopped reading its input " + phase
		}
		return "the connection to the agent failed " + phase
	}
	if b, ok := p.conn.Bad(); ok {
		return b.In(phase)
	}
	switch {
	case p.connGaveUp.Load():
		// Not the agent's doing: the SDK closed the connection (it logged why).
		return "the ACP connection gave up on the agent " + phase + " (see the log); the agent was stopped"
	case p.lingered.Load() && p.exitSignaled:
		return "agent closed its output " + phase + " but did not exit; it was stopped"
	}
	return "agent " + p.exitHow + " " + phase
}

// withStderr adds the agent's last stderr lines to msg.
func (p *acpProcess) withStderr(msg string) string {
	lines := p.stderr.LastLines()
	if len(lines) == 0 {
		return msg
	}
	return msg + "\nthe agent's last stderr lines:\n  " + strings.Join(lines, "\n  ")
}

// explain turns an error from an ACP call into what the user should know,
// for the chat's process that most likely made it: the newest one whose
// connection has ended, else the newest.
func (c *acpChat) explain(step string, err error, methods []acp.AuthMethod) error {
	c.mu.Lock()
	var p *acpProcess
	for i := len(c.recent) - 1; i >= 0 && p == nil; i-- {
		if c.recent[i].broken() {
			p = c.recent[i]
		}
	}
	if p == nil && len(c.recent) > 0 {
		p = c.recent[len(c.recent)-1]
	}
	c.mu.Unlock()
	return c.explainProc(p, step, err, methods)
}

// explainProc turns an error from an ACP call to p into what the user
// should know: why the connection failed, with the agent's last stderr
// lines; how to log in for auth_required; else the agent's own refusal,
// code, message and data.
func (c *acpChat) explainProc(p *acpProcess, step string, err error, methods []acp.AuthMethod) error {
	if p != nil && p.connectionFailed(err) {
		return errors.New(p.withStderr(p.cause(agent.PhaseOf(step))))
	}
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return fmt.Errorf("%s: %w", step, err)
	}
	if re.Code == -32000 {
		var ways []string
		for _, m := range authMethodsOf(methods, err) {
			ways = append(ways, cleanOffer(agent.DescribeAuth(m))) // the agent's words: one line, no bidi
		}
		msg := "the agent needs you to log in first"
		if len(ways) > 0 {
			msg += ": " + strings.Join(ways, "; ") + " (`acpmux-tui sign-in " + c.id + "` offers them)"
		}
		return errors.New(agent.Sanitize(msg))
	}
	if d := agent.SDKDetail(re); d == context.Canceled.Error() || d == context.DeadlineExceeded.Error() {
		return fmt.Errorf("%s: gave up waiting for the agent: %s", step, d)
	}
	msg := fmt.Sprintf("%s: agent refused (%d): %s", step, re.Code, re.Message)
	if re.Data != nil {
		if data, err := json.Marshal(re.Data); err == nil {
			msg += " " + agent.Truncate(string(data), 500)
		}
	}
	return errors.New(agent.Sanitize(msg))
}

// broken reports whether p's connection has ended or a write to it failed.
func (p *acpProcess) broken() bool {
	select {
	case <-p.conn.Done():
		return true
	default:
		return p.conn.WriteFailed()
	}
}

// timedOut is the error for an agent that did not answer step in d.
func (p *acpProcess) timedOut(step string, d time.Duration) error {
	return &agent.TimeoutError{Msg: p.withStderr(fmt.Sprintf("agent did not answer %s within %s", step, agent.ShortDuration(d))), Init: step == "initialize"}
}

// badMessage reports whether the wire guard gave up on p's output.
func (p *acpProcess) badMessage() bool {
	_, bad := p.conn.Bad()
	return bad
}
