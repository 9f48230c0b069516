package mux

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/screen"
	"github.com/acpmux/acpmux-tui/sessions"
)

// A pty is read into a buffer of firstReadSize bytes: an idle chat (most
// of them) holds that much. It grows to readBufferSize at the first read
// that fills it (a read hands out what the kernel has buffered).
const (
	readBufferSize = 16 * 1024
	firstReadSize  = 4 * 1024
)

// drainIdle is how long the pty of a harness that has exited may stay
// silent before its output is taken to have ended: the kernel hands out what
// is buffered at once, and only a grandchild that keeps the pty open (and
// says nothing) makes a read wait this long.
const drainIdle = time.Second

// drainMax bounds how long the pty of a harness that has exited is read: a
// grandchild that keeps writing to it must not hold the exit back forever.
const drainMax = 10 * time.Second

// Default pane size before the UI tells us better.
const (
	defaultCols = 80
	defaultRows = 24
)

// ptyChat is one chat's harness in a pty, with its screen. Its fields are
// guarded by base.mu; the reader goroutine feeds the screen under it.
type ptyChat struct {
	base
	scr     *screen.Screen
	proc    *process
	replies []byte        // the screen's answers to queries, sent after each feed
	quiet   *time.Timer   // turns a silent running chat to waiting
	pooled  *pooledLaunch // set while this is a prewarmed harness
	resumes bool          // a restart continues the conversation (pending.go)
	kind    string        // the harness's kind at the last start
	divider string        // the divider line above the current run, if any
	// heard is set once the running harness reported its turn (turns.go);
	// gap while the screen decides between two reports.
	heard proto.StatusSource
	gap   bool
	// typed is set once the user has sent input to the running harness: a
	// harness falling quiet before that has only started, not finished a
	// turn the user is told of.
	typed bool
	// runs are the harness's runs in this mux, under a lock of their own:
	// what learning a Codex session id needs (codexsession.go).
	runs harnessRuns
}

// process is one running harness: its pty, its command, and a channel closed
// when it has exited and its output is drained.
type process struct {
	procCore
	ptmx  *os.File
	input *ptyInput // what is typed, and the screen's answers, to ptmx
}

// newPtyChat makes a pty runner; stopping it sends SIGHUP (what a closing
// terminal sends; interactive shells ignore SIGTERM) and SIGTERM first.
func newPtyChat(m *Mux, id string) *ptyChat {
	c := &ptyChat{}
	c.base = newBase(m, id, c.spawnLocked, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGCONT)
	return c
}

