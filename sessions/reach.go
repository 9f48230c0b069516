package sessions

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the one rule of what a chat can never be given or served,
// whatever folder of its holds the path and whichever way the path came in
// (a folder or file given to the chat, an agent's fs/* request, a
// terminal's folder, a folder listed for the picker, a chat imported under
// a root above the agent home):
//
//   - the agent home and everything inside it: the chat files of every
//     chat, the socket, the lock, the log. The one part of it a chat may
//     reach is its own folder when that lies inside the agent home (its
//     homes/<id>, or its worktree under worktrees/);
//   - /proc and /sys: a process's memory, environment and open files, and
//     the kernel's settings. Through /proc/self/fd even a file elsewhere is
//     one open away; through /proc/self/environ the server's environment.
//
// A chat whose folder holds the agent home (cwd = ~ or /) keeps the rest of
// that folder: people do run agents in ~.

// Why a path is off limits, as refusals give it.
const (
	reasonIsAgentHome     = "is the agent home (it holds the chat files and the socket)"
	reasonInsideAgentHome = "is inside the agent home (it holds the chat files and the socket)"
	reasonProc            = "is under /proc (a process's memory, environment and open files)"
	reasonSys             = "is under /sys (the kernel's settings)"
)

// OffLimits says why the clean absolute path p may never be given to or
// served for a chat, or "" when the rule allows it. home is the agent home
// and own the chat's own folder, both canonical; own counts only where it
// lies inside the agent home (its homes/<id> or its worktree), and is ""
// where there is no chat (a folder picker's listing, the folders given to
// a chat, which may never be its own folder anyway). p should be canonical
// (symlinks resolved): OffLimits looks at the text alone.
func OffLimits(home, own, p string) string {
	switch {
	case p == "/proc" || IsWithin("/proc", p):
		return reasonProc
	case p == "/sys" || IsWithin("/sys", p):
		return reasonSys
	case home == "" || home == "/":
		return ""
	case p == home:
		return reasonIsAgentHome
	case !IsWithin(home, p):
		return ""
	case own != "" && IsWithin(home, own) && (p == own || IsWithin(own, p)):
		return ""
	}
	return reasonInsideAgentHome
}

// Magic numbers of the file systems OffLimitsFile refuses whatever path
// they are mounted at (statfs(2)).
const (
	procSuperMagic = 0x9fa0
	sysfsMagic     = 0x62656572
)

// OffLimitsFile is OffLimits for a file or folder already open, by where
// the kernel says it is now (/proc/self/fd), not by the path it was opened
// by: a symlink, a folder swapped on the way or a /proc/self/fd link leads
// nowhere the rule forbids. A proc or sysfs file system is refused wherever
// it is mounted. A file whose place cannot be read is refused.
func OffLimitsFile(home, own string, f *os.File) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return "cannot tell where it is: " + err.Error()
	}
	switch st.Type {
	case procSuperMagic:
		return reasonProc
	case sysfsMagic:
		return reasonSys
	}
	p := kernelPath(f.Fd())
	if p == "" {
		return "cannot tell where it is"
	}
	return OffLimits(home, own, p)
}

// ProjectError is a refusal of a chat's own folder as given: not an
// absolute path of an existing directory, or one the rule forbids. It
// carries JSON-RPC code -32602 (invalid params), as a refused folder list
// does.
type ProjectError struct {
	// Given is the folder as given.
	Given string
	// Reason says why it cannot be a chat's folder.
	Reason string
}

func (e *ProjectError) Error() string {
	return fmt.Sprintf("project folder %s: %s", quotePath(e.Given), e.Reason)
}

// Code is the JSON-RPC error code of the refusal.
func (e *ProjectError) Code() int { return proto.CodeInvalidParams }

// AsProjectError reports whether err is (or wraps) a refused project folder.
func AsProjectError(err error) (*ProjectError, bool) {
	var pe *ProjectError
	ok := errors.As(err, &pe)
	return pe, ok
}

// ProjectFolder resolves the folder given as a chat's own (its project):
// the canonical form of an absolute path to an existing directory that
// the rule allows (OffLimits: not the agent home nor inside it, but for a
// worktree under its worktrees/; not under /proc or /sys), or a
// *ProjectError saying why not. A folder that holds the agent home (~, /)
// is allowed: what is inside the home is refused to the chat when asked.
func (s *Store) ProjectFolder(cwd string) (string, error) {
	c, err := Canonical(cwd)
	if err != nil {
		return "", &ProjectError{Given: cwd, Reason: err.Error()}
	}
	if reason := OffLimits(s.home, "", c); reason != "" && !IsWithin(s.WorktreesDir(), c) {
		return "", &ProjectError{Given: cwd, Reason: reason}
	}
	return c, nil
}
