package mux

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// procCore is what every harness process has, whatever its transport: its
// command, a channel closed once it has been reaped (and its output read
// to the end), and whether it is on its way out.
type procCore struct {
	cmd  *exec.Cmd
	done chan struct{}
	// ending (guarded by the runner's mu) is set once the process has
	// exited or been told to (a stop, a failed setup) but is not yet
	// reaped: a start then waits for it rather than take it for a
	// running one.
	ending bool
}

// base is what every chat runner shares, whatever its transport: identity,
// pane size, state, and the start, stop and respawn policy. Its fields are
// guarded by mu, which the runner also uses for its own fields.
type base struct {
	m        *Mux
	id       string
	notified noticeFlag // the chat's change notice (notice.go)

	// spawn starts the runner's harness (called with mu held); polite are
	// the signals that ask it to stop before SIGKILL.
	spawn  func() error
	polite []syscall.Signal

	mu       sync.Mutex
	core     *procCore // the running process, nil when none
	cols     int
	rows     int
	state    proto.State
	stopping bool
	crashes  []time.Time
	respawn  *time.Timer // the respawn a crash scheduled; nil when none is due
	starts   int
	// why says what the start under way is: a screen that already shows an
	// earlier run marks it with a divider naming it (see ptyChat).
	why startKind
	// taps follow a pty chat's output (tap.go).
	taps tapSet
	// applied and appliedFiles are the folders and single files the
	// running process started with; applying is set while a restart
	// applies a change of them (pending.go).
	applied      []string
	appliedFiles []string
	applying     bool
	// refusedGone is set while the last error shown is a start or
	// restart refused for folders or files gone (clearGone).
	refusedGone bool
}

// startKind says why a harness is being started.
type startKind int

const (
	// startAsked is a start on request (open, start, a first start).
	startAsked startKind = iota
	// startRestart is a restart on request (`r`).
	startRestart
	// startRespawn is the respawn that follows a crash.
	startRespawn
)

// word is how a divider names the start.
func (k startKind) word() string {
	switch k {
	case startRestart:
		return "restarted"
	case startRespawn:
		return "respawned"
	}
	return "started again"
}

func newBase(m *Mux, id string, spawn func() error, polite ...syscall.Signal) base {
	return base{m: m, id: id, spawn: spawn, polite: polite, cols: defaultCols, rows: defaultRows}
}

// start spawns the harness unless one runs, in a pane of cols x rows; a
// restart on request forgets earlier crashes.
//
// A process still running is left to run. One on its way out (exited, or
// told to end, but not yet reaped: its last output read, its group ended)
// is waited for first, so the start is made, not lost to a process that
// a moment later is gone.
func (b *base) start(cols, rows int, restart bool) error {
	b.mu.Lock()
	for b.core != nil && b.core.ending {
		done := b.core.done
		b.mu.Unlock()
		<-done
		b.mu.Lock()
	}
	defer b.mu.Unlock()
	if b.core != nil {
		return nil
	}
	b.prepareStartLocked(cols, rows, restart)
	return b.spawn()
}

// endingLocked marks core, if it is still the chat's process, as on its
// way out (see procCore.ending).
func (b *base) endingLocked(core *procCore) {
	if b.core == core {
		core.ending = true
	}
}

// waitExit blocks until the current process has ended.
func (b *base) waitExit() {
	b.mu.Lock()
	core := b.core
	b.mu.Unlock()
	if core != nil {
		<-core.done
	}
}

// stop ends the harness and its process group (see endGroup) and waits for
// them; no respawn follows.
func (b *base) stop() {
	b.mu.Lock()
	b.stopRequestedLocked()
	core := b.core
	b.mu.Unlock()
	if core != nil {
		endGroup(core.cmd.Process.Pid, core.done, b.m.opt.Grace, b.polite...)
	}
}

// respawnNow is the respawn a crash scheduled.
func (b *base) respawnNow() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.respawn = nil
	if b.core == nil && b.mayRespawnLocked() {
		b.why = startRespawn
		_ = b.spawn()
	}
}

func (b *base) notice() *noticeFlag { return &b.notified }
func (b *base) chatID() string      { return b.id }

// prepareStartLocked records the pane size of a start; a restart on request
// forgets earlier crashes. A start on request is a fresh attempt: the last
// error shown (a refused restart, an earlier crash) is from before it.
func (b *base) prepareStartLocked(cols, rows int, restart bool) {
	b.why = startAsked
	b.state.LastError, b.state.LastOutput = "", ""
	if restart {
		b.crashes = nil
		b.why = startRestart
	}
	if cols > 0 && rows > 0 {
		b.cols, b.rows = cols, rows
	}
	b.stopping = false
	b.cancelRespawnLocked() // this start is the one it would have made
}

