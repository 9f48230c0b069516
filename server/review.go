package server

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/review"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// The review pane's calls (proto/review.go): what a chat changed, computed
// on the host where its folders are. git runs here, in a call's goroutine,
// each command bounded by the review package's own timeout.

// review answers MethodReview: the chat as stored (with the baseline its
// first start recorded) and its parent, reviewed against the side asked.
func (s *Server) review(p proto.ReviewParams) (proto.ReviewResult, *Error) {
	res := proto.ReviewResult{Sections: []proto.ReviewSection{}}
	if err := needID(p.ID); err != nil {
		return res, err
	}
	if p.Parent && p.Ref != "" {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: ref and parent are two sides: give one")
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return res, failure(err)
	}
	var parent *sessions.Meta
	if m.Parent != "" {
		parent, _ = s.opt.Store.Load(m.Parent) // gone: Side.Parent says so
	}
	sections, err := review.OfChat(context.Background(), m, parent, proto.ReviewSide{Ref: p.Ref, Parent: p.Parent})
	if err != nil {
		return res, failure(err)
	}
	res.Sections = append(res.Sections, sections...)
	return res, nil
}

// reviewDiff answers MethodReviewDiff: one file's diff in a section of the
// chat's review. What the client sends is checked against the chat first:
// the folder is one of the chat's, the base a commit id (never an option
// of git's), the path a file inside the folder.
func (s *Server) reviewDiff(p proto.ReviewDiffParams) (proto.ReviewDiff, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ReviewDiff{}, err
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return proto.ReviewDiff{}, failure(err)
	}
	if err := checkReviewDiff(m, p); err != nil {
		return proto.ReviewDiff{}, err
	}
	sec := proto.ReviewSection{Folder: p.Folder, Kind: p.Kind, Base: p.Base}
	d, err := review.FileDiff(context.Background(), sec, p.File, review.DefaultMaxDiffBytes)
	if err != nil {
		return proto.ReviewDiff{}, failure(err)
	}
	return d, nil
}

// checkReviewDiff refuses a diff call that is not about a section of m's
// review.
func checkReviewDiff(m *sessions.Meta, p proto.ReviewDiffParams) *Error {
	if p.Folder != m.Cwd && !slices.Contains(m.AdditionalDirectories, p.Folder) {
		return errorf(proto.CodeInvalidParams, "Invalid params: folder %q is not a folder of chat %s", clipText(p.Folder), m.ID)
	}
	switch p.Kind {
	case proto.ReviewMtime:
	case proto.ReviewGit:
		if !isCommitID(p.Base) {
			return errorf(proto.CodeInvalidParams, "Invalid params: base %q is not a commit id", clipText(p.Base))
		}
	default:
		return errorf(proto.CodeInvalidParams, "Invalid params: kind must be %q or %q, not %q", proto.ReviewGit, proto.ReviewMtime, clipText(string(p.Kind)))
	}
	if !filepath.IsLocal(p.File.Path) || strings.HasPrefix(p.File.Path, "-") {
		return errorf(proto.CodeInvalidParams, "Invalid params: file %q is not a path inside %s", clipText(p.File.Path), p.Folder)
	}
	return nil
}

// isCommitID reports whether s is a full commit id: 40 (SHA-1) or 64
// (SHA-256) lowercase hex digits, as review.Compute gives a section's base.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
