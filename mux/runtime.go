package mux

import (
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// chatRunner is one chat's running harness, whatever its transport: a pty
// (ptyChat) or an ACP connection (acpChat). The Mux routes every call
// through it.
type chatRunner interface {
	// foldersChanged takes the chat's stored folders after a change; true
	// when a restart is to apply them now (pending.go).
	foldersChanged(meta *sessions.Meta, spec harness.Spec) bool
	claimApply() bool
	applyDone()
	// start spawns the harness unless one runs; restart marks a restart.
	start(cols, rows int, restart bool) error
	// stop ends the harness and waits for it.
	stop()
	// waitExit blocks until the current process has ended.
	waitExit()
	snapshot() proto.State
	// seen clears the unread mark: someone looks at the chat (turns.go).
	seen()
	render(scroll int) string
	plainLines() []string
	write(p []byte) error
	resize(cols, rows int)
	// notice is the chat's change notice state (notice.go).
	notice() *noticeFlag
	chatID() string
}

// noticer is what a change notice needs of a chat.
type noticer interface {
	notice() *noticeFlag
	chatID() string
}
