package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the Router's calls: each one with a chat id goes to the
// chat's host with the id unqualified; List merges (local first), ResizeAll
// and Fill go to every host that answers, and a new chat goes to the host
// chosen (On).

// Changes delivers the ids of chats whose state or screen changed, on
// every host.
func (rt *Router) Changes() <-chan string { return rt.changes }

// Notices delivers every host's notices; a remote one's title names it.
func (rt *Router) Notices() <-chan proto.Notice { return rt.notices }

// News delivers every host's news of chats changed outside this client.
func (rt *Router) News() <-chan proto.News { return rt.news }

// State is the chat's state as its host last told it.
func (rt *Router) State(id string) proto.State {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.State{Status: proto.StatusStopped, Reason: err.Error()}
	}
	return r.State(raw)
}

// Render is the chat's screen from its host.
func (rt *Router) Render(id string, scroll int) string {
	r, raw, err := rt.target(id)
	if err != nil {
		return ""
	}
	return r.Render(raw, scroll)
}

// Terminal is the chat's terminal as its host last told it.
func (rt *Router) Terminal(id string) proto.Terminal {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.Terminal{}
	}
	return r.Terminal(raw)
}

// Transcript is an ACP chat's transcript from its host.
func (rt *Router) Transcript(id string) []proto.Entry {
	r, raw, err := rt.target(id)
	if err != nil {
		return nil
	}
	return r.Transcript(raw)
}

// History is a pty chat's scrollback from its host.
func (rt *Router) History(id string, maxBytes int) []string {
	r, raw, err := rt.target(id)
	if err != nil {
		return nil
	}
	return r.History(raw, maxBytes)
}

// Start starts the chat on its host.
func (rt *Router) Start(id string, cols, rows int) error {
	r, raw, err := rt.target(id)
	if err != nil {
		return err
	}
	return r.Start(raw, cols, rows)
}

// Restart restarts the chat on its host.
func (rt *Router) Restart(id string, cols, rows int) error {
	r, raw, err := rt.target(id)
	if err != nil {
		return err
	}
	return r.Restart(raw, cols, rows)
}

// Stop stops the chat on its host.
func (rt *Router) Stop(id string) {
	if r, raw, err := rt.target(id); err == nil {
		r.Stop(raw)
	}
}

// Write sends input to the chat on its host; while the host's link is
// down it fails at once, saying so.
func (rt *Router) Write(id string, p []byte) error {
	r, raw, err := rt.target(id)
	if err != nil {
		return err
	}
	return r.Write(raw, p)
}

// WriteNow is Remote.WriteNow for the chat's host.
func (rt *Router) WriteNow(id string, p []byte, done func(error)) error {
	r, raw, err := rt.target(id)
	if err != nil {
		return err
	}
	return r.WriteNow(raw, p, done)
}

// remotes is every Remote up now, local first.
func (rt *Router) remotes() []*Remote {
	out := []*Remote{rt.local}
	for _, rh := range rt.hostList() {
		if r, down := rh.remote(); r != nil && down == "" {
			out = append(out, r)
		}
	}
	return out
}

// ResizeAll sizes every chat of every host that answers; a host that
// answers later is sized then.
func (rt *Router) ResizeAll(cols, rows int) {
	rt.mu.Lock()
	rt.size = &proto.SizeParams{Cols: cols, Rows: rows}
	rt.mu.Unlock()
	for _, r := range rt.remotes() {
		r.ResizeAll(cols, rows)
	}
}

// CreateAndStart creates and starts a chat on the local server (On picks
// another host).
func (rt *Router) CreateAndStart(n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	return rt.CreateAndStartOn("", n, cols, rows)
}

// CreateAndStartOn creates and starts a chat on host ("" for local).
func (rt *Router) CreateAndStartOn(host string, n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	r, err := rt.on(host)
	if err != nil {
		return nil, err
	}
	m, err := r.CreateAndStart(n, cols, rows)
	return qualify(host, m), err
}

// Fill has every host that answers start its prewarmed harnesses; the
// local server's error is returned.
func (rt *Router) Fill() error {
	rs := rt.remotes()
	for _, r := range rs[1:] {
		go r.Fill()
	}
	return rs[0].Fill()
}

// Prompt sends text and the files it links to an ACP chat on its host.
func (rt *Router) Prompt(ctx context.Context, id, text string, links ...proto.Link) (string, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return "", err
	}
	return r.Prompt(ctx, raw, text, links...)
}