// spawnLocked loads the chat's stored metadata and starts its harness.
// Called with mu held; every start goes through here, so every start gets
// the folders stored at that moment.
func (c *ptyChat) spawnLocked() error {
	fail := c.failLocked
	var meta *sessions.Meta
	if c.pooled != nil {
		meta = &sessions.Meta{Version: sessions.FormatVersion, ID: c.id, Harness: c.pooled.harness, Cwd: c.pooled.home, AgentSessionID: c.pooled.sessionID}
	} else if m, err := c.m.opt.Store.Load(c.id); err == nil {
		meta = m
	} else {
		return fail(err)
	}
	if c.pooled == nil && meta.Origin == sessions.OriginFork && meta.AgentSessionID == "" && meta.Parent != "" {
		// A fork of a Codex chat branches the parent's session, which the
		// parent may not have been seen to create yet: learn it first.
		c.m.learnCodexSession(meta.Parent)
	}
	if c.pooled == nil && c.m.learnCodexSession(c.id) {
		// A run whose end this mux did not see (the server was killed), or
		// whose exit found nothing yet, left a Codex session to learn:
		// this start resumes it.
		if m, err := c.m.opt.Store.Load(c.id); err == nil {
			meta = m
		}
	}
	spec, launch, err := c.m.launchFor(meta)
	if err != nil {
		return fail(err)
	}
	if launch.NewSessionID != "" && c.pooled != nil {
		c.pooled.sessionID = launch.NewSessionID
	} else if launch.NewSessionID != "" {
		// Store the harness's session id before it starts, so a crash right
		// after still resumes the same conversation.
		if _, err := c.m.opt.Store.Update(c.id, func(m *sessions.Meta) error {
			m.AgentSessionID = launch.NewSessionID
			return nil
		}); err != nil {
			return fail(fmt.Errorf("store session id: %w", err))
		}
	}
	capsule, err := c.m.claimCapsuleArgs(spec, meta, &launch, c.pooled != nil)
	if err != nil {
		return fail(err)
	}
	startAt := time.Now()
	c.runs.begin(startAt)
	p, err := c.m.spawn(launch, c.cols, c.rows)
	if err != nil {
		capsule.undo()
		c.runs.end(time.Now())
		return fail(err)
	}
	if c.pooled == nil {
		via := spec.FoldersVia(max(len(meta.AdditionalDirectories), 1), nil)
		if launch.FoldersReadOnly {
			// Codex in a sandbox that takes no writable roots: the
			// folders went as a note in its developer instructions.
			via = harness.ViaNote
		}
		c.m.recordVias(meta, via, spec.FilesVia(max(len(meta.AdditionalFiles), 1)))
		c.m.recordBaselineLater(meta, startAt)
	}
	if c.scr == nil {
		c.scr = screen.New(c.cols, c.rows, c.m.config().Scrollback)
		c.scr.SetReplyFunc(func(r []byte) { c.replies = append(c.replies, r...) })
		if c.pooled == nil && meta.Worktree != nil {
			// What [worktree] setup printed when the worktree was made
			// comes first on the new chat's screen, once.
			if out := c.m.opt.Store.ClaimSetupLog(c.id); len(out) > 0 {
				c.scr.Write([]byte(strings.ReplaceAll(string(out), "\n", "\r\n")))
				c.scr.Events()
			}
		}
	} else {
		c.dividerLocked(c.why.word(), time.Now(), c.why != startRestart)
		c.taps.redrawLocked(c.snapshotLocked)
	}
	c.proc = p
	c.kind, c.heard, c.gap, c.typed = spec.Kind, "", false, false
	c.appliedLocked(meta.AdditionalDirectories, meta.AdditionalFiles)
	c.startedLocked(&p.procCore, capsule.shown(launch.Argv), harness.TransportPty)
	c.state.Sandbox, c.state.FoldersReadOnly, c.state.Bound = launch.Sandbox, launch.FoldersReadOnly, launch.BoundSummary
	c.m.opt.Logger.Info("started harness", "chat", c.id, "pid", c.state.Pid, "launch", capsule.shownLaunch(launch))
	go c.pump(p)
	c.m.notify(c)
	return nil
}

// dividerLocked marks, on a screen that shows an earlier run, where a new
// run starts, with a divider line such as "── respawned 12:03:04 ───…".
// Modes the old harness set are reset either way, and the scrollback keeps
// the history.
//
// With keep (a respawn after a crash, a start after an exit or a failure),
// what the earlier run printed stays on the screen above the divider, as it
// would in a terminal where the command is run again: its last lines are why
// it ended. Without it (a restart the user asked for) the page is turned:
// the earlier run's lines go up into the scrollback and the divider is the
// first line of a clear screen. The new harness draws below the divider.
func (c *ptyChat) dividerLocked(word string, at time.Time, keep bool) {
	scr := c.scr
	// CAN ends a sequence the old harness left half written.
	scr.Write([]byte("\x18"))
	scr.ResetModes() // back on the main screen, plain pen, whole-screen region
	cols, rows := scr.Size()
	last := -1
	for i := rows - 1; i >= 0; i-- {
		if strings.TrimSpace(scr.PlainLine(i)) != "" {
			last = i
			break
		}
	}
	var b strings.Builder
	switch {
	case last < 0:
		b.WriteString("\x1b[H")
	case keep:
		// Below the last line written; a line feed at the bottom scrolls
		// the earlier run up.
		fmt.Fprintf(&b, "\x1b[%d;1H\r\n", last+1)
	default:
		// From the bottom row, each line feed moves the top row into the
		// scrollback: the rows down to the last one written go up.
		fmt.Fprintf(&b, "\x1b[%d;1H%s", rows, strings.Repeat("\n", last+1))
		b.WriteString("\x1b[H")
	}
	label := "── " + word + " " + at.Format("15:04:05") + " "
	if pad := cols - utf8.RuneCountInString(label); pad > 0 {
		label += strings.Repeat("─", pad)
	} else {
		label = string([]rune(label)[:cols])
	}
	c.divider = label
	b.WriteString("\x1b[2m" + label + "\x1b[0m\r\n")
	scr.Write([]byte(b.String()))
	scr.Events() // the reset is not the new harness's doing
}

