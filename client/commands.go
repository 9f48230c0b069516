package client

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"golang.org/x/sys/unix"
)

// This file holds what the command-line subcommands ask of a server:
// the live statuses for `ls` and `show`, and `kill-server`.

// LiveTimeout bounds how long `ls` and `show` wait on a server that
// answers the door but not the list call.
const LiveTimeout = 10 * time.Second

// LiveStatuses returns each chat as the agent home's server reports it (its
// live status, a pending change of folders), by id, or nil when no server
// answers. It never starts a server.
func LiveStatuses(home string) map[string]proto.ChatJSON {
	live, _ := AskLive(home)
	return live
}

// Unanswered says that a server holds the agent home but could not be
// asked: Status is what `ls` and `show` print for every chat then ("server
// busy", "not reachable"), rather than a status invented for it.
type Unanswered struct {
	Status string
	Err    error
}

func (u *Unanswered) Error() string {
	return fmt.Sprintf("the server did not answer (%s): %v", u.Status, u.Err)
}

func (u *Unanswered) Unwrap() error { return u.Err }

// Statuses that say the server could not be asked.
const (
	StatusBusy        = "server busy"
	StatusUnreachable = "not reachable"
)

// AskLive is LiveStatuses that says why it has nothing: nil, nil when no
// server runs (every chat is stopped, truly); an *Unanswered when a server
// runs but did not answer within LiveTimeout, or could not be reached. It
// asks only the live part (_acpmux/live), which the server answers without
// reading a chat file: the caller reads the files itself. Each value holds
// a chat's id and live fields only.
func AskLive(home string) (map[string]proto.ChatJSON, error) {
	var res proto.LiveResult
	if ok, err := ask(home, proto.MethodLive, &res); !ok {
		return nil, err
	}
	live := make(map[string]proto.ChatJSON, len(res.Chats))
	for _, l := range res.Chats {
		live[l.ID] = proto.ChatJSON{ID: l.ID, Status: l.Status, StatusFrom: l.StatusFrom, Unread: l.Unread,
			PendingDirectories: l.PendingDirectories, PendingFiles: l.PendingFiles, FoldersVia: l.FoldersVia,
			Usage: l.Usage, Failed: l.Failed, Failure: l.Failure, SignIn: l.SignIn}
	}
	return live, nil
}

// AskList returns every chat as the agent home's server lists them, in its
// order (the store's: by creation, broken files last), with their live
// statuses. Like AskLive it returns nil, nil when no server runs, and an
// *Unanswered when one runs but could not be asked; it never starts one.
func AskList(home string) (*proto.ListResult, error) {
	var list proto.ListResult
	if ok, err := ask(home, proto.MethodList, &list); !ok {
		return nil, err
	}
	if list.Chats == nil {
		list.Chats = []proto.ChatJSON{}
	}
	return &list, nil
}

// ask makes one call of the agent home's server, if one runs, within
// LiveTimeout; ok is false when it could not (err nil: no server runs).
func ask(home, method string, result any) (ok bool, err error) {
	c, err := Dial(home)
	if errors.Is(err, ErrNoServer) {
		if pid := proto.LockHolder(home); pid > 0 && processStart(pid) != "" && lockHeld(home) {
			return false, &Unanswered{Status: StatusUnreachable, Err: err}
		}
		return false, nil
	}
	if errors.Is(err, syscall.EAGAIN) {
		return false, &Unanswered{Status: StatusBusy, Err: err}
	}
	if err != nil {
		return false, &Unanswered{Status: StatusUnreachable, Err: err}
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), LiveTimeout)
	defer cancel()
	if err := c.Call(ctx, method, struct{}{}, result); err != nil {
		return false, &Unanswered{Status: StatusBusy, Err: err}
	}
	return true, nil
}

// Rename renames chat id through the agent home's server when one runs, so
// the server and every client it serves see the new name, and returns the
// chat as the server has it then. With no server it returns nil, nil and
// starts none: the caller renames in the store itself. A name the server
// refuses is a *sessions.NameError.
func Rename(home, id, name string) (*proto.ChatJSON, error) {
	chat, err := callIfRunning(home, proto.MethodRename, proto.RenameParams{ID: id, Name: name})
	var rpc *RPCError
	if errors.As(err, &rpc) && rpc.Code == proto.CodeInvalidParams {
		return nil, fmt.Errorf("rename chat %s: %w", id, &sessions.NameError{Name: name, Reason: strings.TrimPrefix(rpc.Message, "Invalid params: ")})
	}
	if err != nil {
		return nil, remoteError(err)
	}
	return chat, nil
}

// callIfRunning makes one call that answers a chat on the agent home's
// server, when one runs: nil, nil when none does (it starts none). A
// refusal comes back as the server's *RPCError.
func callIfRunning(home, method string, params any) (*proto.ChatJSON, error) {
	c, err := Dial(home)
	if errors.Is(err, ErrNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), LiveTimeout)
	defer cancel()
	var chat proto.ChatJSON
	if err := c.Call(ctx, method, params, &chat); err != nil {
		return nil, err
	}
	return &chat, nil
}

