package mux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	acp "github.com/coder/acp-go-sdk"
)

// handshakeTimeout bounds session setup after initialize (initialize has
// the config's [acp] init_timeout).
const handshakeTimeout = 2 * time.Minute

// recentProcs is how many of a chat's latest processes explain looks at.
const recentProcs = 3

// agentInputBacklog bounds what may wait for an agent that does not read
// its stdin, beyond the line that began the wait: four of the longest
// lines an agent may send. A write past it fails, as a write to an agent
// that has stopped reading.
const agentInputBacklog = 4 * config.MaxAgentMessageBytes

// acpChat is one chat whose harness speaks ACP over stdio: one harness
// process per chat, one session in it.
type acpChat struct {
	base
	proc     *acpProcess
	log      agent.Transcript
	observer func(proto.Entry) // streams entries as they arrive (the prompt command)
	permit   PermissionPolicy
	onCard   func(proto.Permission) func() // hears each card queued (OnPermission)
	card     *permissionCard
	recent   []*acpProcess // the latest processes, oldest first (explain)
	// linked is the single files the conversation has been given a
	// resource_link for, as this mux knows it; linkedKnown is false until
	// it knows (a session loaded by a fresh mux may have been told of any
	// of them, so they are all linked again). See acpforward.go.
	linked      []string
	linkedKnown bool
	// session is the agent's modes and configuration options
	// (acpconfig.go); forward sends the agent's client requests to a door
	// client (acpforward.go).
	session sessionConfig
	forward agent.Forwarder
	auth    signInState // signing in to the agent (acpauth.go)
}

// acpProcess is one running ACP harness.
type acpProcess struct {
	procCore
	stdout *os.File // the agent's messages, read by the connection
	// stderrRead is read into stderr until it ends (readStderr), and
	// stderrDone closed then.
	stderrRead *os.File
	stderrDone chan struct{}
	conn       *agent.Conn
	roots      agent.Roots
	// bounded is set when the agent runs sandboxed: its bound is the
	// folders it started with, so a change waits for a new process.
	bounded bool
	ready   chan struct{} // closed when the session is set up (or failed)
	err     error         // why setup failed, once ready is closed
	ctx     context.Context
	cancel  context.CancelFunc

	sessionID acp.SessionId
	// capsuleTurn is closed once the chat's capsule, if one was due, has
	// had its turn (see sendCapsule); set before ready is closed.
	capsuleTurn chan struct{}
	noteDue     bool // the folder note still has to head the next prompt
	reloads     bool // the agent can load or resume a session: a restart keeps the conversation
	folders     []string
	files       []string // the single files the agent has (fs/* serves them)
	turnCancel  context.CancelFunc

	stderr       *agent.StderrLog
	exited       chan struct{} // closed when the process has been waited for
	exitHow      string        // how it ended ("exited with status 3"), once exited is closed
	exitSignaled bool          // a signal ended it, once exited is closed
	connGaveUp   atomic.Bool   // the connection ended while its output had not
	lingered     atomic.Bool   // its output ended but it did not exit, so it was stopped
}

func newACPChat(m *Mux, id string) *acpChat {
	c := &acpChat{}
	c.base = newBase(m, id, c.spawnLocked, syscall.SIGTERM)
	return c
}

// spawnLocked starts the harness and sets its session up in the background:
// initialize, then session/new, load, resume or fork with the stored folders.
func (c *acpChat) spawnLocked() error {
	fail := c.failLocked
	meta, err := c.m.opt.Store.Load(c.id)
	if err != nil {
		return fail(err)
	}
	c.state.Title = meta.Title // the agent's title as stored: retitle writes only a change
	c.state.Commands = nil     // a new process offers its own (available_commands_update)
	spec, launch, err := c.m.launchFor(meta)
	if err != nil {
		return fail(err)
	}
	roots := agent.NewRoots(c.m.opt.Store.Home(), meta.Cwd, meta.AdditionalDirectories)
	roots.SetFiles(meta.AdditionalFiles)
	startAt := time.Now()
	p, err := c.m.spawnACP(c, launch, roots)
	if err != nil {
		return fail(err)
	}
	c.m.recordBaselineLater(meta, startAt)
	p.folders = meta.AdditionalDirectories
	p.files = meta.AdditionalFiles
	p.bounded = launch.Bound != nil
	c.proc = p
	c.appliedLocked(meta.AdditionalDirectories, meta.AdditionalFiles)
	c.recent = append(c.recent, p)
	if len(c.recent) > recentProcs {
		c.recent = append(c.recent[:0], c.recent[len(c.recent)-recentProcs:]...)
	}
	c.startedLocked(&p.procCore, launch.Argv, harness.TransportACP)
	c.state.Bound = launch.BoundSummary
	c.m.opt.Logger.Info("started ACP harness", "chat", c.id, "pid", c.state.Pid, "launch", launch.String())
	go c.reap(p)
	go c.setup(p, spec, meta)
	c.m.notify(c)
	return nil
}

