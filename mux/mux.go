// Package mux is the embedded multiplexer: it spawns each chat's harness in a
// pty, feeds its output to a terminal screen, forwards input and resizes,
// respawns it with its stored folders, and reports status. It knows nothing
// of Bubble Tea; the TUI reads it through Changes, State and Render.
package mux

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/google/uuid"
)

// ErrUnknownChat is returned for an id the mux has never seen started.
var ErrUnknownChat = errors.New("chat is not running")

// Options configure a Mux.
type Options struct {
	Store  *sessions.Store
	Table  *harness.Table
	Config *config.Config
	Logger *slog.Logger
	// Getenv and Environ describe the environment harnesses inherit;
	// os.Getenv and os.Environ when nil.
	Getenv  func(string) string
	Environ func() []string
	// Grace is how long a stopped harness has between SIGTERM and SIGKILL
	// (default 3 s).
	Grace time.Duration
	// QuietAfter is how long a chat is silent after output before it counts
	// as waiting for input (default 1.5 s).
	QuietAfter time.Duration
	// HoldFor is how long the output of a chat no one draws may wait to be
	// told (SetDrawn; default DefaultHoldFor).
	HoldFor time.Duration
	// MaxRespawns is how many crashes in a row of runs shorter than
	// RespawnWindow are respawned before the chat is marked failed (default
	// 5, of runs under a minute); a run that lasts longer starts the count
	// again.
	MaxRespawns   int
	RespawnWindow time.Duration
	// BackoffBase is the delay before the first respawn; it doubles with each
	// crash counted (default 250 ms).
	BackoffBase time.Duration
	// Wire, when set, sees every message sent to an ACP agent, with the
	// chat's id (tests validate them against the ACP schema).
	Wire func(chatID string, message []byte)
	// Started, when set, hears of each harness process the mux starts: the
	// chat's id and the process's pid, which is also its process group.
	// Ended hears that no harness process of the chat runs any more (it
	// exited, crashed, was stopped, or a start failed), and whether the mux
	// will start one again by itself (a crash's respawn is due). Both are
	// called in the order of the events, with the chat's lock held: they
	// must be quick and must not call the mux.
	Started func(id string, pid int)
	Ended   func(id string, respawning bool)
	// ParentDeathSignal, when set, is sent to each harness by the kernel
	// if the mux's process dies (a server killed with SIGKILL), so that no
	// harness outlives it unseen (see forkThread).
	ParentDeathSignal syscall.Signal
	// NeedsUser, when set, hears of a chat that asks for its user (status
	// asking) or has finished a turn (waiting) while nobody looks at it
	// (see Look). It is called with the chat's lock held: it must be quick
	// and must not call the mux.
	NeedsUser func(id string, s proto.Status)
	// Self and Home, when both set, let Claude Code and Codex chats report
	// their turns: their starts run `Self hook ...`, which tells Home's
	// server (harness.LaunchOptions).
	Self, Home string
	// Wrapper is the program a sandboxed chat's harness is started
	// through: one that runs sandbox.Main when its first argument is
	// sandbox.Command (acpmux-tui itself does, from an early init). Self
	// when empty; with neither, a sandboxed chat's start is refused.
	Wrapper string
}

// Mux runs the harnesses of chats. All methods are safe for concurrent use.
type Mux struct {
	opt     Options
	changes chan string

	mu     sync.Mutex
	chats  map[string]chatRunner
	pool   *pool
	closed bool

	looks looks // which chat each viewer shows (turns.go)

	live atomic.Pointer[liveConfig] // the config and table in effect (reconfigure.go)

	forker forkThread

	mcp mcpServers // what ACP clients asked each chat's agent to get (acpapi.go)

	baselines baselines // first starts' baselines being recorded (baseline.go)

	held heldNotices // output notices of chats no one draws (notice.go)
	// echo, when set, is offered a drawn chat's output first (SetEcho).
	echo atomic.Pointer[func(id string) bool]

	signIns signIns // terminal sign-in chats running (acpauth.go)
}

