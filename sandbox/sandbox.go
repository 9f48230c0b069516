// Package sandbox bounds what a chat's harness may touch on disk, with the
// Linux Landlock LSM: it may write only in the chat's folders and files, it
// may read everything else except the Hidden folders.
//
// The restriction is meant to be applied by a small re-exec of our own
// binary that calls Bound.Restrict, then Bound.Prove, then execs the
// harness, so the server itself is never restricted. A Landlock domain holds
// for the process, every thread, and every child, across exec, and cannot be
// lifted.
//
// Off Linux there is no Landlock: ABI, Check, Restrict and the wrapper
// refuse (sandbox_other.go), so a sandboxed chat is never started there.
//
// Everything fails closed: no Landlock, an ABI older than MinABI, a path that
// cannot be opened or is a symlink all make Restrict return an error naming
// the cause, and nothing is restricted then (every path is opened and every
// rule added before the one irreversible call).
package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// MinABI is the oldest Landlock ABI Restrict accepts. Below 3 the kernel
// cannot deny truncate(2) (a root agent could empty any file it can read);
// below 5 it cannot deny ioctl on device files opened later (TIOCSTI into
// another terminal, as root). ABI 5 came with Linux 6.10.
const MinABI = 5

// Bound is what a harness may write and what it may not even read.
// Every path is absolute and clean; the last component of each must not be a
// symlink (pass resolved paths: filepath.EvalSymlinks).
type Bound struct {
	// Writable lists the folders the harness may write in: the chat's
	// folder, its added folders, its scratch TMPDIR, the harness's state
	// folders. Each must exist.
	Writable []string `json:"writable,omitempty"`
	// WritableFiles lists single files the harness may write in place
	// (added files, e.g. ~/.claude.json). Each must exist: the folder that
	// holds one is not writable, so neither creating it nor replacing it
	// by rename is allowed.
	WritableFiles []string `json:"writableFiles,omitempty"`
	// Hidden lists folders the harness may not even read (the agent home).
	// Everything outside them is readable. A Hidden folder may not lie
	// inside a Writable one; a Writable folder inside a Hidden one is
	// writable (and readable).
	Hidden []string `json:"hidden,omitempty"`
	// ReadOnly lists paths inside Writable folders that stay read-only
	// (`.git/hooks`, `.git/config`): bind-mounted read-only in a mount
	// namespace of the harness's own. Each must exist.
	ReadOnly []string `json:"readOnly,omitempty"`
	// Pinned lists folders made mount points so that they cannot be
	// renamed or removed (a `.git` that holds a ReadOnly path, and the
	// Writable folder it lies in). Each must exist.
	Pinned []string `json:"pinned,omitempty"`
	// BindOver lists files bind-mounted onto others in the harness's own
	// mount namespace: From is what the harness finds at To (the server's
	// hook-only socket at its socket's name). Each must exist.
	BindOver []BindMount `json:"bindOver,omitempty"`
}

// BindMount puts file From at path To.
type BindMount struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// NeedsMounts reports whether the bound has mounts to make, which take a
// mount namespace of the harness's own.
func (b Bound) NeedsMounts() bool {
	return len(b.Pinned) > 0 || len(b.ReadOnly) > 0 || len(b.BindOver) > 0
}

// Access rights, by the ABI that introduced them.
const (
	rightsV1 = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
		ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock |
		ll.AccessFSMakeSym

	// fileRights are the only rights Landlock accepts on a rule whose
	// path is not a folder.
	fileRights = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev

	readRights = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir

	// writeRights go to Writable folders: everything but making device
	// nodes (a root agent could mknod a disk and write it raw) and ioctl on
	// devices.
	writeRights = readRights | ll.AccessFSWriteFile | ll.AccessFSRemoveDir |
		ll.AccessFSRemoveFile | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
		ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym |
		ll.AccessFSRefer | ll.AccessFSTruncate

	// writeFileRights go to WritableFiles.
	writeFileRights = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate

	// deviceRights go to the terminal devices: `> /dev/null` opens with
	// O_TRUNC, and a terminal needs ioctl (termios, window size).
	deviceRights = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate |
		ll.AccessFSIoctlDev
)

// handledRights is every filesystem right the given ABI knows, so that each
// is denied unless a rule grants it.
func handledRights(abi int) uint64 {
	r := uint64(rightsV1)
	if abi >= 2 {
		r |= ll.AccessFSRefer
	}
	if abi >= 3 {
		r |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		r |= ll.AccessFSIoctlDev
	}
	return r
}

// EnvMaxABI, when set to a number, caps the Landlock ABI this process
// uses: the kernel is taken to offer at most that version, and 0 to offer
// none. It can only take away (a sandboxed start is then refused, never
// run unsandboxed); it shows what a machine with an older kernel does.
const EnvMaxABI = "ACPMUX_LANDLOCK_ABI_MAX"

// rulesetAttr is the ruleset of a bound under the given ABI: every
// filesystem right handled, and from ABI 6 the scopes, so the harness can
// neither signal a process outside its bound (the server, the user's
// other programs) nor connect to an abstract unix socket made outside it
// (an X server, a session bus: ways to run things unbounded).
func rulesetAttr(abi int) ll.RulesetAttr {
	attr := ll.RulesetAttr{HandledAccessFS: handledRights(abi)}
	if abi >= 6 {
		attr.Scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	return attr
}

// Summary describes the bound in one line, e.g.
// "landlock · writes: 3 folders, 1 file · hides: 1 folder".
func (b Bound) Summary() string {
	s := fmt.Sprintf("landlock · writes: %s, %s",
		plural(len(b.Writable), "folder"), plural(len(b.WritableFiles), "file"))
	if len(b.Hidden) > 0 {
		s += " · hides: " + plural(len(b.Hidden), "folder")
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// validate checks the bound's shape before anything is opened.
func (b Bound) validate() error {
	check := func(kind string, paths []string) error {
		for _, p := range paths {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				return fmt.Errorf("%s %q: not an absolute clean path", kind, p)
			}
			if p == "/" && kind != "writable file" {
				return fmt.Errorf("%s %q: the whole filesystem is no bound", kind, p)
			}
		}
		return nil
	}
	if err := check("writable folder", b.Writable); err != nil {
		return err
	}
	if err := check("writable file", b.WritableFiles); err != nil {
		return err
	}
	if err := check("hidden folder", b.Hidden); err != nil {
		return err
	}
	if err := check("read-only path", b.ReadOnly); err != nil {
		return err
	}
	if err := check("pinned folder", b.Pinned); err != nil {
		return err
	}
	for _, m := range b.BindOver {
		if err := check("bind mount", []string{m.From, m.To}); err != nil {
			return err
		}
	}
	for _, h := range b.Hidden {
		for _, w := range b.Writable {
			if within(h, w) {
				return fmt.Errorf("hidden folder %s lies inside writable folder %s", h, w)
			}
		}
	}
	return nil
}

// within reports whether p is dir or lies below it, component by component
// (/a/bc is not within /a/b).
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}