// spawnACP starts the harness with pipes for the protocol, its file
// requests served inside roots; its stderr goes to the log, never the
// screen, and its last lines to errors. It runs in its own process group.
func (m *Mux) spawnACP(c *acpChat, l harness.Launch, roots agent.Roots) (*acpProcess, error) {
	stderr := &agent.StderrLog{Log: m.opt.Logger, Chat: c.id}
	path, argv, err := l.Exec()
	if err != nil {
		return nil, err
	}
	attr := boundAttr(l)
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Setpgid = true
	cmd := &exec.Cmd{Path: path, Args: argv, Env: l.Env, Dir: l.Dir, SysProcAttr: attr}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe, not StdoutPipe: Wait closes that one as soon as the
	// process exits, even while its last messages are still being read.
	stdout, childOut, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = childOut
	// Stderr too: os/exec would copy it with os.File's reads, each of
	// which wakes the runtime's monitor thread when the server was idle,
	// on every line an agent logs (a turn's, for some); ours are bare
	// (internal/rawio).
	stderrRead, childErr, err := os.Pipe()
	if err != nil {
		stdout.Close()
		childOut.Close()
		return nil, err
	}
	cmd.Stderr = childErr
	err = m.fork(cmd, cmd.Start)
	childOut.Close()
	childErr.Close()
	if err != nil {
		stdout.Close()
		stderrRead.Close()
		return nil, fmt.Errorf("start %s: %w", l.Path, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &acpProcess{procCore: procCore{cmd: cmd, done: make(chan struct{})}, stdout: stdout, ready: make(chan struct{}),
		ctx: ctx, cancel: cancel, stderr: stderr, exited: make(chan struct{}), roots: roots,
		stderrRead: stderrRead, stderrDone: make(chan struct{})}
	go p.readStderr(io.MultiWriter(stderr, &stderrTap{chat: c})) // the log, and the prompt command
	log := m.opt.Logger.With("chat", c.id)
	client := agent.NewClient(agentSide{c}, roots, ctx, c.maxFileBytes, log)
	opt := agent.ConnOptions{
		Log: log,
		Bad: func(b agent.BadMessage) {
			log.Error("bad message from agent", "reason", b.In(""))
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		},
		Refused: func(text string) {
			log.Warn("refused a request over the message limit", "reason", text)
			c.note("refused the agent's " + text)
		},
		FileCap: c.fileCap(),
	}
	if m.opt.Wire != nil {
		opt.Wire = func(b []byte) { m.opt.Wire(c.id, b) }
	}
	// Lines to and from the agent with bare read(2)s and write(2)s, which
	// wake no monitor thread (internal/rawio). A line the agent does not
	// take at once waits in a queue, so no caller waits on an agent that
	// has stopped reading: a door's reader goes on to its client's next
	// line (a cancel, another chat's prompt).
	p.conn = agent.NewConn(ctx, client, rawio.QueueOf(stdin, agentInputBacklog), rawio.ReaderOf(stdout), opt)
	go p.stopWhenSilent()
	return p, nil
}

// maxFileBytes is the config's acp.max_file_bytes, 0 for the default.
func (c *acpChat) maxFileBytes() int64 {
	if cfg := c.m.config(); cfg != nil {
		return cfg.ACP.MaxFileBytes
	}
	return 0
}

// fileCap is what one file request may carry now.
func (c *acpChat) fileCap() int64 {
	if n := c.maxFileBytes(); n > 0 {
		return n
	}
	return config.DefaultMaxFileBytes
}

// stopWhenSilent stops an agent whose connection has ended (its output
// closed, or the connection gave up on it) but which has not exited within
// lingerGrace: it can do nothing more, and reap must see it go.
func (p *acpProcess) stopWhenSilent() {
	<-p.conn.Done()
	if !p.conn.OutputEnded() {
		p.connGaveUp.Store(true)
	}
	t := time.NewTimer(lingerGrace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		p.lingered.Store(true)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// setup runs the handshake and records the session.
func (c *acpChat) setup(p *acpProcess, spec harness.Spec, meta *sessions.Meta) {
	err := c.handshake(p, spec, meta)
	p.capsuleTurn = make(chan struct{})
	capsule := err == nil && c.m.capsuleDue(meta)
	if !capsule {
		close(p.capsuleTurn)
	}
	c.mu.Lock()
	p.err = err
	if c.proc == p {
		if err != nil {
			c.state.Status, c.state.Reason, c.state.LastError = proto.StatusFailed, err.Error(), err.Error()
			c.endingLocked(&p.procCore) // killed below
		} else {
			c.setStatusLocked(proto.StatusWaiting)
			c.turnEndedLocked() // a change made while it started
		}
	}
	c.mu.Unlock()
	close(p.ready)
	if err != nil {
		c.m.opt.Logger.Error("ACP session setup", "chat", c.id, "err", err)
		c.killProcess(p)
	}
	if capsule {
		go c.sendCapsule(p)
	}
	c.m.notify(c)
}

func (c *acpChat) handshake(p *acpProcess, spec harness.Spec, meta *sessions.Meta) error {
	initTimeout := c.m.config().ACP.InitTimeout.Duration
	if initTimeout <= 0 {
		initTimeout = config.DefaultInitTimeout
	}
	ictx, cancel := context.WithTimeout(p.ctx, initTimeout)
	init, err := p.conn.Initialize(ictx)
	timedOut := errors.Is(ictx.Err(), context.DeadlineExceeded)
	cancel()
	if err != nil {
		if timedOut && !p.connectionFailed(err) {
			return p.timedOut("initialize", initTimeout)
		}
		var version *agent.VersionError
		if errors.As(err, &version) {
			return err
		}
		return c.explainProc(p, "initialize", err, nil)
	}
	ctx, cancel := context.WithTimeout(p.ctx, handshakeTimeout)
	defer cancel()
	caps := init.AgentCapabilities
	advertised := caps.SessionCapabilities.AdditionalDirectories != nil
	c.mu.Lock()
	p.reloads = caps.LoadSession || caps.SessionCapabilities.Resume != nil
	c.mu.Unlock()
	via := spec.FoldersVia(len(meta.AdditionalDirectories), &advertised)
	// The field goes on the wire only to an agent that advertises it, and
	// never as an empty list.
	var dirs []string
	if advertised && len(meta.AdditionalDirectories) > 0 {
		dirs = meta.AdditionalDirectories
	}
	c.mu.Lock()
	c.state.FoldersVia = via
	c.state.AgentName = agent.AgentName(init.AgentInfo)
	c.mu.Unlock()
	c.m.recordVias(meta, spec.FoldersVia(max(len(meta.AdditionalDirectories), 1), &advertised), spec.FilesVia(max(len(meta.AdditionalFiles), 1)))

	sid, how, err := c.openSignedIn(ctx, p, caps, meta, dirs, init.AuthMethods)
	if err == nil && (how == "session/fork" || how == "session/load" && meta.Origin == sessions.OriginImport) {
		// The agent branched it, or loaded the imported session: the
		// capsule, kept should it fail, is not needed.
		c.m.dropCapsule(meta)
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && !p.connectionFailed(err) {
			return p.timedOut(how, handshakeTimeout)
		}
		return c.explainProc(p, how, err, init.AuthMethods)
	}
	// The id is the agent's to choose, and it becomes a file name, an
	// argument and a line on the screen: one that breaks the rule is
	// refused before anything keeps it.
	if bad := sessions.CheckAgentSessionID(string(sid)); bad != nil {
		return fmt.Errorf("%s: agent answered with an unusable %v; the chat keeps no session id from it", how, bad)
	}
	c.mu.Lock()
	p.sessionID = sid
	c.state.SessionID = string(sid)
	// The note heads the first prompt of a chat whose agent cannot take the
	// folders any other way; a loaded session that already has a prompt has
	// seen it.
	p.noteDue = via == harness.ViaNote && !c.log.HasUserMessage()
	if !c.log.HasUserMessage() {
		// A new conversation: every file is linked in its first prompt.
		c.linked, c.linkedKnown = nil, true
	}
	c.mu.Unlock()
	if string(sid) != meta.AgentSessionID {
		if _, err := c.m.opt.Store.Update(c.id, func(m *sessions.Meta) error {
			m.AgentSessionID = string(sid)
			return nil
		}); err != nil {
			return fmt.Errorf("store session id: %w", err)
		}
	}
	c.m.opt.Logger.Info("ACP session ready", "chat", c.id, "session", sid, "how", how, "foldersVia", via)
	return nil
}

// openSession picks session/new, load, resume or fork for this start.
func (c *acpChat) openSession(ctx context.Context, p *acpProcess, caps acp.AgentCapabilities, meta *sessions.Meta, dirs []string) (acp.SessionId, string, error) {
	cwd := meta.Cwd
	mcp := c.m.mcpServersFor(c.id)
	if meta.AgentSessionID != "" {
		sid := acp.SessionId(meta.AgentSessionID)
		switch {
		case caps.LoadSession:
			c.mu.Lock()
			c.log = agent.Transcript{} // the agent replays the conversation
			c.mu.Unlock()
			resp, err := p.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sid, Cwd: cwd, McpServers: mcp, AdditionalDirectories: dirs})
			c.keepSessionConfig(err, resp.Modes, resp.ConfigOptions)
			if err != nil && c.importFallback(ctx, p, meta, err) {
				c.mu.Lock()
				c.log = agent.Transcript{} // whatever the failed load replayed
				c.mu.Unlock()
				c.note("the agent could not load the imported session (" + plaintext.Line(err.Error()) + "): a new session starts, with a capsule of the conversation as its first message")
				resp, nerr := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: mcp, AdditionalDirectories: dirs})
				c.keepSessionConfig(nerr, resp.Modes, resp.ConfigOptions)
				return resp.SessionId, "session/new", nerr
			}
			return sid, "session/load", err
		case caps.SessionCapabilities.Resume != nil:
			resp, err := p.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: sid, Cwd: cwd, McpServers: mcp, AdditionalDirectories: dirs})
			c.keepSessionConfig(err, resp.Modes, resp.ConfigOptions)
			return sid, "session/resume", err
		}
		c.note("the agent can neither load nor resume sessions: this is a new session")
	} else if meta.Origin == sessions.OriginFork && meta.Parent != "" {
		if parent, err := c.m.opt.Store.Load(meta.Parent); err == nil && parent.AgentSessionID != "" && caps.SessionCapabilities.Fork != nil {
			resp, err := p.conn.UnstableForkSession(ctx, acp.UnstableForkSessionRequest{
				SessionId: acp.SessionId(parent.AgentSessionID), Cwd: cwd, AdditionalDirectories: dirs, McpServers: []acp.UnstableMcpServer{},
			})
			c.keepSessionConfig(err, resp.Modes, agent.UnstableOptions(resp.ConfigOptions))
			return resp.SessionId, "session/fork", err
		}
	}
	resp, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: mcp, AdditionalDirectories: dirs})
	c.keepSessionConfig(err, resp.Modes, resp.ConfigOptions)
	return resp.SessionId, "session/new", err
}