// New returns a mux; nothing is spawned until Start (or the pool fills).
func New(opt Options) *Mux {
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Environ == nil {
		opt.Environ = os.Environ
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Config == nil {
		opt.Config = config.Defaults()
	}
	if opt.Grace == 0 {
		opt.Grace = 3 * time.Second
	}
	if opt.QuietAfter == 0 {
		opt.QuietAfter = 1500 * time.Millisecond
	}
	if opt.HoldFor == 0 {
		opt.HoldFor = DefaultHoldFor
	}
	if opt.MaxRespawns == 0 {
		opt.MaxRespawns = 5
	}
	if opt.RespawnWindow == 0 {
		opt.RespawnWindow = time.Minute
	}
	if opt.BackoffBase == 0 {
		opt.BackoffBase = 250 * time.Millisecond
	}
	m := &Mux{opt: opt, changes: make(chan string, 1024), chats: map[string]chatRunner{}}
	m.pool = newPool(m)
	m.live.Store(&liveConfig{opt.Config, opt.Table})
	return m
}

// Changes delivers the id of a chat whose screen or state changed. A chat is
// delivered at most once until the receiver calls State or Render for it, so
// a flood of output is one message per frame, not one per read. The output
// of a chat no one draws may wait up to Options.HoldFor (SetDrawn).
func (m *Mux) Changes() <-chan string { return m.changes }

// chat returns the chat's runtime, creating it on first use: a pty or an
// ACP runtime as its harness's transport says.
func (m *Mux) chat(id string) (chatRunner, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.chats[id]; ok {
		return c, nil
	}
	meta, err := m.opt.Store.Load(id)
	if err != nil {
		return nil, err
	}
	spec, ok := m.table().Get(meta.Harness)
	if !ok {
		return nil, fmt.Errorf("chat %s: unknown harness %q", id, meta.Harness)
	}
	var c chatRunner
	if spec.Transport == harness.TransportACP {
		c = newACPChat(m, id)
	} else {
		c = newPtyChat(m, id)
	}
	m.chats[id] = c
	return c, nil
}

func (m *Mux) existing(id string) (chatRunner, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return nil, fmt.Errorf("%s: %w", id, ErrUnknownChat)
	}
	return c, nil
}

// Start starts the chat's harness if it is not running, in a pty of
// cols x rows, with the folders stored for it now. A stored folder that has
// gone refuses the start (a *FoldersGoneError); nothing is dropped silently.
func (m *Mux) Start(id string, cols, rows int) error {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return errors.New("mux is closed")
	}
	c, err := m.chat(id)
	if err != nil {
		return err
	}
	return m.current(id, c).start(cols, rows, false)
}

// FoldersFixed hears that the chat's gone folders and files were taken out
// of its lists (M, removeMissing): a refusal they caused leaves its state
// (its failed status, its last error), so no view goes on showing it.
func (m *Mux) FoldersFixed(id string) {
	c, err := m.chat(id)
	if err != nil {
		return
	}
	if g, ok := c.(interface{ clearGone() bool }); ok {
		g.clearGone()
	}
}

// Restart stops the chat's harness and starts it again with its stored
// folders. A running harness is stopped only once the new start has passed
// every check a start makes (the harness, the chat's folder, the stored
// folders through the shared validator): a refusal is returned and recorded
// as the chat's last error, and the running harness is left as it is, so `r`
// on a chat whose folder has gone never leaves it stopped.
func (m *Mux) Restart(id string, cols, rows int) error {
	c, err := m.chat(id)
	if err != nil {
		return err
	}
	if r, ok := c.(restartChecker); ok && r.live() {
		if err := m.checkRestart(id); err != nil {
			r.noteRefusal(err)
			return err
		}
	}
	c.stop()
	return m.current(id, c).start(cols, rows, true)
}

// restartChecker is what Restart needs of a runner to check before it
// stops; every runner has it through base.
type restartChecker interface {
	live() bool
	noteRefusal(err error)
}

// checkRestart makes the checks of a start without starting anything, and
// phrases a refusal as a restart's: the harness keeps running.
func (m *Mux) checkRestart(id string) error {
	meta, err := m.opt.Store.Load(id)
	if err != nil {
		return fmt.Errorf("chat %s not restarted (its harness keeps running): %w", id, err)
	}
	_, _, err = m.launchFor(meta)
	var gone *proto.FoldersGoneError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &gone):
		refused := *gone
		refused.Running = true
		return &refused
	}
	return fmt.Errorf("chat %s not restarted (its harness keeps running): %w", id, err)
}

// Stop ends the chat's harness: SIGTERM to its process group, SIGKILL after
// the grace period, and waits for it. A chat that is not running is left as
// it is.
func (m *Mux) Stop(id string) {
	if c, err := m.existing(id); err == nil {
		c.stop()
	}
}

