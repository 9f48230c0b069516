package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
)

// Conn is our side of one ACP connection to an agent process: the SDK's
// connection, reading the agent's output through the wire guard, and
// writing its input noting a failed write. Its methods are the SDK's
// (Initialize, NewSession, Prompt, Done...), and what the guard and the
// writes saw.
type Conn struct {
	*acp.ClientSideConnection
	w           io.Writer   // to the agent, as the SDK writes
	prompts     promptCalls // session/prompt sent beside the SDK (promptcall.go)
	guard       *wireGuard
	bad         atomic.Value // BadMessage: why the wire guard gave up
	writeFailed atomic.Bool
}

// ConnOptions are what a Conn tells its caller.
type ConnOptions struct {
	// Log gets the SDK's log and the guard's warnings.
	Log *slog.Logger
	// Bad hears, once, the first message that broke the rules, after the
	// stream was ended; the caller stops the agent.
	Bad func(BadMessage)
	// Refused hears each request over the message limit, answered with an
	// error while the agent goes on.
	Refused func(text string)
	// FileCap is acp.max_file_bytes, which a refusal names.
	FileCap int64
	// Wire, when set, sees every line written to the agent.
	Wire func(line []byte)
}

// NewConn connects client to an agent that reads toAgent and writes
// fromAgent. life ends with the agent's process: updates still queued then
// are dropped.
func NewConn(life context.Context, client acp.Client, toAgent io.Writer, fromAgent io.Reader, opt ConnOptions) *Conn {
	c := &Conn{}
	var w io.Writer = &agentInput{w: toAgent, failed: &c.writeFailed}
	if opt.Wire != nil {
		w = &wireTap{w: w, see: opt.Wire}
	}
	log := opt.Log
	c.guard = newWireGuard(fromAgent, maxMessageBytes, func(string) {
		c.bad.Store(c.guard.why)
		if opt.Bad != nil {
			opt.Bad(c.guard.why)
		}
	})
	c.guard.sink = &updateApplier{ctx: life, client: client, log: log.Warn}
	c.guard.calls = &c.prompts
	c.w = w
	// A request over the message limit is answered beside the SDK's own
	// writes: each is one Write of a whole line, and a write to the pipe
	// holds the file's write lock throughout, so lines never interleave.
	c.guard.fileCap = opt.FileCap
	c.guard.answer = func(msg []byte, text string) {
		if opt.Refused != nil {
			opt.Refused(text)
		}
		if _, err := w.Write(msg); err != nil {
			log.Warn("answer a request over the message limit", "err", err)
		}
	}
	// The SDK's reader starts at once and its logger is set after: it
	// reads nothing until the logger is set.
	setUp := make(chan struct{})
	c.guard.setUp = setUp
	c.ClientSideConnection = acp.NewClientSideConnection(client, w, c.guard)
	c.ClientSideConnection.SetLogger(log)
	close(setUp)
	go func() {
		<-c.Done()
		c.prompts.end()
	}()
	return c
}

// Bad is why the wire guard gave up on the agent's output, if it did.
func (c *Conn) Bad() (BadMessage, bool) {
	b, ok := c.bad.Load().(BadMessage)
	return b, ok
}

// WriteFailed reports whether a write to the agent failed: it has exited or
// stopped reading.
func (c *Conn) WriteFailed() bool { return c.writeFailed.Load() }

// OutputEnded reports whether the agent's output has ended (its end, or a
// bad message): a connection that is done while it has not gave up itself.
func (c *Conn) OutputEnded() bool { return c.guard.ended.Load() }

// Notifications counts the notifications the guard handed to the client
// without the SDK's queue.
func (c *Conn) Notifications() int64 { return c.guard.notifications.Load() }

// ClientName and ClientVersion are what initialize tells an agent.
const (
	ClientName    = "acpmux-tui"
	ClientVersion = "0.1.0"
)

// Initialize sends our initialize: protocol version 1, the file system
// served (fs/read_text_file and fs/write_text_file, inside the chat's
// roots), terminal auth methods, no terminals. An agent that answers
// with another version is refused with a *VersionError.
func (c *Conn) Initialize(ctx context.Context) (acp.InitializeResponse, error) {
	init, err := c.ClientSideConnection.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{
			Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			// Terminal sign-in: the mux runs a terminal method's command
			// in a terminal chat of its own (mux/acpauth.go).
			Auth: acp.AuthCapabilities{Terminal: true},
		},
		ClientInfo: &acp.Implementation{Name: ClientName, Version: ClientVersion},
	})
	if err == nil && init.ProtocolVersion != acp.ProtocolVersionNumber {
		return init, &VersionError{Agent: int(init.ProtocolVersion)}
	}
	return init, err
}

// VersionError is an agent that speaks another version of ACP.
type VersionError struct{ Agent int }

func (e *VersionError) Error() string {
	return fmt.Sprintf("agent speaks ACP version %d, acpmux-tui speaks %d", e.Agent, acp.ProtocolVersionNumber)
}