// FoldersChanged tells the agent home's server, when one runs, that chat
// id's stored folders changed, so a running chat takes them at the end of
// its turn, and returns the chat as the server has it then. With no server
// it returns nil and starts none: the next start reads the stored list.
func FoldersChanged(home, id string) (*proto.ChatJSON, error) {
	chat, err := callIfRunning(home, proto.MethodFoldersChanged, proto.ChatParams{ID: id})
	if err != nil {
		return nil, remoteError(err)
	}
	return chat, nil
}

// StatusOf is a chat's status for `ls` and `show`: the live one from
// LiveStatuses, or "stopped" when no server runs it.
func StatusOf(live map[string]proto.ChatJSON, id string) string {
	if c, ok := live[id]; ok {
		return c.Status
	}
	return "stopped"
}

// KillServer asks the agent home's server to stop every harness and end,
// and waits until its process has gone (or ctx ends). It returns the
// server's pid, or ErrNoServer when none answers.
func KillServer(ctx context.Context, home string) (int, error) {
	c, err := Dial(home)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var k proto.KillResult
	if err := c.Call(ctx, proto.MethodKill, struct{}{}, &k); err != nil {
		// A server that was ending (by itself, once idle) as we asked
		// closes the connection unanswered: once its lock is free, none
		// runs, which is what was asked.
		if lockFreed(ctx, home, endingGrace) {
			return 0, fmt.Errorf("%w for %s (%v)", ErrNoServer, home, err)
		}
		return 0, err
	}
	started := processStart(k.Pid)
	// The server closes every connection once its harnesses are stopped.
	select {
	case <-c.Done():
	case <-ctx.Done():
		return k.Pid, fmt.Errorf("server %d is still stopping its harnesses: %w", k.Pid, ctx.Err())
	}
	wait := time.Millisecond
	for !serverGone(home, k.Pid, started) {
		select {
		case <-ctx.Done():
			return k.Pid, fmt.Errorf("server %d has not ended: %w", k.Pid, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
	return k.Pid, nil
}

// serverGone reports whether the server has released the agent home's lock
// (it is free, or another server holds it: an open TUI starts one when its
// server goes) and its process is gone (or only a zombie its parent has
// yet to reap).
func serverGone(home string, pid int, started string) bool {
	if lockHeld(home) && proto.LockHolder(home) == pid {
		return false
	}
	now := processStart(pid)
	return now == "" || now != started
}

// lockHeld reports whether a server holds the agent home's lock; a lock
// file this process may not open counts as held (it cannot tell).
// endingGrace is how long KillServer waits for a server that closed the
// connection unanswered to let go of its lock.
const endingGrace = 2 * time.Second

// lockFreed reports whether the home's server lock is free, or becomes free
// within grace (or before ctx ends).
func lockFreed(ctx context.Context, home string, grace time.Duration) bool {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for lockHeld(home) {
		select {
		case <-tick.C:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

func lockHeld(home string) bool {
	f, err := os.Open(filepath.Join(home, proto.LockName))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) != nil
}

// Snapshot is what a running server holds of a chat now, for an export:
// an ACP chat's transcript and whether a turn was running as it was
// copied, a pty chat's scrollback as plain lines. ok is false when no
// server answers (nothing is started for it).
func Snapshot(home, id string) (entries []proto.Entry, lines []string, turnRunning, ok bool) {
	c, err := Dial(home)
	if err != nil {
		return nil, nil, false, false
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), LiveTimeout)
	defer cancel()
	var tr proto.TranscriptResult
	if err := c.Call(ctx, proto.MethodTranscript, proto.TranscriptParams{ID: id}, &tr); err != nil {
		return nil, nil, false, false
	}
	var h proto.HistoryResult
	if err := c.Call(ctx, proto.MethodHistory, proto.HistoryParams{ID: id, MaxBytes: proto.MaxHistoryBytes}, &h); err != nil {
		return tr.Entries, nil, tr.TurnRunning, true
	}
	return tr.Entries, h.Lines, tr.TurnRunning, true
}

// ChatText is what a running server holds of a chat's conversation: an ACP
// chat's transcript, or a pty chat's scrollback and screen as plain lines
// (at most maxBytes). Both are nil when no server answers or it does not
// run the chat; it never starts a server. A handoff's capsule is made from
// it.
func ChatText(home, id string, maxBytes int) ([]proto.Entry, []string) {
	c, err := Dial(home)
	if err != nil {
		return nil, nil
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), LiveTimeout)
	defer cancel()
	var tr proto.TranscriptResult
	if err := c.Call(ctx, proto.MethodTranscript, proto.TranscriptParams{ID: id}, &tr); err != nil {
		return nil, nil
	}
	var h proto.HistoryResult
	if err := c.Call(ctx, proto.MethodHistory, proto.HistoryParams{ID: id, MaxBytes: maxBytes}, &h); err != nil {
		return tr.Entries, nil
	}
	return tr.Entries, h.Lines
}
