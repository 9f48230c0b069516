package proto

import "github.com/acpmux/acpmux-tui/internal/review"

// The review pane's calls: the server computes what a chat changed where
// the chat's folders are, on its own host, so a chat of another machine
// is reviewed as one of this machine is, and the TUI runs no git itself.

// MethodReview ({id, ref?, parent?} → {sections}) is what chat id changed
// (review.Compute of the chat as the server holds it): its folder against
// its base, ref (a branch, tag or commit of the folder's repository) or,
// with parent, the parent chat's branch; then each additional folder
// since the chat's baseline.
const MethodReview = "_acpmux/review"

// ReviewParams are the params of MethodReview; Ref and Parent are the
// side compared against (review.Side), neither for the chat's own base.
type ReviewParams struct {
	ID     string `json:"id"`
	Ref    string `json:"ref,omitempty"`
	Parent bool   `json:"parent,omitempty"`
}

// ReviewResult is the answer to MethodReview; Sections is always an array.
type ReviewResult struct {
	Sections []review.Section `json:"sections"`
}

// MethodReviewDiff ({id, folder, kind, base, file} → review.Diff) is the
// diff of one file of a section MethodReview answered: folder must be the
// chat's folder or one of its additional folders, base a commit id (for
// kind git), and the file's path relative and inside the folder.
const MethodReviewDiff = "_acpmux/reviewDiff"

// ReviewDiffParams are the params of MethodReviewDiff: the section's
// folder, kind and base as MethodReview gave them (not its files), and
// the file.
type ReviewDiffParams struct {
	ID     string      `json:"id"`
	Folder string      `json:"folder"`
	Kind   review.Kind `json:"kind"`
	Base   string      `json:"base"`
	File   review.File `json:"file"`
}