// importFallback reports whether a session/load that failed with err
// should give way to session/new: the chat was imported (its session came
// from another home, which this agent may not have) with a capsule waiting
// to carry the conversation, and the agent itself answered with an error
// (the connection, and the time allowed, still stand).
func (c *acpChat) importFallback(ctx context.Context, p *acpProcess, meta *sessions.Meta, err error) bool {
	var re *acp.RequestError
	if meta.Origin != sessions.OriginImport || !errors.As(err, &re) || ctx.Err() != nil || p.connectionFailed(err) {
		return false
	}
	return c.m.capsuleDue(meta)
}

// note adds a line of acpmux-tui's own to the transcript.
func (c *acpChat) note(text string) {
	c.mu.Lock()
	c.log.Add(proto.Entry{Kind: proto.EntryNote, Text: text})
	c.mu.Unlock()
	c.m.notify(c)
}

// readStderr copies the agent's stderr to w until it ends.
func (p *acpProcess) readStderr(w io.Writer) {
	defer close(p.stderrDone)
	_, _ = io.Copy(w, rawio.ReaderOf(p.stderrRead))
}

// stderrEnded waits, once the agent has exited, for the last of its
// stderr to be read (its last lines explain an exit), lingerGrace/2 at
// most: a grandchild holding the pipe open must not keep reap waiting
// (nor make stopWhenSilent stop an agent that has exited).
func (p *acpProcess) stderrEnded() {
	t := time.NewTimer(lingerGrace / 2)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
	}
	p.stderrRead.Close()
}

