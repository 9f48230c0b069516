package mux

import (
	"slices"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file applies a change of a running chat's folders or single files at
// the end of its turn, the two alike. The new list is stored first, by
// whoever changed it; FoldersChanged tells the mux, which:
//   - serves the new list through fs/* at once (a folder taken off is
//     refused from that moment);
//   - marks the change pending (State.PendingDirectories, PendingFiles)
//     while the harness runs with the old list;
//   - applies it once the chat is idle: at once if it is, else when the turn
//     ends (an ACP prompt returns; a pty harness goes quiet, rings or says
//     it is done). Applying is a restart that resumes the conversation: an
//     ACP agent that can load or resume sessions is started again and loads
//     its session with the complete new list; an agent that cannot gets a
//     note naming the folders at the head of its next prompt instead, since
//     a new process would lose the conversation. Either way a file added is
//     linked (a resource_link block) at the head of the next prompt. A pty
//     harness that resumes (Claude Code, Gemini CLI, Codex once its session
//     is known) is restarted resuming it with the new flags and
//     environment; one that cannot keeps the change pending until the user
//     restarts it (`r`).
//
// Several changes within a turn are one restart: the restart reads the list
// stored when it starts.

// FoldersChanged tells the mux that chat id's stored folders or single files
// changed. A chat the mux does not run takes the new lists at its next
// start.
func (m *Mux) FoldersChanged(id string) error {
	c, err := m.existing(id)
	if err != nil {
		return nil
	}
	meta, err := m.opt.Store.Load(id)
	if err != nil {
		return err
	}
	spec, _ := m.table().Get(meta.Harness)
	if c.foldersChanged(meta, spec) {
		go m.applyFolders(id)
	}
	m.notify(c)
	return nil
}

// ResumesConversation reports whether a restart of the chat's pty harness
// continues its conversation, so that a folder change may restart it
// without asking: Claude Code and Gemini CLI always (their session id is
// ours from the first start), Codex once its session has been learned.
func ResumesConversation(spec harness.Spec, meta *sessions.Meta) bool {
	if spec.Kind == harness.KindCodex && meta.AgentSessionID == "" {
		return false
	}
	return spec.Resumes()
}

// applyFolders restarts chat id to apply its pending folder change, unless
// the change was applied (or dropped) meanwhile. A restart the folders
// refuse leaves the harness running, with the refusal shown.
func (m *Mux) applyFolders(id string) {
	c, err := m.existing(id)
	if err != nil || !c.claimApply() {
		return
	}
	m.opt.Logger.Info("applying a change of folders", "chat", id)
	if err := m.Restart(id, 0, 0); err != nil {
		m.opt.Logger.Error("apply a change of folders", "chat", id, "err", err)
	}
	c.applyDone()
}

// pendingLocked sets or clears the pending change: dirs and files are the
// lists stored, b.applied and b.appliedFiles the ones the running harness
// has. It reports whether anything is pending.
func (b *base) pendingLocked(dirs, files []string) bool {
	if slices.Equal(dirs, b.applied) {
		b.state.PendingDirectories, b.state.RunningDirectories = nil, nil
	} else {
		b.state.PendingDirectories = append([]string{}, dirs...)
		b.state.RunningDirectories = append([]string{}, b.applied...)
	}
	if slices.Equal(files, b.appliedFiles) {
		b.state.PendingFiles, b.state.RunningFiles = nil, nil
	} else {
		b.state.PendingFiles = append([]string{}, files...)
		b.state.RunningFiles = append([]string{}, b.appliedFiles...)
	}
	return b.state.Pending()
}

// clearPendingLocked drops the pending change: no process runs to take it.
func (b *base) clearPendingLocked() {
	b.state.PendingDirectories, b.state.RunningDirectories = nil, nil
	b.state.PendingFiles, b.state.RunningFiles = nil, nil
}

// claimApply takes the pending change for one restart; false when none is
// pending or one is under way.
func (b *base) claimApply() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.state.Pending() || b.applying || b.core == nil {
		return false
	}
	b.applying = true
	return true
}

func (b *base) applyDone() {
	b.mu.Lock()
	b.applying = false
	b.mu.Unlock()
}

// appliedLocked records the folders and files a new process starts with
// (or, for an ACP agent that cannot be restarted, has been told of):
// nothing is pending after it.
func (b *base) appliedLocked(dirs, files []string) {
	b.applied = append([]string{}, dirs...)
	b.appliedFiles = append([]string{}, files...)
	b.clearPendingLocked()
	b.state.PendingUntilRestart = false
}

// foldersChanged takes the stored list of a pty chat; true when it is to
// be applied now.
func (c *ptyChat) foldersChanged(meta *sessions.Meta, spec harness.Spec) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc == nil || c.pooled != nil {
		c.clearPendingLocked()
		return false
	}
	c.resumes = ResumesConversation(spec, meta)
	pending := c.pendingLocked(meta.AdditionalDirectories, meta.AdditionalFiles)
	c.state.PendingUntilRestart = pending && !c.resumes
	return pending && c.resumes && c.state.Status == proto.StatusWaiting
}

// turnEndedLocked is called as a pty chat starts waiting for input: a
// pending change that a restart can apply without losing the conversation
// is applied now.
func (c *ptyChat) turnEndedLocked() {
	if c.state.Pending() && c.resumes && !c.applying {
		go c.m.applyFolders(c.id)
	}
}

// foldersChanged takes the stored lists of an ACP chat: fs/* serves them at
// once; an agent that can load or resume its session is restarted with them
// when its turn ends (true: now, no turn runs), and so gets the new bound
// when sandboxed; one that cannot is told of the folders (a note) and of
// the files added (resource_link blocks) at the head of its next prompt,
// unless it is sandboxed: then the change waits for a restart.
func (c *acpChat) foldersChanged(meta *sessions.Meta, _ harness.Spec) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.proc
	if p == nil {
		c.clearPendingLocked()
		return false
	}
	p.roots.SetFolders(meta.Cwd, meta.AdditionalDirectories)
	p.roots.SetFiles(meta.AdditionalFiles)
	dirsChanged := !slices.Equal(meta.AdditionalDirectories, c.applied)
	if !c.pendingLocked(meta.AdditionalDirectories, meta.AdditionalFiles) {
		return false
	}
	if !p.reloads && p.bounded {
		// A sandboxed agent's bound is the folders it started with: the
		// change waits for its next start, which the user makes.
		c.state.PendingUntilRestart = true
		return false
	}
	if !p.reloads {
		// The lists go to the agent with the next prompt; the change
		// counts as applied once that prompt is sent. A list emptied has
		// nothing to name: fs/* already refuses what was removed.
		p.folders = append([]string{}, meta.AdditionalDirectories...)
		p.files = append([]string{}, meta.AdditionalFiles...)
		if dirsChanged {
			p.noteDue = len(p.folders) > 0
		}
		if !p.noteDue && len(c.linksDueLocked(p)) == 0 {
			c.appliedLocked(p.folders, p.files)
		}
		return false
	}
	return !c.state.TurnActive && c.state.Status == proto.StatusWaiting
}

// turnEndedLocked is called as an ACP turn ends: a pending change is
// applied now.
func (c *acpChat) turnEndedLocked() {
	if c.state.Pending() && c.proc != nil && c.proc.reloads && !c.applying {
		go c.m.applyFolders(c.id)
	}
}