// Forget stops the chat and drops its screen, as when the chat is deleted.
func (m *Mux) Forget(id string) {
	m.mu.Lock()
	c, ok := m.chats[id]
	delete(m.chats, id)
	m.mu.Unlock()
	if ok {
		c.stop()
	}
}

// Write sends input to the chat's harness.
func (m *Mux) Write(id string, p []byte) error {
	c, err := m.existing(id)
	if err != nil {
		return err
	}
	return c.write(p)
}

// Resize sets the chat's pty and screen size.
func (m *Mux) Resize(id string, cols, rows int) {
	if c, err := m.existing(id); err == nil {
		c.resize(cols, rows)
	}
}

// ResizeAll sets every chat's pty and screen to one size, as on a change of
// the terminal's size.
func (m *Mux) ResizeAll(cols, rows int) {
	m.mu.Lock()
	all := make([]chatRunner, 0, len(m.chats))
	for _, c := range m.chats {
		all = append(all, c)
	}
	m.mu.Unlock()
	for _, c := range all {
		c.resize(cols, rows)
	}
}

// Known returns the ids of the chats this mux holds (started at least once
// since it was made), in no order.
func (m *Mux) Known() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.chats))
	for id := range m.chats {
		ids = append(ids, id)
	}
	return ids
}

// State returns the chat's harness state; a chat never started is stopped.
func (m *Mux) State(id string) proto.State {
	c, err := m.existing(id)
	if err != nil {
		return proto.State{Status: proto.StatusStopped}
	}
	return c.snapshot()
}

// Render returns the chat's screen as lines with SGR styling, scrolled up by
// scroll lines into the scrollback (0 is the live screen).
func (m *Mux) Render(id string, scroll int) string {
	c, err := m.existing(id)
	if err != nil {
		return ""
	}
	return c.render(scroll)
}

// PlainLines returns the chat's live screen as plain text lines, for tests
// and scripts.
func (m *Mux) PlainLines(id string) []string {
	c, err := m.existing(id)
	if err != nil {
		return nil
	}
	return c.plainLines()
}

// Wait blocks until the chat's current harness process has ended.
func (m *Mux) Wait(id string) {
	if c, err := m.existing(id); err == nil {
		c.waitExit()
	}
}

// Close stops every chat and pooled harness, and waits for them all. After
// Close no process started by the mux remains.
func (m *Mux) Close() {
	m.mu.Lock()
	m.closed = true
	all := make([]chatRunner, 0, len(m.chats))
	for _, c := range m.chats {
		all = append(all, c)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range all {
		wg.Add(1)
		go func() { defer wg.Done(); c.stop() }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); m.pool.close() }()
	wg.Wait()
	m.closeBaselines()
}

// launchFor builds the start of a chat's harness from its stored metadata,
// checking the stored folders and files again first.
func (m *Mux) launchFor(meta *sessions.Meta) (harness.Spec, harness.Launch, error) {
	if spec, l, ok := m.signInLaunch(meta); ok {
		return spec, l, nil
	}
	spec, ok := m.table().Get(meta.Harness)
	if !ok {
		return spec, harness.Launch{}, fmt.Errorf("chat %s: unknown harness %q", meta.ID, meta.Harness)
	}
	gone, err := storedFolderProblems(m.opt.Store, meta)
	if err != nil {
		return spec, harness.Launch{}, fmt.Errorf("chat %s: %w", meta.ID, err)
	}
	goneFiles, err := storedFileProblems(m.opt.Store, meta)
	if err != nil {
		return spec, harness.Launch{}, fmt.Errorf("chat %s: %w", meta.ID, err)
	}
	if gone = append(gone, goneFiles...); len(gone) > 0 {
		return spec, harness.Launch{}, &proto.FoldersGoneError{ChatID: meta.ID, Problems: gone}
	}
	if _, err := sessions.Canonical(meta.Cwd); err != nil {
		return spec, harness.Launch{}, fmt.Errorf("chat %s: its folder %s: %w", meta.ID, meta.Cwd, err)
	}
	l, err := spec.BuildLaunch(meta, harness.LaunchOptions{
		Getenv: m.opt.Getenv, Environ: m.opt.Environ(), NewSessionID: func() string { return uuid.NewString() },
		ForkFrom: m.forkFrom(spec, meta), Self: m.opt.Self, Home: m.opt.Home,
	})
	if err != nil || !meta.Sandbox {
		return spec, l, err
	}
	// A sandboxed chat: its bound from the lists just checked, made and
	// checked here (Landlock, its ABI, every path opened), so a bound that
	// cannot hold refuses the start with its reason. Never unsandboxed.
	b, err := spec.Bound(meta, m.opt.Store.Home(), l.Env, true)
	if err == nil {
		err = b.Check()
	}
	if err != nil {
		return spec, l, fmt.Errorf("chat %s: sandbox: %w", meta.ID, err)
	}
	wrapper := m.opt.Wrapper
	if wrapper == "" {
		wrapper = m.opt.Self
	}
	l.SetBound(b, wrapper)
	return spec, l, nil
}