// spawn starts a launch in a new pty of the given size. pty.Start makes the
// harness a session leader, so it has its own process group.
func (m *Mux) spawn(l harness.Launch, cols, rows int) (*process, error) {
	path, argv, err := l.Exec()
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: l.Env, Dir: l.Dir, SysProcAttr: boundAttr(l)}
	var blocking *os.File
	err = m.fork(cmd, func() (err error) {
		blocking, err = pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	ptmx, err := pollable(blocking)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return &process{procCore: procCore{cmd: cmd, done: make(chan struct{})}, ptmx: ptmx, input: newPtyInput(ptmx)}, nil
}

// pump reads the harness's output into the screen until the pty closes,
// then reaps the process and decides what comes next.
func (c *ptyChat) pump(p *process) {
	reaped := make(chan error, 1)
	var gone atomic.Bool // the harness has been reaped
	go func() {
		err := waitPolled(p.cmd)
		c.mu.Lock()
		c.endingLocked(&p.procCore)
		c.mu.Unlock()
		// Output still buffered is read to the end; a grandchild holding
		// the pty open must not keep us reading forever (see drainIdle).
		gone.Store(true)
		_ = p.ptmx.SetReadDeadline(time.Now().Add(drainIdle))
		reaped <- err
	}()
	// This goroutine reads and feeds the screen in turn. Handing each read
	// to a second goroutine to parse, so reading and parsing overlap, cost
	// more than it saved: a wake-up of the other goroutine per read (a few
	// KiB of a flood), and on two cores scripts/bench's 50 MB flood took
	// 0.9 s that way against 0.6 s this way. While the screen is fed,
	// output waits in the kernel, and a harness printing faster than the
	// screen takes it waits on its writes, as in a terminal.
	read := p.ptmx.Read
	if rc, err := p.ptmx.SyscallConn(); err == nil {
		read = func(b []byte) (int, error) { return rawio.Read(rc, b) }
	}
	size := firstReadSize
	buf := make([]byte, size)
	var drainUntil time.Time
	for {
		buf = sizedBuffer(buf, size)
		if gone.Load() {
			// Each read after the exit gets the whole idle time: feeding
			// a slow screen must not spend it, or the last lines a
			// harness printed as it died would be dropped. A grandchild
			// that keeps writing is cut off at drainMax.
			now := time.Now()
			if drainUntil.IsZero() {
				drainUntil = now.Add(drainMax)
			}
			deadline := now.Add(drainIdle)
			if deadline.After(drainUntil) {
				deadline = drainUntil
			}
			_ = p.ptmx.SetReadDeadline(deadline)
		}
		n, err := read(buf)
		size = nextReadSize(size, n, len(buf))
		if n > 0 {
			c.feed(p, buf[:n])
		}
		if err != nil {
			// EIO once the child side closes on Linux: the end of output.
			break
		}
	}
	waitErr := <-reaped
	p.ptmx.Close()
	c.runs.end(time.Now())
	c.mu.Lock()
	learn := c.proc == p && c.pooled == nil
	c.mu.Unlock()
	if learn {
		// Outside the lock (it reads Codex's files and writes the chat's),
		// before the exit is reported: a restart waits for that, so it and
		// a respawn start with the session learned.
		c.m.learnCodexSession(c.id)
	}
	c.exited(p, waitErr)
}

// nextReadSize is the size of the read buffers after a read of n bytes
// into a buffer of length bufLen, when they were size: a read that filled
// its buffer makes them readBufferSize from then on.
func nextReadSize(size, n, bufLen int) int {
	if n == bufLen && size < readBufferSize {
		return readBufferSize
	}
	return size
}

// sizedBuffer returns buf, or a new buffer of size bytes in its place when
// buf is smaller (made before the buffers grew).
func sizedBuffer(buf []byte, size int) []byte {
	if cap(buf) < size {
		return make([]byte, size)
	}
	return buf[:cap(buf)]
}

// feed hands output to the screen and the taps and updates the status.
func (c *ptyChat) feed(p *process, b []byte) {
	c.mu.Lock()
	if c.proc != p {
		c.mu.Unlock()
		return
	}
	c.scr.Write(b)
	c.taps.outputLocked(b)
	replies := c.replies
	c.replies = nil
	c.detectWaitingLocked()
	c.mu.Unlock()
	if len(replies) > 0 {
		// Answers to the harness's queries (DA, DSR), in order with what
		// is typed, outside the lock.
		p.input.write(replies)
	}
	c.m.notifyOutput(c)
}

// detectWaitingLocked decides between running and waiting for input from
// what the harness printed, without polling:
//   - a bell (BEL) or a desktop notification (OSC 9 / OSC 777) means it
//     wants the user: waiting, with the attention mark;
//   - OSC 9;4 progress set means busy (running, and quiet is not waiting);
//     progress cleared means done: waiting;
//   - any other output means running, and a timer of QuietAfter, reset by
//     each output, turns it to waiting when the harness falls silent with no
//     progress shown (a prompt drawn, nothing more to say).
func (c *ptyChat) detectWaitingLocked() {
	ev := c.scr.Events()
	if ev.TitleChanged {
		c.state.Title = c.scr.Title()
	}
	if !c.screenDecidesLocked() {
		return
	}
	busy := ev.Progress.State != screen.ProgressNone
	switch {
	case ev.Bells > 0 || len(ev.Notifications) > 0:
		c.setWaitingLocked(true)
		return
	case ev.ProgressChanged && !busy:
		c.setWaitingLocked(false)
		return
	}
	c.setStatusLocked(proto.StatusRunning)
	if busy {
		if c.quiet != nil {
			c.quiet.Stop()
		}
		return
	}
	if c.quiet == nil {
		c.quiet = time.AfterFunc(c.m.opt.QuietAfter, c.quietElapsed)
	} else {
		c.quiet.Reset(c.m.opt.QuietAfter)
	}
}

// setWaitingLocked marks the chat waiting for input, as inferred from its
// screen. The user is told of it when the harness called (a bell, a
// notification), or when it stops working after the user typed to it.
func (c *ptyChat) setWaitingLocked(called bool) {
	if c.state.Status != proto.StatusWaiting {
		c.turnEndedLocked()
	}
	c.announceLocked(proto.StatusWaiting, called || c.typed && needsUser(c.state.Status, proto.StatusWaiting))
	if c.quiet != nil {
		c.quiet.Stop()
	}
}

func (c *ptyChat) quietElapsed() {
	c.mu.Lock()
	changed := c.proc != nil && c.state.Status == proto.StatusRunning && c.screenDecidesLocked()
	switch {
	case changed && c.asksOnScreenLocked():
		// Quiet on a question it waits to have answered (a trust
		// dialog, a permission), which no hook reports.
		c.setStatusLocked(proto.StatusAsking)
	case changed:
		c.setWaitingLocked(false)
	}
	c.mu.Unlock()
	if changed {
		c.m.notify(c)
	}
}

// exited records the end of a process and respawns a crashed harness with
// backoff, up to MaxRespawns quick crashes in a row; past that the chat
// fails.
// A clean exit (status 0) is left exited: the user ended it.
func (c *ptyChat) exited(p *process, waitErr error) {
	c.mu.Lock()
	defer func() {
		close(p.done)
		c.m.notify(c)
	}()
	defer c.mu.Unlock()
	if c.proc != p {
		return
	}
	c.proc, c.core = nil, nil
	defer c.reportEndedLocked() // once decided below: runs before the unlock
	if c.quiet != nil {
		c.quiet.Stop()
	}
	code, how := exitStatus(p.cmd, waitErr)
	c.state.Pid, c.state.ExitCode, c.state.Exit, c.state.Reason = 0, code, how, how
	if !c.stopping {
		c.state.LastOutput = c.lastPrintedLocked()
	}
	c.m.opt.Logger.Info("harness exited", "chat", c.id, "how", how)
	if c.stopping {
		c.state.Status = proto.StatusStopped
		return
	}
	if c.pooled != nil {
		// A prewarmed harness that died is not respawned; take skips it.
		c.state.Status = proto.StatusExited
		return
	}
	if c.m.signInEnded(c.id, how) {
		c.state.Status = proto.StatusExited // a sign-in runs once
		return
	}
	if code == 0 {
		c.state.Status = proto.StatusExited
		return
	}
	if code == sandbox.ExitRefused && strings.HasPrefix(c.state.LastOutput, sandbox.RefusedPrefix) {
		// The sandbox's wrapper refused to run the harness: a respawn
		// would be refused again.
		c.state.Status, c.state.Reason = proto.StatusFailed, c.state.LastOutput
		c.state.LastError = c.state.Reason
		return
	}
	c.crashedLocked(how)
}

// lastPrintedLocked returns the line on the screen that the run which just
// ended printed that says why it ended (whyLine: an error line over a
// trailing link or advice): the lines above its divider are an earlier
// run's.
func (c *ptyChat) lastPrintedLocked() string {
	_, rows := c.scr.Size()
	var lines []string
	for i := rows - 1; i >= 0; i-- {
		l := c.scr.PlainLine(i)
		if c.divider != "" && l == c.divider {
			break
		}
		lines = append(lines, l)
	}
	slices.Reverse(lines)
	return whyLine(lines)
}

// exitStatus turns Wait's result into an exit code (-1 for a signal) and a
// phrase for the user.
func exitStatus(cmd *exec.Cmd, err error) (int, string) {
	ps := cmd.ProcessState
	if ps == nil {
		return -1, fmt.Sprintf("wait failed: %v", err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// The signal's name (SIGKILL), not its description: "killed by
		// killed" read wrong.
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = fmt.Sprintf("signal %d", int(ws.Signal()))
		}
		return -1, "killed by " + name
	}
	return ps.ExitCode(), fmt.Sprintf("exit status %d", ps.ExitCode())
}

func (c *ptyChat) write(b []byte) error {
	c.mu.Lock()
	p := c.proc
	if p != nil {
		c.state.Unread, c.typed = false, true
		c.inputLocked()
	}
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("chat %s: harness is not running", c.id)
	}
	err := p.input.write(b)
	if err != nil && exited(err) {
		return fmt.Errorf("chat %s: harness has exited", c.id)
	}
	return err
}