// Files lists, on chat id's host, the files a prompt of it may mention
// with @, best match for query first.
func (rt *Router) Files(id, query string, limit int) (proto.FilesResult, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.FilesResult{}, err
	}
	return r.Files(raw, query, limit)
}

// Cancel cancels an ACP chat's turn on its host.
func (rt *Router) Cancel(id string) error {
	r, raw, err := rt.target(id)
	if err != nil {
		return err
	}
	return r.Cancel(raw)
}

// AnswerPermission answers an ACP chat's permission request on its host.
func (rt *Router) AnswerPermission(id, optionID string) error {
	r, raw, err := rt.target(id)
	if err != nil {
		return err
	}
	return r.AnswerPermission(raw, optionID)
}

// moveTo makes host the one *at names (the host shown or looked at, under
// rt.mu) and returns the one it named before.
func (rt *Router) moveTo(at *string, host string) (was string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	was, *at = *at, host
	return was
}

// Look tells the chat's host that the user sees it, and the host seen
// before that the user sees none of its chats now.
func (rt *Router) Look(id string) error {
	host, raw := SplitID(id)
	if was := rt.moveTo(&rt.lookedHost, host); was != host {
		if r, err := rt.on(was); err == nil {
			_ = r.Look("")
		}
	}
	r, err := rt.on(host)
	if err != nil {
		return err
	}
	return r.Look(raw)
}

// Show tells the chat's host's Remote that the pane draws it, and the one
// drawn before that it draws none of its chats now. It does not block.
func (rt *Router) Show(id string) {
	host, raw := SplitID(id)
	if was := rt.moveTo(&rt.shownHost, host); was != host {
		if r := rt.HostRemote(was); r != nil {
			r.Show("")
		}
	}
	if r := rt.HostRemote(host); r != nil {
		r.Show(raw)
	}
}

// Export has the chat's host write its bundle to path on that host.
func (rt *Router) Export(id, path string) (proto.ExportReport, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.ExportReport{}, err
	}
	return r.Export(raw, path)
}

// Import adds a chat from a bundle on the local server.
func (rt *Router) Import(path string, roots []string, dryRun bool) (proto.ImportReport, error) {
	return rt.local.Import(path, roots, dryRun)
}

// List is every chat of every host: the local ones first, then each
// host's in order. A host whose link is down gives its chats as last
// listed; one never reached gives none (its header says why).
func (rt *Router) List() ([]sessions.Entry, error) {
	out, err := rt.local.List()
	if err != nil {
		return nil, err
	}
	for _, rh := range rt.hostList() {
		r, down := rh.remote()
		if r == nil {
			continue
		}
		if down == "" {
			if list, err := r.List(); err == nil {
				last := make([]sessions.Entry, len(list))
				for i, e := range list {
					last[i] = qualifyEntry(rh.host.Name, e)
				}
				rh.mu.Lock()
				rh.last = last
				rh.mu.Unlock()
			}
		}
		rh.mu.Lock()
		out = append(out, rh.last...)
		rh.mu.Unlock()
	}
	return out, nil
}

// Chat is one chat from its host.
func (rt *Router) Chat(id string) (sessions.Entry, error) {
	host, raw := SplitID(id)
	r, err := rt.on(host)
	if err != nil {
		return sessions.Entry{}, err
	}
	e, err := r.Chat(raw)
	if err != nil {
		return e, err
	}
	return qualifyEntry(host, e), nil
}

// Create stores a new chat on the local server (On picks another host).
func (rt *Router) Create(n sessions.NewChat) (*sessions.Meta, error) {
	return rt.CreateOn("", n)
}

// CreateOn stores a new chat on host ("" for local).
func (rt *Router) CreateOn(host string, n sessions.NewChat) (*sessions.Meta, error) {
	r, err := rt.on(host)
	if err != nil {
		return nil, err
	}
	m, err := r.Create(n)
	return qualify(host, m), err
}

// metaCall runs a call of a chat's host that answers the chat.
func (rt *Router) metaCall(id string, call func(r *Remote, raw string) (*sessions.Meta, error)) (*sessions.Meta, error) {
	host, raw := SplitID(id)
	r, err := rt.on(host)
	if err != nil {
		return nil, err
	}
	m, err := call(r, raw)
	return qualify(host, m), err
}