// reap waits for the process, then records how it ended; a harness that died
// is started again on the next prompt or with backoff, as a pty one is.
func (c *acpChat) reap(p *acpProcess) {
	err := waitPolled(p.cmd)
	c.mu.Lock()
	c.endingLocked(&p.procCore)
	c.mu.Unlock()
	p.stderrEnded()
	p.exitHow, p.exitSignaled = agent.DescribeExit(p.cmd, err)
	close(p.exited)
	// Its last messages are still read; a grandchild holding the pipe open
	// must not keep the connection waiting forever.
	_ = p.stdout.SetReadDeadline(time.Now().Add(time.Second))
	p.cancel()
	// Anything left in its group goes with it.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.conn.Done()
	p.stdout.Close()
	// Setup ends with the connection; whether it failed decides below
	// between a failed chat (with setup's reason) and a crash to restart.
	<-p.ready
	c.mu.Lock()
	code, how := exitStatus(p.cmd, err)
	if b, ok := p.conn.Bad(); ok {
		how = "bad message from the agent: " + strings.TrimPrefix(b.In(""), "agent ")
	}
	current := c.proc == p
	if current {
		c.proc, c.core = nil, nil
		c.card = nil
		c.state.Pid, c.state.ExitCode, c.state.Exit, c.state.Reason, c.state.TurnActive = 0, code, how, how, false
		switch {
		case c.stopping:
			c.state.Status = proto.StatusStopped
		case p.err != nil:
			// Setup failed and killed it; the reason is already shown.
			c.state.Status, c.state.Reason = proto.StatusFailed, p.err.Error()
		case p.badMessage():
			c.state.Status, c.state.LastError = proto.StatusFailed, how
			c.log.Add(proto.Entry{Kind: proto.EntryError, Text: how})
		case code == 0:
			c.state.Status = proto.StatusExited
		default:
			c.log.Add(proto.Entry{Kind: proto.EntryError, Text: "the agent exited: " + how + "; the next start loads the session again"})
			c.crashedLocked(how)
		}
		c.reportEndedLocked()
	}
	c.mu.Unlock()
	close(p.done)
	c.m.opt.Logger.Info("ACP harness exited", "chat", c.id, "how", how)
	c.m.notify(c)
}

