package server

import (
	"path/filepath"

	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/internal/transfer"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file answers MethodExport and MethodImport with internal/transfer,
// the same code the commands run. Both hold no lock of the server's: the
// store's own lock serialises the chat file.

// liveOf is what the mux holds of a chat now: an ACP chat's transcript
// (copied under its lock, so each entry is as its last complete update left
// it) and whether a turn runs, a pty chat's scrollback.
func (s *Server) liveOf(id string) *transfer.Live {
	st := s.opt.Mux.State(id)
	return &transfer.Live{
		Transcript:  s.opt.Mux.Transcript(id),
		Lines:       s.opt.Mux.History(id, proto.MaxHistoryBytes),
		TurnRunning: st.Status == proto.StatusRunning,
	}
}

func (s *Server) export(p proto.ExportParams) (proto.ExportReport, *Error) {
	if p.ID == "" {
		return proto.ExportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if reason := sessions.PathSyntaxProblem(p.Path); reason != "" {
		return proto.ExportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: path %q: %s", clipText(p.Path), reason)
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return proto.ExportReport{}, failure(err)
	}
	rep, err := transfer.ExportFile(filepath.Clean(p.Path), m, transfer.ExportOptions{
		Store: s.opt.Store, Table: s.table(), Getenv: s.opt.Getenv, Live: s.liveOf(m.ID), Version: s.opt.Version,
	})
	if err != nil {
		s.opt.Logger.Warn("export failed", "chat", m.ID, "err", err)
		return proto.ExportReport{}, failure(err)
	}
	s.opt.Logger.Info("chat exported", "chat", m.ID, "bytes", rep.Bytes, "conversation", rep.Conversation)
	return rep, nil
}

func (s *Server) importChat(p proto.ImportParams) (proto.ImportReport, *Error) {
	if reason := sessions.PathSyntaxProblem(p.Path); reason != "" {
		return proto.ImportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: path %q: %s", clipText(p.Path), reason)
	}
	if len(p.Roots) == 0 {
		return proto.ImportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: roots is required (the absolute folders the chat may see)")
	}
	if len(p.Roots) > proto.MaxTransferRoots {
		return proto.ImportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: %d roots, at most %d", len(p.Roots), proto.MaxTransferRoots)
	}
	for i, r := range p.Roots {
		if reason := sessions.PathSyntaxProblem(r); reason != "" {
			return proto.ImportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: roots[%d] %q: %s", i, clipText(r), reason)
		}
	}
	f, err := transfer.OpenBundle(p.Path)
	if err != nil {
		return proto.ImportReport{}, errorf(proto.CodeInvalidParams, "Invalid params: path: %v", err)
	}
	defer f.Close()
	rep, err := transfer.Import(f, transfer.ImportOptions{
		Chats: s.chats, Table: s.table(), Getenv: s.opt.Getenv, Roots: p.Roots, DryRun: p.DryRun,
		Limits: bundle.DefaultLimits,
	})
	if err != nil {
		if r, ok := transfer.AsRefusal(err); ok {
			return proto.ImportReport{}, &Error{Code: proto.CodeInvalidParams, Message: r.Error()}
		}
		s.opt.Logger.Warn("import failed", "err", err)
		return proto.ImportReport{}, failure(err)
	}
	if !p.DryRun {
		s.opt.Logger.Info("chat imported", "chat", rep.ID, "parent", rep.Parent, "conversation", rep.Conversation)
	}
	return rep, nil
}
