package mux

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// This file holds what a mux tells its owner of its harness processes
// (Options.Started and Options.Ended: a server records them, so the next
// server can end what a dead one left running and start its chats again),
// and how it forks harnesses that must die with it
// (Options.ParentDeathSignal).

// reportStartedLocked tells the owner that a harness process has started.
func (b *base) reportStartedLocked(pid int) {
	if f := b.m.opt.Started; f != nil {
		f(b.id, pid)
	}
}

// reportEndedLocked tells the owner that no harness process of the chat
// runs now, and whether the mux will start one again by itself: a crash's
// respawn is due.
// The chat's taps hear it too, unless a respawn is due.
func (b *base) reportEndedLocked() {
	if f := b.m.opt.Ended; f != nil {
		f(b.id, b.respawn != nil)
	}
	b.taps.endedLocked(b.state, b.respawn != nil)
}

// cancelRespawnLocked drops a respawn a crash scheduled, if one is due.
func (b *base) cancelRespawnLocked() {
	if b.respawn != nil {
		b.respawn.Stop()
		b.respawn = nil
	}
}

// forkThread is the OS thread every harness of a mux with a parent-death
// signal is forked on. The kernel sends that signal when the thread that
// forked the child exits, not the process (prctl(2), PR_SET_PDEATHSIG), and
// Go ends a thread whenever a goroutine locked to it returns: a harness
// forked from an ordinary goroutine's thread could be killed, long after,
// by some other goroutine's LockOSThread and return on that thread
// (golang/go#27505). This goroutine locks its thread and never returns, so
// the thread lives exactly as long as the process.
type forkThread struct {
	once sync.Once
	jobs chan func()
}

// fork runs start, which starts cmd, so that cmd's process gets the mux's
// parent-death signal: on the fork thread, with Pdeathsig set. Without a
// parent-death signal it just runs start.
func (m *Mux) fork(cmd *exec.Cmd, start func() error) error {
	sig := m.opt.ParentDeathSignal
	if sig == 0 {
		return start()
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !setPdeathsig(cmd.SysProcAttr, sig) {
		return start()
	}
	t := &m.forker
	t.once.Do(func() {
		t.jobs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: see forkThread
			for job := range t.jobs {
				job()
			}
		}()
	})
	done := make(chan error, 1)
	t.jobs <- func() { done <- start() }
	return <-done
}