// Derive makes a fork, side chat or handoff on the parent's host. Of a
// remote chat with no capsule given, that host's server writes the capsule
// the derivation carries: this machine's table and files are not its.
func (rt *Router) Derive(parent string, d sessions.Derivation) (*sessions.Meta, error) {
	host, _ := SplitID(parent)
	return rt.metaCall(parent, func(r *Remote, raw string) (*sessions.Meta, error) { return r.derive(raw, d, host != "") })
}

// Capsule is the capsule derivation d of a chat would carry, as the
// server of the chat's host writes it.
func (rt *Router) Capsule(id string, d sessions.Derivation) (string, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return "", err
	}
	return r.Capsule(raw, d)
}

// Rename renames a chat on its host.
func (rt *Router) Rename(id, name string) (*sessions.Meta, error) {
	return rt.metaCall(id, func(r *Remote, raw string) (*sessions.Meta, error) { return r.Rename(raw, name) })
}

// AddFolders adds folders to a chat on its host, checked there.
func (rt *Router) AddFolders(id string, dirs []string) (*sessions.Meta, error) {
	return rt.metaCall(id, func(r *Remote, raw string) (*sessions.Meta, error) { return r.AddFolders(raw, dirs) })
}

// RemoveFolders removes folders of a chat on its host.
func (rt *Router) RemoveFolders(id string, dirs []string) (*sessions.Meta, error) {
	return rt.metaCall(id, func(r *Remote, raw string) (*sessions.Meta, error) { return r.RemoveFolders(raw, dirs) })
}

// SetFiles replaces a chat's single files on its host.
func (rt *Router) SetFiles(id string, files []string) (*sessions.Meta, error) {
	return rt.metaCall(id, func(r *Remote, raw string) (*sessions.Meta, error) { return r.SetFiles(raw, files) })
}

// RemoveMissing drops a chat's missing folders and files on its host.
func (rt *Router) RemoveMissing(id string) (proto.RemoveMissingResult, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.RemoveMissingResult{}, err
	}
	return r.RemoveMissing(raw)
}

// Remove stops and deletes a chat on its host.
func (rt *Router) Remove(id string, force, dryRun bool) (proto.RemoveReport, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.RemoveReport{}, err
	}
	return r.Remove(raw, force, dryRun)
}

// Validate checks folders with the local server's validator (ValidateOn
// asks another host's).
func (rt *Router) Validate(cwd string, dirs, files []string) ([]string, []string, error) {
	return rt.local.Validate(cwd, dirs, files)
}

// ValidateOn checks folders with host's validator ("" for local): a folder
// that exists only there is accepted, one that exists only here refused.
func (rt *Router) ValidateOn(host, cwd string, dirs, files []string) ([]string, []string, error) {
	r, err := rt.on(host)
	if err != nil {
		return nil, nil, err
	}
	return r.Validate(cwd, dirs, files)
}

// ListDirectory lists a folder on host ("" for local) for the folder
// picker.
func (rt *Router) ListDirectory(host, path string) (proto.ListDirectoryResult, error) {
	r, err := rt.on(host)
	if err != nil {
		return proto.ListDirectoryResult{}, err
	}
	return r.ListDirectory(path)
}

// Review is what a chat changed, as the server of its host reviews it.
func (rt *Router) Review(id string, side proto.ReviewSide) ([]proto.ReviewSection, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return nil, err
	}
	sections, err := r.Review(raw, side)
	return sections, rt.older(id, "review a chat", err)
}

// ReviewDiff is one file's diff of a chat's review, from its host.
func (rt *Router) ReviewDiff(id string, s proto.ReviewSection, f proto.ReviewFile) (proto.ReviewDiff, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.ReviewDiff{}, err
	}
	d, err := r.ReviewDiff(raw, s, f)
	return d, rt.older(id, "review a chat", err)
}

// older says, of a call chat id's host answered with "method not found",
// that its acpmux-tui is older than this one and how to update it; other
// errors are returned as they are.
func (rt *Router) older(id, what string, err error) error {
	host, _ := SplitID(id)
	var rpc *RPCError
	if host == "" || !errors.As(err, &rpc) || rpc.Code != proto.CodeMethodNotFound {
		return err
	}
	rh, ok := rt.hostNamed(host)
	if !ok {
		return err
	}
	return fmt.Errorf("host %s runs an older acpmux-tui, which cannot %s: %s", host, what, rh.host.InstallHint())
}