// recordVias stores in the chat's file the way its folders and its files
// went at this start (each as if it had some, so that it holds once some
// are added), when the file says otherwise; one write for both. A failure
// is logged: the harness runs all the same, and views fall back to the
// table's expectation.
func (m *Mux) recordVias(meta *sessions.Meta, folders, files string) {
	if meta.FoldersVia == folders && meta.FilesVia == files {
		return
	}
	if _, err := m.opt.Store.Update(meta.ID, func(s *sessions.Meta) error {
		s.FoldersVia, s.FilesVia = folders, files
		return nil
	}); err != nil {
		m.opt.Logger.Warn("could not record how the folders and files went", "chat", meta.ID, "err", err)
	}
}

// forkFrom is, for a fork of a Claude Code or Codex chat, the parent's
// session of the same harness kind, which the fork's first start branches;
// "" for any other chat, or when the parent has gone or never started.
func (m *Mux) forkFrom(spec harness.Spec, meta *sessions.Meta) string {
	if spec.Kind != harness.KindClaude && spec.Kind != harness.KindCodex || meta.Origin != sessions.OriginFork || meta.Parent == "" {
		return ""
	}
	parent, err := m.opt.Store.Load(meta.Parent)
	if err != nil {
		return ""
	}
	if ps, ok := m.table().Get(parent.Harness); !ok || ps.Kind != spec.Kind {
		return ""
	}
	return parent.AgentSessionID
}

// storedFolderProblems checks a chat's stored folders as every start does:
// through the shared validator (each must exist, be a folder, and not be the
// chat's own), and then that each still resolves to the folder stored, so a
// folder swapped for a symlink elsewhere is not followed silently. The
// problems are in list order, one per folder; a list the validator refuses
// as a whole (too many) is an error.
func storedFolderProblems(store *sessions.Store, meta *sessions.Meta) ([]proto.FolderProblem, error) {
	_, err := store.ValidateFolders(meta.Cwd, meta.AdditionalDirectories)
	var problems []proto.FolderProblem
	if err != nil {
		fe, ok := sessions.AsFolderError(err)
		if !ok || fe.TooMany || fe.Unlisted > 0 {
			return nil, fmt.Errorf("stored folders: %w", err)
		}
		problems = fe.Problems
	}
	seen := map[int]bool{}
	for _, p := range problems {
		seen[p.Index] = true
	}
	for _, p := range sessions.CheckStoredFolders(meta.Cwd, meta.AdditionalDirectories) {
		if !seen[p.Index] {
			problems = append(problems, p)
		}
	}
	slices.SortStableFunc(problems, func(a, b proto.FolderProblem) int { return a.Index - b.Index })
	return problems, nil
}

// storedFileProblems checks a chat's stored single files as every start
// does: through the shared validator (each must exist and be a regular
// file, outside the agent home) and then that each still resolves to the
// file stored. The problems (Field FieldFiles) are in list order; a list
// the validator refuses as a whole (too many) is an error.
func storedFileProblems(store *sessions.Store, meta *sessions.Meta) ([]proto.FolderProblem, error) {
	if len(meta.AdditionalFiles) == 0 {
		return nil, nil
	}
	_, err := store.ValidateFiles(meta.Cwd, meta.AdditionalFiles)
	var problems []proto.FolderProblem
	if err != nil {
		fe, ok := sessions.AsFolderError(err)
		if !ok || fe.TooMany || fe.Unlisted > 0 {
			return nil, fmt.Errorf("stored files: %w", err)
		}
		problems = fe.Problems
	}
	seen := map[int]bool{}
	for _, p := range problems {
		seen[p.Index] = true
	}
	for _, p := range sessions.CheckStoredFiles(meta.AdditionalFiles) {
		if !seen[p.Index] {
			problems = append(problems, p)
		}
	}
	for i := range problems {
		problems[i].Field = proto.FieldFiles
	}
	slices.SortStableFunc(problems, func(a, b proto.FolderProblem) int { return a.Index - b.Index })
	return problems, nil
}