// noteRefusal records a restart refused before anything was stopped: the
// harness keeps running, and the refusal shows as its last error.
func (b *base) noteRefusal(err error) {
	b.mu.Lock()
	b.state.LastError, b.state.LastOutput = err.Error(), ""
	var gone *proto.FoldersGoneError
	b.refusedGone = errors.As(err, &gone)
	b.m.opt.Logger.Error("restart refused", "chat", b.id, "err", err)
	b.mu.Unlock()
	b.m.notify(b)
}

// clearGone takes a refusal for folders or files gone out of the chat's
// state once they are out of its lists: a chat that failed for it is
// stopped again, with no error, and a running one loses the last error. It
// reports whether there was one.
func (b *base) clearGone() bool {
	b.mu.Lock()
	if !b.refusedGone {
		b.mu.Unlock()
		return false
	}
	b.refusedGone = false
	b.state.LastError = ""
	if b.core == nil && b.state.Status == proto.StatusFailed {
		b.state.Status, b.state.Reason = proto.StatusStopped, ""
	}
	b.mu.Unlock()
	b.m.notify(b)
	return true
}

// live reports whether a harness process runs now.
func (b *base) live() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.core != nil
}

// failLocked marks the chat failed with err, logs and reports it.
func (b *base) failLocked(err error) error {
	b.state.Status, b.state.Reason, b.state.LastError, b.state.Pid = proto.StatusFailed, err.Error(), err.Error(), 0
	b.state.LastOutput, b.state.Exit = "", "" // the refusal is ours, not the harness's
	var gone *proto.FoldersGoneError
	b.refusedGone = errors.As(err, &gone)
	b.m.opt.Logger.Error("start harness", "chat", b.id, "err", err)
	b.reportEndedLocked()
	b.m.notify(b)
	return err
}

// startedLocked records a new process.
func (b *base) startedLocked(core *procCore, argv []string, transport string) {
	b.core = core
	pid := core.cmd.Process.Pid
	if b.starts > 0 {
		b.state.Restarts++
	}
	b.starts++
	b.state.Status, b.state.Reason, b.state.ExitCode = proto.StatusStarting, "", 0
	b.refusedGone = false
	b.state.Pid, b.state.Started, b.state.Argv, b.state.Transport = pid, time.Now(), argv, transport
	b.state.StatusFrom = proto.SourceScreen
	if transport == harness.TransportACP {
		b.state.StatusFrom = proto.SourceACP
	}
	b.reportStartedLocked(pid)
}

// crashedLocked records a crash: respawn runs after a backoff that doubles
// with each crash counted, and past MaxRespawns crashes in a row of runs
// shorter than RespawnWindow the chat is marked failed instead: never a
// fork loop. The count is of runs, not of a span of the clock: a harness
// that takes long to start and fail (a real agent offline, on a loaded
// machine) still fails, where a count of crashes in the last minute would
// respawn it for ever.
func (b *base) crashedLocked(how string) {
	now := time.Now()
	if started := b.state.Started; !started.IsZero() && now.Sub(started) >= b.m.opt.RespawnWindow {
		b.crashes = b.crashes[:0] // this run lasted: not a crash loop
	}
	b.crashes = append(b.crashes, now)
	b.state.LastError = how
	if len(b.crashes) > b.m.opt.MaxRespawns {
		b.state.Status = proto.StatusFailed
		b.state.Reason = fmt.Sprintf("crashed %d times in a row; last: %s", len(b.crashes), how)
		b.state.LastError = b.state.Reason
		b.m.opt.Logger.Error("harness keeps crashing", "chat", b.id, "reason", b.state.Reason)
		return
	}
	b.state.Status = proto.StatusExited
	delay := b.m.opt.BackoffBase << (len(b.crashes) - 1)
	b.respawn = time.AfterFunc(delay, b.respawnNow)
}

// mayRespawnLocked reports whether a scheduled respawn should still happen.
func (b *base) mayRespawnLocked() bool {
	if b.stopping {
		return false
	}
	b.m.mu.Lock()
	defer b.m.mu.Unlock()
	return !b.m.closed
}

// stopRequestedLocked marks a stop on request: no respawn follows.
func (b *base) stopRequestedLocked() {
	b.stopping = true
	b.cancelRespawnLocked()
	if b.core != nil {
		b.core.ending = true
	} else {
		// No exit will report it: a respawn that was due is off.
		b.reportEndedLocked()
	}
}

// endGroup ends a harness's process group: the polite signals to the whole
// group, then SIGKILL to the group once the leader has been reaped (done) or
// the grace period is over, which also ends whatever the leader left behind.
// It returns when no process of the group is left: orphans are reaped by
// init, so it waits (at most a second) for the group to be empty.
func endGroup(pgid int, done <-chan struct{}, grace time.Duration, polite ...syscall.Signal) {
	for _, sig := range polite {
		_ = syscall.Kill(-pgid, sig)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-done
	for range 200 {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
