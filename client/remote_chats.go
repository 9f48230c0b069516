package client

import (
	"errors"
	"fmt"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the chat store as a Remote reaches it: every read and write
// of chats goes through the server (its chat service), so a client
// such as the TUI holds no store of its own and sees what the server holds.

// CallsOn makes a Remote over c for the chat store's calls alone (Chat,
// Create, Derive, Capsule, Rename, the folders, RemoveChat), the calls
// the TUI makes: it watches no chat, so it knows no state or screen. A
// command run against a host (--host) makes its calls through it. The
// caller keeps c, and closes it.
func CallsOn(c *Conn) *Remote {
	r := newRemote()
	r.c = c
	return r
}

// EntryOf is a chat the server answered as the TUI lists it: a broken file
// (or an id refused by ServerChat) is an entry with its reason and no
// metadata.
func EntryOf(j proto.ChatJSON) sessions.Entry {
	if j = ServerChat(j); j.Broken != "" {
		return sessions.Entry{ID: j.ID, Broken: errors.New(j.Broken)}
	}
	return sessions.Entry{ID: j.ID, Meta: metaOf(j), NoProject: j.NoProject, Bound: j.Sandbox}
}

// ServerChat is a chat as a server answered it, unless its id is not one
// a chat may have ([a-z0-9-], see sessions.ValidID): then it is broken,
// saying so, with none of its other fields. Only another host's server
// sends such an id, and its strings are cleaned as they arrive
// (plaintext.Foreign marks what it takes out), so an id that held an
// escape is never taken for another chat's: it is refused, not cleaned.
func ServerChat(j proto.ChatJSON) proto.ChatJSON {
	if sessions.ValidID(j.ID) {
		return j
	}
	return proto.ChatJSON{ID: j.ID, Status: "broken", AdditionalDirectories: []string{}, AdditionalFiles: []string{},
		Broken: fmt.Sprintf("the server sent %+q as a chat's id, which is not a chat id", j.ID)}
}

// ReadFilesFrom has List read the chat files of store, the agent home the
// server holds, instead of asking the server: a client on the server's
// machine. The server's list is those same files, and its live part
// (statuses, unread marks, the folders' way) reaches the client on the
// watch call, which List's entries never carried; at 1,000 chats asking
// cost the TUI's first frame 30–40 ms (the server read the files, then
// encoded them for this side to decode), reading them 5–10 ms.
func (r *Remote) ReadFilesFrom(store *sessions.Store) {
	r.mu.Lock()
	r.files = store
	r.mu.Unlock()
}

// List is every chat, in the store's order: read from the chat files when
// ReadFilesFrom gave them, else asked of the server.
func (r *Remote) List() ([]sessions.Entry, error) {
	r.mu.Lock()
	files := r.files
	r.mu.Unlock()
	if files != nil {
		return files.List()
	}
	var res proto.ListResult
	if err := r.call(proto.MethodList, struct{}{}, &res); err != nil {
		return nil, err
	}
	out := make([]sessions.Entry, len(res.Chats))
	for i, j := range res.Chats {
		out[i] = EntryOf(j)
	}
	return out, nil
}

// Chat asks the server for one chat.
func (r *Remote) Chat(id string) (sessions.Entry, error) {
	var chat proto.ChatJSON
	if err := r.call(proto.MethodChat, proto.IDParams{ID: id}, &chat); err != nil {
		return sessions.Entry{}, err
	}
	return EntryOf(chat), nil
}

// Create has the server store a new chat without starting it.
func (r *Remote) Create(n sessions.NewChat) (*sessions.Meta, error) {
	if n.ID != "" || n.Parent != "" || n.Origin != "" || n.AgentSessionID != "" {
		return nil, errors.New("create chat: a preset id, parent, origin or session cannot be sent to the server")
	}
	p := proto.NewParams{Harness: n.Harness, Cwd: n.Cwd, AdditionalDirectories: n.AdditionalDirectories, AdditionalFiles: n.AdditionalFiles, Name: n.Name,
		Worktree: n.Worktree, WorktreeBase: n.WorktreeBase, Sandbox: n.Sandbox}
	return r.chatCall(proto.MethodNew, p)
}

// Derive has the server make a fork, side chat or handoff of parent, with
// d's capsule as its first message; nothing is started.
func (r *Remote) Derive(parent string, d sessions.Derivation) (*sessions.Meta, error) {
	return r.derive(parent, d, false)
}

// derive is Derive; with makeCapsule and no capsule given, the server
// writes it (a chat on another host: this machine's table is not its).
func (r *Remote) derive(parent string, d sessions.Derivation, makeCapsule bool) (*sessions.Meta, error) {
	return r.chatCall(proto.MethodDerive, proto.DeriveParams{ID: parent, Origin: d.Origin, Harness: d.Harness, Cwd: d.Cwd, Name: d.Name, Capsule: d.Capsule,
		Worktree: d.Worktree, MakeCapsule: makeCapsule && d.Capsule == "", Sandbox: d.Sandbox})
}

// Capsule is the capsule derivation d of parent would carry, as the
// server writes it from the chat it runs ("" for none); nothing is made.
func (r *Remote) Capsule(parent string, d sessions.Derivation) (string, error) {
	var res proto.CapsuleResult
	err := r.call(proto.MethodCapsule, proto.DeriveParams{ID: parent, Origin: d.Origin, Harness: d.Harness, Cwd: d.Cwd}, &res)
	return res.Text, err
}

// Rename has the server rename a chat; a refused name changes nothing.
func (r *Remote) Rename(id, name string) (*sessions.Meta, error) {
	return r.chatCall(proto.MethodRename, proto.RenameParams{ID: id, Name: name})
}

// AddFolders has the server add folders to a chat (the shared validator
// passes the whole new list or refuses it); a running chat takes them at
// the end of its turn.
func (r *Remote) AddFolders(id string, dirs []string) (*sessions.Meta, error) {
	return r.chatCall(proto.MethodAddFolders, proto.FoldersParams{ID: id, AdditionalDirectories: nonNil(dirs)})
}

// RemoveFolders has the server take folders out of a chat.
func (r *Remote) RemoveFolders(id string, dirs []string) (*sessions.Meta, error) {
	return r.chatCall(proto.MethodRemoveFolders, proto.FoldersParams{ID: id, AdditionalDirectories: nonNil(dirs)})
}

// RemoveMissing has the server drop the chat's stored folders and files
// that fail the check of every start, and says which it dropped.
func (r *Remote) RemoveMissing(id string) (proto.RemoveMissingResult, error) {
	var res proto.RemoveMissingResult
	err := r.call(proto.MethodRemoveMissing, proto.IDParams{ID: id}, &res)
	return res, err
}

// Remove has the server delete a chat: its harness stopped, its file and
// its own folder gone (with the files in it only when force is set). With
// dryRun nothing changes, and the report says what the folder holds.
func (r *Remote) Remove(id string, force, dryRun bool) (proto.RemoveReport, error) {
	return r.RemoveChat(proto.RemoveParams{ID: id, Force: force, DryRun: dryRun})
}

// RemoveChat is Remove with every param of _acpmux/remove: a worktree
// chat's branch deleted too (DeleteBranch), which the TUI keeps.
func (r *Remote) RemoveChat(p proto.RemoveParams) (proto.RemoveReport, error) {
	var rep proto.RemoveReport
	if err := r.call(proto.MethodRemove, p, &rep); err != nil {
		return rep, err
	}
	if rep.Removed {
		r.mu.Lock()
		delete(r.chats, p.ID)
		r.mu.Unlock()
	}
	return rep, nil
}

// Validate runs a chat's folders and files through the server's shared
// validator (the agent home's rule included) and returns their canonical
// forms, or the refusal naming every bad entry of both lists.
func (r *Remote) Validate(cwd string, dirs, files []string) ([]string, []string, error) {
	var res proto.ValidateResult
	if err := r.call(proto.MethodValidate, proto.ValidateParams{Cwd: cwd, AdditionalDirectories: dirs, AdditionalFiles: files}, &res); err != nil {
		return nil, nil, err
	}
	return res.AdditionalDirectories, res.AdditionalFiles, nil
}

// chatCall makes a call the server answers with a chat's JSON.
func (r *Remote) chatCall(method string, params any) (*sessions.Meta, error) {
	var chat proto.ChatJSON
	if err := r.call(method, params, &chat); err != nil {
		return nil, err
	}
	return metaOf(chat), nil
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// ListDirectory asks the server for one folder of its host, for the
// folder picker browsing the chat's host: at most proto.MaxListEntries
// entries, sorted, each with whether it is a folder.
func (r *Remote) ListDirectory(path string) (proto.ListDirectoryResult, error) {
	var res proto.ListDirectoryResult
	err := r.call(proto.MethodListDirectory, proto.ListDirectoryParams{Path: path}, &res)
	return res, err
}

// Review asks the server what chat id changed against side, computed on
// its host, where the chat's folders are.
func (r *Remote) Review(id string, side proto.ReviewSide) ([]proto.ReviewSection, error) {
	var res proto.ReviewResult
	err := r.call(proto.MethodReview, proto.ReviewParams{ID: id, Ref: side.Ref, Parent: side.Parent}, &res)
	return res.Sections, err
}

// ReviewDiff asks the server for the diff of file f of section s of chat
// id's review.
func (r *Remote) ReviewDiff(id string, s proto.ReviewSection, f proto.ReviewFile) (proto.ReviewDiff, error) {
	var d proto.ReviewDiff
	err := r.call(proto.MethodReviewDiff, proto.ReviewDiffParams{ID: id, Folder: s.Folder, Kind: s.Kind, Base: s.Base, File: f}, &d)
	return d, err
}
