package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/proto"

	"github.com/acpmux/acpmux-tui/acp"
	sdk "github.com/coder/acp-go-sdk"
)

// This file is the server's part in the door's modes, options and
// forwarded requests: the mux tells a chat's feed when its agent's modes or
// options change, and the feed marks it in the stream of every door client
// of the chat, which the door turns into current_mode_update and
// config_option_update; and the mux hands the feed the agent's fs/* and
// terminal/* requests (already checked against the chat's roots), which go
// to the door client that prompted the running turn when it serves them.

// DefaultForwardTimeout is how long a door client has to answer a request
// forwarded to it before the server serves it itself.
const DefaultForwardTimeout = 30 * time.Second

// maxTerminals bounds the terminals one chat remembers the client of.
const maxTerminals = 256

// sessionConfigChanged is the mux's word that the chat's modes or options
// changed: every door client of the chat is to be told.
func (f *chatFeed) sessionConfigChanged() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c, w := range f.watchers {
		if c.door != nil {
			w.markConfig()
		}
	}
}

// markConfig puts the mark in the backlog unless one waits there already:
// the door sends the modes and options as they are when it sends the
// mark, so one is enough, and an agent that changes them without end
// cannot grow the backlog (the mark is never dropped).
func (w *watcher) markConfig() {
	w.mu.Lock()
	marked := slices.ContainsFunc(w.backlog, func(e proto.ObservedEntry) bool { return e.Kind == acp.EntrySessionConfig })
	w.mu.Unlock()
	if !marked {
		w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: acp.EntrySessionConfig, At: time.Now()}}, true)
	}
}

func (b *doorBackend) SessionConfig(id string) acp.SessionConfig {
	cfg := b.s.opt.Mux.SessionConfig(id)
	st := b.s.opt.Mux.State(id)
	return acp.SessionConfig{Modes: cfg.Modes, ConfigOptions: cfg.ConfigOptions, Title: st.Title, Usage: st.Usage, Commands: st.Commands}
}

// startsAgent readies a call that may start the chat's agent.
func (b *doorBackend) startsAgent(id string) *Error {
	if _, rpcErr := b.s.feedFor(id); rpcErr != nil {
		return rpcErr
	}
	if rpcErr := b.s.refuseWhenClosing(); rpcErr != nil {
		return rpcErr
	}
	b.s.track(id)
	return nil
}

func (b *doorBackend) SetMode(id, modeID string) error {
	if rpcErr := b.startsAgent(id); rpcErr != nil {
		return rpcErr
	}
	err := b.s.opt.Mux.SetMode(context.Background(), id, modeID)
	b.s.poke()
	return agentError(err)
}

func (b *doorBackend) SetConfigOption(id string, req sdk.SetSessionConfigOptionRequest) ([]sdk.SessionConfigOption, error) {
	if rpcErr := b.startsAgent(id); rpcErr != nil {
		return nil, rpcErr
	}
	opts, err := b.s.opt.Mux.SetConfigOption(context.Background(), id, req)
	b.s.poke()
	if err != nil {
		return nil, agentError(err)
	}
	return opts, nil
}

// agentError is the agent's own error answer as the door answers it (its
// code, message and data), or any other error as the server's.
func agentError(err error) error {
	if err == nil {
		return nil
	}
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return &acp.Error{Code: re.Code, Message: re.Message, Data: re.Data}
	}
	return failure(err)
}

// feedForwarder is a chat feed as the mux's Forwarder.
type feedForwarder struct{ f *chatFeed }

var _ agent.Forwarder = feedForwarder{}

// terminalID is the terminal a terminal request names ("" for create).
func terminalID(req any) string {
	switch r := req.(type) {
	case sdk.TerminalOutputRequest:
		return r.TerminalId
	case sdk.KillTerminalRequest:
		return r.TerminalId
	case sdk.ReleaseTerminalRequest:
		return r.TerminalId
	case sdk.WaitForTerminalExitRequest:
		return r.TerminalId
	}
	return ""
}

// target is the door client to ask method (req, when known) now: the
// one whose prompt runs the turn, or, for a terminal it made, that one;
// nil for none.
func (f *chatFeed) target(method string, req any) *conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	var c *conn
	switch method {
	case sdk.ClientMethodTerminalOutput, sdk.ClientMethodTerminalKill, sdk.ClientMethodTerminalRelease, sdk.ClientMethodTerminalWaitForExit:
		if req == nil {
			// Which terminal is not known yet: any client's will do, and
			// Forward looks it up.
			for _, t := range f.terminals {
				if t.door != nil && !isGone(t) && t.door.Serves(method) {
					return t
				}
			}
			return nil
		}
		c = f.terminals[terminalID(req)]
	default:
		if f.turn != nil {
			c = f.turn.owner
		}
	}
	if c == nil || c.door == nil || isGone(c) || !c.door.Serves(method) {
		return nil
	}
	return c
}

// Takes reports whether a door client would be asked method now.
func (ff feedForwarder) Takes(method string) bool { return ff.f.target(method, nil) != nil }

// Forward asks the door client the request is for, and waits for its
// answer as long as DefaultForwardTimeout (Options.ForwardTimeout) allows,
// but terminal/wait_for_exit, which waits for the terminal; a client that
// goes away or does not answer in time leaves the request to the mux.
func (ff feedForwarder) Forward(ctx context.Context, method string, req any) (json.RawMessage, error) {
	f := ff.f
	c := f.target(method, req)
	if c == nil {
		return nil, agent.NoTaker()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if method != sdk.ClientMethodTerminalWaitForExit {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, f.s.opt.ForwardTimeout, fmt.Errorf("no answer within %s", f.s.opt.ForwardTimeout))
		defer stop()
	}
	go func() {
		select {
		case <-c.gone:
			cancel(errors.New("the client went away"))
		case <-ctx.Done():
		}
	}()
	raw, err := c.door.Forward(ctx, f.id, method, req)
	if errors.Is(err, acp.ErrNoAnswer) {
		f.s.opt.Logger.Warn("a door client did not answer a forwarded request: the server serves it", "chat", f.id, "method", method, "err", err)
		return nil, fmt.Errorf("%w: %v", agent.ErrNotForwarded, err)
	}
	if err != nil {
		return nil, err
	}
	f.madeTerminal(method, req, raw, c)
	return raw, nil
}

// madeTerminal remembers which client made a terminal, and forgets one
// released.
func (f *chatFeed) madeTerminal(method string, req any, raw json.RawMessage, c *conn) {
	switch method {
	case sdk.ClientMethodTerminalCreate:
		var resp sdk.CreateTerminalResponse
		if json.Unmarshal(raw, &resp) != nil || resp.TerminalId == "" {
			return
		}
		f.mu.Lock()
		if f.terminals == nil || len(f.terminals) >= maxTerminals {
			f.terminals = map[string]*conn{}
		}
		f.terminals[resp.TerminalId] = c
		f.mu.Unlock()
	case sdk.ClientMethodTerminalRelease:
		f.mu.Lock()
		delete(f.terminals, terminalID(req))
		f.mu.Unlock()
	}
}
