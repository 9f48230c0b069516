package proto

// The review pane's calls: the server computes what a chat changed where
// the chat's folders are, on its own host, so a chat of another machine
// is reviewed as one of this machine is, and the TUI runs no git itself.
// The sections, files and diffs it answers are the types below; package
// internal/review makes them.

// MethodReview ({id, ref?, parent?} → {sections}) is what chat id changed
// (the review of the chat as the server holds it): its folder against its
// base, ref (a branch, tag or commit of the folder's repository) or, with
// parent, the parent chat's branch; then each additional folder since the
// chat's baseline.
const MethodReview = "_acpmux/review"

// ReviewParams are the params of MethodReview; Ref and Parent are the
// side compared against (ReviewSide), neither for the chat's own base.
type ReviewParams struct {
	ID     string `json:"id"`
	Ref    string `json:"ref,omitempty"`
	Parent bool   `json:"parent,omitempty"`
}

// ReviewResult is the answer to MethodReview; Sections is always an array.
type ReviewResult struct {
	Sections []ReviewSection `json:"sections"`
}

// MethodReviewDiff ({id, folder, kind, base, file} → ReviewDiff) is the
// diff of one file of a section MethodReview answered: folder must be the
// chat's folder or one of its additional folders, base a commit id (for
// kind git), and the file's path relative and inside the folder.
const MethodReviewDiff = "_acpmux/reviewDiff"

// ReviewDiffParams are the params of MethodReviewDiff: the section's
// folder, kind and base as MethodReview gave them (not its files), and
// the file.
type ReviewDiffParams struct {
	ID     string     `json:"id"`
	Folder string     `json:"folder"`
	Kind   ReviewKind `json:"kind"`
	Base   string     `json:"base"`
	File   ReviewFile `json:"file"`
}

// ReviewSide is the compare side a user picked; the zero ReviewSide is the
// chat's own base.
type ReviewSide struct {
	// Ref is another ref (branch, tag, commit) of the cwd's repository.
	Ref string
	// Parent compares against the parent chat's branch.
	Parent bool
}

// String names the side for a status line: "base", "parent", or the ref.
func (s ReviewSide) String() string {
	switch {
	case s.Parent:
		return "parent's branch"
	case s.Ref != "":
		return s.Ref
	}
	return "base"
}

// ReviewKind is how a section's changes were found.
type ReviewKind string

// The kinds of sections.
const (
	// ReviewGit is a section diffed by git against a commit.
	ReviewGit ReviewKind = "git"
	// ReviewMtime is a folder that is not a git repository (or has no
	// commit recorded): files modified since a time, listed, not diffed.
	ReviewMtime ReviewKind = "mtime"
)

// ReviewStatus is what happened to one file.
type ReviewStatus string

// The statuses a file can have.
const (
	ReviewAdded     ReviewStatus = "added"
	ReviewModified  ReviewStatus = "modified"
	ReviewDeleted   ReviewStatus = "deleted"
	ReviewUntracked ReviewStatus = "untracked"
	ReviewUnmerged  ReviewStatus = "unmerged"
)

// ReviewFile is one changed file of a section; Path is relative to the
// section's folder.
type ReviewFile struct {
	Path    string       `json:"path"`
	Status  ReviewStatus `json:"status"`
	Added   int          `json:"added"`
	Deleted int          `json:"deleted"`
	Binary  bool         `json:"binary"`
}

// ReviewSection is the changes in one folder: the chat's cwd first, then
// one per additional folder.
type ReviewSection struct {
	Folder string     `json:"folder"`
	Kind   ReviewKind `json:"kind"`
	// Base is the commit compared against (ReviewGit), or the time files
	// count from, RFC 3339 (ReviewMtime).
	Base  string       `json:"base"`
	Files []ReviewFile `json:"files"`
	// Note says what a reader should know: a walk cut short, a base that
	// was not recorded.
	Note string `json:"note,omitempty"`
}

// ReviewDiff is one file's diff, or why it is not drawn.
type ReviewDiff struct {
	Path string `json:"path"`
	// Text is the unified diff; empty when Binary, TooLarge or NotDiffed.
	Text     string `json:"text"`
	Binary   bool   `json:"binary,omitempty"`
	TooLarge bool   `json:"tooLarge,omitempty"`
	// NotDiffed is set for a file of an mtime section: listed only.
	NotDiffed bool `json:"notDiffed,omitempty"`
}

// Reason says why a diff has no text, or "".
func (d ReviewDiff) Reason() string {
	switch {
	case d.NotDiffed:
		return "not in a git repository: listed, not diffed"
	case d.Binary:
		return "binary file: not drawn"
	case d.TooLarge:
		return "diff too large: not drawn"
	}
	return ""
}
