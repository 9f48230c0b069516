package proto

// This file is the review pane's git actions on a worktree chat's branch:
// commit its worktree, push its branch, merge it into the branch it came
// from. The server runs git where the chat's worktree is, on its own host,
// so the TUI, `acpmux-tui commit|push|merge` and a host's chats take the
// same path; package internal/worktree holds the git work.

// MethodGitOp (GitOpParams → GitOpResult) does one git action on worktree
// chat id. A chat that is not a worktree chat, a worktree with nothing to
// commit, a branch with nowhere to push, a base branch not checked out or
// not clean, a merge that would conflict: each is refused with CodeFailed
// and the reason, and the repositories are left as they were.
const MethodGitOp = "_acpmux/gitOp"

// GitAction is what MethodGitOp does.
type GitAction string

// The git actions.
const (
	// GitCommit stages everything in the worktree (git add -A) and commits
	// it with the message given (the chat's title, else its name, when
	// none is).
	GitCommit GitAction = "commit"
	// GitPush pushes the chat's branch to its upstream, else to origin
	// (setting the upstream).
	GitPush GitAction = "push"
	// GitMerge merges the chat's branch (git merge --no-ff) into its base
	// branch, in the working tree that has it checked out.
	GitMerge GitAction = "merge"
)

// Valid reports whether a is one of the git actions.
func (a GitAction) Valid() bool {
	return a == GitCommit || a == GitPush || a == GitMerge
}

// MaxCommitMessage is the longest commit message MethodGitOp takes, in
// bytes.
const MaxCommitMessage = 16 << 10

// GitOpParams are the params of MethodGitOp: the chat, the action and, for
// a commit, its message ("" for the default).
type GitOpParams struct {
	ID      string    `json:"id"`
	Action  GitAction `json:"action"`
	Message string    `json:"message,omitempty"`
}

// GitOpResult says what an action did. Every string is plain text (git's
// output cleaned where it was read).
type GitOpResult struct {
	Action GitAction `json:"action"`
	// Branch is the chat's branch.
	Branch string `json:"branch"`
	// Commit is the commit made (a commit, or a merge's commit), or the
	// branch tip pushed.
	Commit string `json:"commit,omitempty"`
	// Into is, for a merge, the base branch, and Where the working tree
	// it was merged in.
	Into  string `json:"into,omitempty"`
	Where string `json:"where,omitempty"`
	// Remote is, for a push, the remote and the branch there
	// ("origin/acpmux/fix-k3x9q2").
	Remote string `json:"remote,omitempty"`
	// Summary says what was done, in one line.
	Summary string `json:"summary"`
	// Note says what a user should know besides: uncommitted work left
	// out of a push or a merge.
	Note string `json:"note,omitempty"`
}
