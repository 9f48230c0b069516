package mux

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/internal/await"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// PermissionPolicy answers permission requests without asking (the prompt
// command refuses them all). It returns the option id, or "" to cancel. An
// agent may ask several at once, so it may be called from several
// goroutines at a time.
type PermissionPolicy func(proto.Permission) string

// maxPendingPermissions bounds the permission requests that wait at once;
// an agent that asks more at a time has the rest cancelled.
const maxPendingPermissions = 256

// permissionCard is one permission request waiting for the user. A chat's
// waiting requests form a queue in the order they came: acpChat.card is its
// head, the card shown, and each card links to the one asked after it.
type permissionCard struct {
	proto.Permission
	answer chan string
	next   *permissionCard
}

// queueCardLocked puts card at the end of the chat's queue; false when the
// queue is full.
func (c *acpChat) queueCardLocked(card *permissionCard) bool {
	n := 0
	link := &c.card
	for *link != nil {
		link = &(*link).next
		n++
	}
	if n >= maxPendingPermissions {
		return false
	}
	*link = card
	c.countCardsLocked()
	return true
}

// dropCardLocked takes card out of the queue, wherever it is.
func (c *acpChat) dropCardLocked(card *permissionCard) {
	for link := &c.card; *link != nil; link = &(*link).next {
		if *link == card {
			*link = card.next
			card.next = nil
			break
		}
	}
	c.countCardsLocked()
}

// takeCardsLocked empties the queue and returns what was in it.
func (c *acpChat) takeCardsLocked() []*permissionCard {
	var cards []*permissionCard
	for k := c.card; k != nil; {
		next := k.next
		k.next = nil
		cards = append(cards, k)
		k = next
	}
	c.card = nil
	return cards
}

// countCardsLocked records the queue's length on its head, the card that
// State reports, and the status it means: asking while a request waits.
func (c *acpChat) countCardsLocked() {
	n := 0
	for k := c.card; k != nil; k = k.next {
		n++
	}
	if c.card != nil {
		c.card.Pending = n
	}
	switch {
	case c.card != nil && c.proc != nil:
		c.setStatusLocked(proto.StatusAsking)
	case c.card == nil && c.state.Status == proto.StatusAsking && c.state.TurnActive:
		c.setStatusLocked(proto.StatusRunning)
	case c.card == nil && c.state.Status == proto.StatusAsking:
		c.setStatusLocked(proto.StatusWaiting)
	}
}

// RefuseAll is the PermissionPolicy of `acpmux-tui prompt`: the first reject
// option, or a cancelled outcome when the agent offers none.
func RefuseAll(p proto.Permission) string {
	for _, o := range p.Options {
		if strings.HasPrefix(o.Kind, "reject") {
			return o.ID
		}
	}
	return ""
}

// turnThen hears how a turn ended.
type turnThen func(acp.StopReason, error)

// waitTurn starts a turn with start and waits for its end.
func waitTurn(ctx context.Context, start func(turnThen)) (acp.StopReason, error) {
	return await.Result(func(done func(acp.StopReason, error)) {
		start(done)
		agent.Waiting(ctx)
	})
}

// promptThen runs one turn: a resource_link block per single file the
// conversation has not been given, the folder note when it is due, the
// user's text, a resource_link block per file the prompt links. It returns
// once the prompt is on its way to the agent (or refused), and then hears
// the end, once, on the goroutine that read the agent's answer, which
// must not wait (or on this one, for a turn that never started). The turn
// leaves one mark in the transcript when it ends other than normally (see
// transcript.endTurn).
func (c *acpChat) promptThen(ctx context.Context, text string, links []proto.Link, then turnThen) {
	p, err := c.ready(ctx)
	if err != nil {
		then("", err)
		return
	}
	// A chat's capsule is its first turn: a prompt waits for it to end.
	if err := agent.Await(ctx, p.capsuleTurn); err != nil {
		then("", err)
		return
	}
	c.turnThen(ctx, p, text, links, then)
}

// turn runs one turn with text and links on the set-up process p.
func (c *acpChat) turn(ctx context.Context, p *acpProcess, text string, links ...proto.Link) (acp.StopReason, error) {
	return waitTurn(ctx, func(then turnThen) { c.turnThen(ctx, p, text, links, then) })
}