func (c *ptyChat) resize(cols, rows int) {
	if cols <= 0 || rows <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cols == c.cols && rows == c.rows {
		return
	}
	c.cols, c.rows = cols, rows
	if c.scr != nil {
		c.scr.Resize(cols, rows)
	}
	if c.proc != nil {
		_ = setWinsize(c.proc.ptmx, cols, rows)
	}
}

func (c *ptyChat) snapshot() proto.State {
	c.notified.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state
	s.Argv = append([]string(nil), c.state.Argv...)
	return s
}

func (c *ptyChat) render(scroll int) string {
	c.notified.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scr == nil {
		return ""
	}
	return c.scr.Render(scroll)
}

// asksOnScreenLocked reports whether the screen shows a question the
// harness waits to have answered (harness.AsksOnScreen).
func (c *ptyChat) asksOnScreenLocked() bool {
	return harness.AsksOnScreen(c.plainLinesLocked())
}

func (c *ptyChat) plainLines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.plainLinesLocked()
}

// plainLinesLocked is the live screen as plain lines; nil before a start.
func (c *ptyChat) plainLinesLocked() []string {
	if c.scr == nil {
		return nil
	}
	_, rows := c.scr.Size()
	out := make([]string, rows)
	for i := range out {
		out[i] = c.scr.PlainLine(i)
	}
	return out
}
