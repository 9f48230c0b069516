package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is where a chat command runs: this machine, whose chats the
// chat service makes and changes in the agent home's store, or a host
// (--host), whose server does, called as the TUI calls it. The commands
// (new, add-dir, rm-dir, fork, side, handoff, rm, rename) are one run
// function each over a target; --host picks the target, not the code.

// chatClient is what the chat commands do to chats, wherever they are.
// Its calls but Resolve and RemoveChat are the TUI's (tui.ChatStore), so
// *client.Remote makes them for a host.
type chatClient interface {
	// Resolve finds the chat an ID argument means: the id, the exact
	// name, or a unique prefix of either.
	Resolve(ref string) (sessions.Entry, error)
	Create(n sessions.NewChat) (*sessions.Meta, error)
	Derive(parent string, d sessions.Derivation) (*sessions.Meta, error)
	Capsule(parent string, d sessions.Derivation) (string, error)
	Rename(id, name string) (*sessions.Meta, error)
	AddFolders(id string, dirs []string) (*sessions.Meta, error)
	RemoveFolders(id string, dirs []string) (*sessions.Meta, error)
	// RemoveChat deletes a chat, a worktree chat's branch too when asked.
	RemoveChat(p proto.RemoveParams) (proto.RemoveReport, error)
}

// target is where a command runs: this machine (host "") or a host.
type target struct {
	a     *app
	host  string
	chats chatClient
	link  *hostLink // a host's
}

// onTarget runs do against host's server over ssh, or for "" against this
// machine's agent home.
func (a *app) onTarget(host string, do func(t *target) error) error {
	if host != "" {
		return a.onHost(host, func(l *hostLink) error {
			return do(&target{a: a, host: host, link: l, chats: &hostChats{l: l, r: client.CallsOn(l.conn)}})
		})
	}
	if err := a.open(); err != nil {
		return err
	}
	return do(&target{a: a, chats: localChats{a}})
}

// path takes a path typed on the command line as the target has it: here,
// resolved against this process's folder ("~" against $HOME); on a host,
// an absolute path, as that host has it (a relative path or ~ is this
// machine's, refused before anything is sent).
func (t *target) path(flag, p string) (string, error) {
	if t.host == "" {
		return t.a.absPath(p), nil
	}
	if !filepath.IsAbs(p) {
		return "", usagef("%s %q: a folder on host %s must be an absolute path (a relative or ~ path is this machine's)", flag, p, t.host)
	}
	return p, nil
}

