package client

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// ServerError is err as a Remote gives it: a folder refusal the server
// answered becomes a *sessions.FolderError, an unknown chat wraps
// sessions.ErrNotFound, and the rest show the server's message.
func ServerError(err error) error { return remoteError(err) }

// remoteError turns the server's answer into the error the embedded mux
// would have returned, where the TUI looks at its type: a folder refusal
// is a *sessions.FolderError, a start refused for a folder that has gone a
// *proto.FoldersGoneError.
func remoteError(err error) error {
	var rpc *RPCError
	if !errors.As(err, &rpc) {
		return err
	}
	var data struct {
		Refusal  string                `json:"refusal"`
		Chat     *string               `json:"chat"`
		Running  bool                  `json:"running"`
		Entries  []proto.FolderProblem `json:"entries"`
		Count    int                   `json:"count"`
		Kept     int                   `json:"kept"`
		Max      int                   `json:"max"`
		Unlisted int                   `json:"unlisted"`
	}
	if len(rpc.Data) > 0 {
		_ = json.Unmarshal(rpc.Data, &data)
	}
	switch {
	case rpc.Code == proto.CodeInvalidParams && data.Entries != nil:
		fe := &sessions.FolderError{
			Count: data.Count, Kept: data.Kept, Problems: data.Entries, Unlisted: data.Unlisted,
			TooMany: data.Kept > data.Max || (data.Kept == 0 && data.Count > data.Max),
		}
		markFileRefusal(fe)
		return fe
	case rpc.Code == proto.CodeFailed && data.Chat != nil:
		gone := &proto.FoldersGoneError{ChatID: *data.Chat, Problems: data.Entries, Running: data.Running}
		return &wrappedGone{gone, &serverError{rpc: rpc}}
	case rpc.Code == proto.CodeChatNotFound:
		return &serverError{rpc: rpc, kind: sessions.ErrNotFound}
	case rpc.Code == proto.CodeInvalidParams && data.Refusal != "":
		return &Refusal{Reason: data.Refusal, rpc: rpc}
	}
	return &serverError{rpc: rpc}
}

// markFileRefusal gives a refusal read off the wire the lists it is about,
// from the field of each entry: a refusal of files alone says "files", one
// of folders and files names both, as the server's own error did.
func markFileRefusal(fe *sessions.FolderError) {
	var dirs, files bool
	for _, p := range fe.Problems {
		if p.Field == proto.FieldFiles {
			files = true
		} else {
			dirs = true
		}
	}
	switch {
	case files && dirs:
		fe.Also = &sessions.FolderError{Field: proto.FieldFiles}
	case files:
		fe.Field = proto.FieldFiles
	}
}

// wrappedGone is a start refused for its folders, still carrying the
// server's answer (a created chat, for CreateAndStart).
type wrappedGone struct {
	*proto.FoldersGoneError
	answer *serverError
}

func (e *wrappedGone) Unwrap() []error { return []error{e.FoldersGoneError, e.answer} }

// metaOf is the chat the server answered, as the TUI reads it.
func metaOf(j proto.ChatJSON) *sessions.Meta {
	created, _ := time.Parse(time.RFC3339, j.Created)
	m := &sessions.Meta{
		ID: j.ID, Name: j.Name, Title: j.Title, Harness: j.Harness, Cwd: j.Cwd,
		AdditionalDirectories: j.AdditionalDirectories, AdditionalFiles: j.AdditionalFiles, Created: created,
		Parent: j.Parent, Origin: j.Origin, AgentSessionID: j.AgentSessionID,
		FilesVia: filesVia(j.FilesVia), FoldersVia: foldersVia(j), Capsule: j.HasCapsule,
		Worktree: sessions.WorktreeFromJSON(j.Worktree), Baseline: sessions.BaselineFromJSON(j.Baseline),
		Sandbox: j.Sandbox != nil,
	}
	if u := j.Usage; u != nil && u.Check() == nil {
		m.SetUsage(u) // another host's numbers are held to the same bounds
	}
	return m
}

// foldersVia is the way the chat's folders went at its last start, as Meta
// holds it: "" while the server tells the table's expectation, or when the
// chat has no folders.
func foldersVia(j proto.ChatJSON) string {
	if j.FoldersViaExpected || j.FoldersVia == "none" {
		return ""
	}
	return j.FoldersVia
}

// filesVia is ChatJSON.FilesVia as Meta holds it: "none" is a chat without
// files, which Meta leaves empty.
func filesVia(v string) string {
	if v == "none" {
		return ""
	}
	return v
}

// serverError is an error the server answered with, shown by its message
// alone (the code is for programs).
type serverError struct {
	rpc  *RPCError
	kind error // sessions.ErrNotFound for an unknown chat
}

func (e *serverError) Error() string { return e.rpc.Message }

func (e *serverError) Unwrap() []error {
	if e.kind != nil {
		return []error{e.rpc, e.kind}
	}
	return []error{e.rpc}
}

// Refusal is a call a server's chat service refused as outside input
// (-32602 with data.refusal, proto.DataRefusal): an unknown harness, a
// worktree where none can be made, a name or project folder no chat may
// have. Its text is the server's message.
type Refusal struct {
	// Reason is the refusal's reason, without "Invalid params: ".
	Reason string
	rpc    *RPCError
}

func (e *Refusal) Error() string { return e.rpc.Message }

// Unwrap is the server's answer.
func (e *Refusal) Unwrap() error { return e.rpc }