func (c *acpChat) killProcess(p *acpProcess) {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// ready waits for the session to be set up, starting the harness first if
// it is not running.
func (c *acpChat) ready(ctx context.Context) (*acpProcess, error) {
	c.mu.Lock()
	if c.proc == nil {
		c.stopping = false
		if err := c.spawnLocked(); err != nil {
			c.mu.Unlock()
			return nil, err
		}
	}
	p := c.proc
	c.mu.Unlock()
	if err := agent.Await(ctx, p.ready); err != nil {
		return nil, err
	}
	if p.err != nil {
		return nil, p.err
	}
	return p, nil
}

func (c *acpChat) snapshot() proto.State {
	c.notified.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state
	s.Argv = append([]string(nil), c.state.Argv...)
	if c.card != nil {
		card := c.card.Permission
		s.Permission = &card
	}
	return s
}

func (c *acpChat) entries() []proto.Entry {
	c.notified.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.Entries()
}

// since is the transcript for a client that holds it as of change since
// of transcript epoch (agent.Transcript.Since).
func (c *acpChat) since(epoch, since uint64) proto.TranscriptResult {
	c.notified.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.Since(epoch, since)
}

// render lays the transcript out at the pane's width and shows its last
// rows lines, scrolled up by scroll lines.
func (c *acpChat) render(scroll int) string {
	c.mu.Lock()
	cols, rows := c.cols, c.rows
	c.mu.Unlock()
	lines := proto.RenderTranscript(c.entries(), cols)
	end := max(len(lines)-max(scroll, 0), 0)
	start := max(end-rows, 0)
	return strings.Join(lines[start:end], "\n")
}

func (c *acpChat) plainLines() []string {
	c.mu.Lock()
	cols := c.cols
	c.mu.Unlock()
	return proto.RenderTranscript(c.entries(), cols)
}

// write refuses raw input: an ACP chat takes whole prompts (Mux.Prompt).
func (c *acpChat) write([]byte) error {
	return fmt.Errorf("chat %s speaks ACP: send it a prompt, not keys", c.id)
}

func (c *acpChat) resize(cols, rows int) {
	if cols <= 0 || rows <= 0 {
		return
	}
	c.mu.Lock()
	c.cols, c.rows = cols, rows
	c.mu.Unlock()
}