// paths is path of each.
func (t *target) paths(flag string, ps []string) ([]string, error) {
	out := make([]string, len(ps))
	for i, p := range ps {
		var err error
		if out[i], err = t.path(flag, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cwd takes --cwd as path does; here, a folder that cannot be had is
// refused naming the text typed.
func (t *target) cwd(given string) (string, error) {
	if given == "" {
		return "", nil
	}
	cwd, err := t.path("--cwd", given)
	if err != nil || t.host != "" {
		return cwd, err
	}
	if _, err := sessions.Canonical(cwd); err != nil {
		return "", usagef("--cwd %q: %v", given, err)
	}
	return cwd, nil
}

// same is the form in which a path given is compared with a chat's stored
// ones (which are canonical): here the canonical form of a folder (or of
// a file), on a host the path cleaned (its file system is not this one);
// ok is false when there is none.
func (t *target) same(p string, file bool) (string, bool) {
	if t.host != "" {
		return filepath.Clean(p), true
	}
	canonical := sessions.Canonical
	if file {
		canonical = sessions.CanonicalFile
	}
	c, err := canonical(p)
	return c, err == nil
}

// print prints a chat the command made or changed, as show does; with
// asJSON and a capsule, the JSON carries the capsule too.
func (t *target) print(m *sessions.Meta, asJSON bool, capsuleText string) error {
	if t.host == "" {
		if asJSON && capsuleText != "" {
			return t.a.printJSON(withCapsule(t.a.view(sessions.Entry{ID: m.ID, Meta: m}), capsuleText))
		}
		return t.a.printChat(sessions.Entry{ID: m.ID, Meta: m}, asJSON)
	}
	c, err := t.link.chat(m.ID)
	if err != nil {
		return err
	}
	if asJSON && capsuleText != "" {
		return t.a.printJSON(withCapsule(c, capsuleText))
	}
	return t.a.printView(c, t.host, nil, asJSON)
}

// warnNotInstalled warns on stderr when a chat just made here runs a
// harness that is not installed (a host's table is not this one).
func (t *target) warnNotInstalled(harnessName string) {
	if t.host == "" {
		t.a.warnNotInstalled(harnessName)
	}
}

// untold says on stderr that a change stored was not told to the running
// harness, and lets the command go on; any other error ends it.
func (t *target) untold(err error) error {
	var ue *chatsvc.UntoldError
	if errors.As(err, &ue) {
		fmt.Fprintf(t.a.stderr, "acpmux-tui: %v\n", err)
		return nil
	}
	return err
}

// localChats is this machine's chats: the chat service over the agent
// home's store, with the agent home's server (when one runs) as its Live.
type localChats struct{ a *app }

func (l localChats) Resolve(ref string) (sessions.Entry, error) { return l.a.store.Resolve(ref) }
func (l localChats) Create(n sessions.NewChat) (*sessions.Meta, error) {
	return l.a.service().Create(n)
}
func (l localChats) Derive(parent string, d sessions.Derivation) (*sessions.Meta, error) {
	return l.a.service().Derive(parent, d)
}
func (l localChats) Capsule(parent string, d sessions.Derivation) (string, error) {
	return l.a.service().Capsule(parent, d)
}
func (l localChats) AddFolders(id string, dirs []string) (*sessions.Meta, error) {
	return l.a.service().AddFolders(id, dirs)
}
func (l localChats) RemoveFolders(id string, dirs []string) (*sessions.Meta, error) {
	return l.a.service().RemoveFolders(id, dirs)
}
func (l localChats) RemoveChat(p proto.RemoveParams) (proto.RemoveReport, error) {
	return l.a.service().Remove(p)
}

// Rename renames through the server when one runs, so that it and its
// clients see the name at once; else through the service here.
func (l localChats) Rename(id, name string) (*sessions.Meta, error) {
	live, err := client.Rename(l.a.store.Home(), id, name)
	if err != nil {
		return nil, err
	}
	if live != nil {
		return client.EntryOf(*live).Meta, nil
	}
	return l.a.service().Rename(id, name)
}

// cliLive is the chat service's Live for the command line: the agent
// home's server, asked over its socket when one runs (none is started).
type cliLive struct{ a *app }

func (l cliLive) Said(id string, maxBytes int) ([]proto.Entry, []string) {
	return client.ChatText(l.a.store.Home(), id, maxBytes)
}

// FoldersChanged tells a running server; what it answers of the chat is
// the live part the command then prints.
func (l cliLive) FoldersChanged(id string) error {
	live, err := client.FoldersChanged(l.a.store.Home(), id)
	if live != nil {
		l.a.live, l.a.asked = map[string]proto.ChatJSON{id: *live}, true
	}
	return err
}

// Forget stops the chat in a running server first, on purpose, so that it
// is not started again.
func (l cliLive) Forget(id string) error { return client.StopChat(l.a.store.Home(), id) }

// hostChats is a host's chats: its server, over the command's link.
type hostChats struct {
	l *hostLink
	r *client.Remote
}

// Resolve finds the chat on the host by id, exact name or unique prefix.
func (h *hostChats) Resolve(ref string) (sessions.Entry, error) {
	c, err := h.l.resolve(ref)
	if err != nil {
		return sessions.Entry{}, err
	}
	return client.EntryOf(c), nil
}

func (h *hostChats) Create(n sessions.NewChat) (*sessions.Meta, error) {
	m, err := h.r.Create(n)
	return m, h.l.linkErr(err)
}

func (h *hostChats) Derive(parent string, d sessions.Derivation) (*sessions.Meta, error) {
	m, err := h.r.Derive(parent, d)
	return m, h.l.linkErr(err)
}

func (h *hostChats) Capsule(parent string, d sessions.Derivation) (string, error) {
	text, err := h.r.Capsule(parent, d)
	return text, h.l.linkErr(err)
}

func (h *hostChats) Rename(id, name string) (*sessions.Meta, error) {
	m, err := h.r.Rename(id, name)
	return m, h.l.linkErr(err)
}

func (h *hostChats) AddFolders(id string, dirs []string) (*sessions.Meta, error) {
	m, err := h.r.AddFolders(id, dirs)
	return m, h.l.linkErr(err)
}

func (h *hostChats) RemoveFolders(id string, dirs []string) (*sessions.Meta, error) {
	m, err := h.r.RemoveFolders(id, dirs)
	return m, h.l.linkErr(err)
}

func (h *hostChats) RemoveChat(p proto.RemoveParams) (proto.RemoveReport, error) {
	rep, err := h.r.RemoveChat(p)
	return rep, h.l.linkErr(err)
}
