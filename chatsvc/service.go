// Package chatsvc is the chat service: the one place chats are created,
// derived (fork, side chat, handoff, import), removed, renamed and given
// folders, files, worktrees and capsules. The command line, the server's
// handlers, the ACP door, the import and the mux's pool call it; none of
// them re-implements a rule of it, and nothing else calls the store's
// Create or Derive (a test holds them to it).
//
// Its refusals are typed: the shared validator's *sessions.FolderError,
// *sessions.NameError and *sessions.ProjectError, and the service's own
// *Refusal. The server answers each with JSON-RPC -32602 and the command
// line exits 2 on each, each in one place.
package chatsvc

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Options is what a Service is built from.
type Options struct {
	// Store is the agent home's chat store.
	Store *sessions.Store
	// Config and Table return the config and the harness table in effect
	// now: a server reads its config file again while it runs, and every
	// call sees the one in effect at its time. Config's nil means the
	// defaults; Table is required.
	Config func() *config.Config
	Table  func() *harness.Table
	// Getenv reads the environment: the default harness, and where a
	// harness keeps its session logs (a capsule reads them). os.Getenv
	// when nil.
	Getenv func(string) string
	// Live is what runs the chats' harnesses (nil: nothing does).
	Live Live
	// Out, when set, hears the notes on a worktree being made (a detached
	// HEAD, submodules, a dirty base) and the output of its setup command:
	// the command line's stderr. The setup's output is kept for the chat's
	// screen either way.
	Out io.Writer
	// Logger hears what was made and removed; nothing when nil.
	Logger *slog.Logger
}

// Live is what holds the chats that run: a server's mux, or, for the
// command line, the agent home's server asked over its socket (never
// started for it).
type Live interface {
	// Said is what was said in chat id as its harness runs it: an ACP
	// chat's transcript, a terminal chat's last lines (at most maxBytes).
	// Both are nil when nothing runs it. A capsule is made from them.
	Said(id string, maxBytes int) ([]proto.Entry, []string)
	// FoldersChanged tells a running chat that its stored folders or
	// files changed: it takes them at the end of its turn.
	FoldersChanged(id string) error
	// Forget stops chat id's harness and drops what is held of it (its
	// screen), before the chat is removed, so that nothing starts it
	// again.
	Forget(id string) error
}

// Service is the chat service of one agent home. Its methods are safe for
// concurrent use: it holds no state of its own, and the store serialises
// the chat files between goroutines and processes.
type Service struct {
	opt Options
}

// New returns the service over o.Store.
func New(o Options) *Service {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{opt: o}
}

// Store is the store the service writes.
func (s *Service) Store() *sessions.Store { return s.opt.Store }

func (s *Service) config() *config.Config {
	if s.opt.Config != nil {
		if c := s.opt.Config(); c != nil {
			return c
		}
	}
	return config.Defaults()
}

func (s *Service) table() *harness.Table { return s.opt.Table() }

// Refusal is a request the service refuses as it stands, for a reason of
// its own (an unknown harness, a worktree where none can be made, a bad
// origin): outside input refused, as a folder the shared validator
// refuses is. It is JSON-RPC -32602 on the wire, exit status 2 on the
// command line. Its text is the reason alone; the wire adds "Invalid
// params: ".
type Refusal struct {
	Reason string
	// Err is what the refusal came from, when it came from an error
	// (git's answer for a worktree); nil otherwise.
	Err error
}

func (r *Refusal) Error() string { return r.Reason }

// Unwrap is what the refusal came from.
func (r *Refusal) Unwrap() error { return r.Err }

// Code is the JSON-RPC error code of the refusal, -32602.
func (r *Refusal) Code() int { return proto.CodeInvalidParams }

// AsRefusal reports whether err is (or wraps) a *Refusal.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// IsRefusal reports whether err is outside input refused: a *Refusal, or
// one of the shared validator's (a folder or file list, a name, a project
// folder). The server answers these -32602, the command line exits 2.
func IsRefusal(err error) bool {
	if _, ok := AsRefusal(err); ok {
		return true
	}
	if _, ok := sessions.AsFolderError(err); ok {
		return true
	}
	if _, ok := sessions.AsNameError(err); ok {
		return true
	}
	_, ok := sessions.AsProjectError(err)
	return ok
}

func refusef(format string, args ...any) *Refusal {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// UntoldError is a change of a chat's folders or files that was stored but
// not told to its running harness, which takes it at its next start: the
// change stands.
type UntoldError struct {
	ID   string
	What string // "folders", "files", "folders and files"
	Err  error
}

func (e *UntoldError) Error() string {
	return fmt.Sprintf("chat %s: %s stored, but its running harness was not told (it takes them at its next start): %v", e.ID, e.What, e.Err)
}

func (e *UntoldError) Unwrap() error { return e.Err }

// clip keeps a hostile string out of a long message.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	return strings.ToValidUTF8(s[:120], "") + "…"
}

// checkHarness refuses a harness the table does not have.
func (s *Service) checkHarness(name string) error {
	t := s.table()
	if _, ok := t.Get(name); !ok {
		return refusef("unknown harness %q (known: %s)", clip(name), strings.Join(t.Names(), ", "))
	}
	return nil
}

// checkCwd refuses a folder given as a chat's own folder (its project)
// that cannot be one: not an absolute path of an existing directory, or
// one no chat may have (the agent home, /proc, /sys).
func (s *Service) checkCwd(cwd string) error {
	if reason := sessions.PathSyntaxProblem(cwd); reason != "" {
		return refusef("cwd %q: %s", clip(cwd), reason)
	}
	if _, err := s.opt.Store.ProjectFolder(cwd); err != nil {
		if pe, ok := sessions.AsProjectError(err); ok {
			return refusef("cwd %q: %s", clip(cwd), pe.Reason)
		}
		return err
	}
	return nil
}

// checkName refuses a name given that cannot be a chat's; "" (derive one)
// passes.
func checkName(name string) error {
	if name == "" {
		return nil
	}
	return sessions.CheckName(name)
}