// turnThen is turn without waiting for its end (promptThen).
func (c *acpChat) turnThen(ctx context.Context, p *acpProcess, text string, links []proto.Link, then turnThen) {
	c.mu.Lock()
	if c.proc != p {
		// It ended while this prompt waited for the capsule's turn.
		c.mu.Unlock()
		then("", errors.New("the agent exited before the prompt was sent: send it again"))
		return
	}
	if c.state.TurnActive {
		c.mu.Unlock()
		then("", errors.New("a turn is already running: wait for it or cancel it"))
		return
	}
	blocks := []acp.ContentBlock{}
	due := c.linksDueLocked(p)
	for _, f := range due {
		blocks = append(blocks, agent.FileLink(f))
	}
	c.linked, c.linkedKnown = append([]string{}, p.files...), true
	told := len(due) > 0
	if p.noteDue {
		blocks = append(blocks, acp.TextBlock(agent.FolderNote(p.folders)))
		p.noteDue, told = false, true
	}
	if told && !p.reloads {
		c.appliedLocked(p.folders, p.files) // a change, told by this prompt
	}
	blocks = append(blocks, acp.TextBlock(text))
	blocks = append(blocks, agent.LinkBlocks(links)...)
	turnCtx, cancel := context.WithCancel(ctx)
	p.turnCancel = cancel
	c.state.TurnActive, c.state.Unread = true, false
	c.setStatusLocked(proto.StatusRunning)
	c.log.StartTurn(text, links...)
	c.mu.Unlock()
	c.m.notify(c)

	p.conn.PromptThen(turnCtx, acp.PromptRequest{SessionId: p.sessionID, Prompt: blocks}, func(resp acp.PromptResponse, err error) {
		cancel()
		if err != nil {
			// Explaining an error may wait for the agent's exit (its
			// status, its last stderr lines): not on the agent's reader.
			go func() { c.turnEnded(p, resp, c.explain("session/prompt", err, nil), then) }()
			return
		}
		c.turnEnded(p, resp, nil, then)
	})
}

// turnEnded records the end of a turn on p and tells then.
func (c *acpChat) turnEnded(p *acpProcess, resp acp.PromptResponse, err error, then turnThen) {
	c.mu.Lock()
	if c.proc == p {
		c.state.TurnActive = false
		c.setStatusLocked(proto.StatusWaiting)
		c.turnEndedLocked()
	}
	c.log.EndTurn(string(resp.StopReason), err)
	c.mu.Unlock()
	c.m.notify(c)
	if err != nil {
		then("", err)
		return
	}
	then(resp.StopReason, nil)
}

// cancelTurn sends session/cancel for the running turn. Every permission
// request waiting is then answered "cancelled", as the spec asks, and so is
// any the agent sends until the turn ends.
func (c *acpChat) cancelTurn() error {
	c.mu.Lock()
	p := c.proc
	active := c.state.TurnActive
	var cards []*permissionCard
	if p != nil && active {
		c.log.Cancel()
		cards = c.takeCardsLocked()
	}
	c.mu.Unlock()
	if p == nil || !active {
		return nil
	}
	// session/cancel goes on the wire before the answers: an agent that
	// reads them in order knows the turn is cancelled by the time its
	// permission requests come back, and ends it "cancelled" rather than
	// finishing it as if the user had refused.
	err := p.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: p.sessionID})
	for _, card := range cards {
		select {
		case card.answer <- "":
		default:
		}
	}
	c.m.notify(c)
	return err
}

// stderrTap passes an agent's stderr, a line at a time and cleaned, to the
// chat's observer as EntryStderr entries (the prompt command shows them);
// without an observer the lines are dropped. The log gets them through
// logWriter.
type stderrTap struct {
	chat *acpChat
	mu   sync.Mutex
	buf  []byte
}

// maxStderrLine is where a line with no newline is cut.
const maxStderrLine = 64 * 1024

func (w *stderrTap) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxStderrLine {
		w.emit(string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *stderrTap) emit(line string) {
	c := w.chat
	c.mu.Lock()
	observer := c.observer
	c.mu.Unlock()
	if observer != nil {
		observer(proto.Entry{Kind: proto.EntryStderr, Text: plaintext.Clean(line), At: time.Now()})
	}
}
