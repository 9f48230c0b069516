package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is what the review pane does with a worktree chat's work:
// commit it in its worktree, push its branch, merge it into the branch it
// came from (GitOp). Every git call here runs with a deadline, no terminal
// to prompt on and, for a push, ssh in batch mode; what git says is
// cleaned before anyone shows it. A refusal (*Refusal) is said before
// anything changes; a merge that fails on the way is aborted, so no
// repository is left half merged.

// Deadlines of the git calls of one action.
const (
	// LocalTimeout bounds each local git call (a commit's or a merge's
	// hooks included).
	LocalTimeout = time.Minute
	// PushTimeout bounds a push, the network included.
	PushTimeout = 2 * time.Minute
)

// Refusal is an action refused before anything was changed, and why.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

func refuse(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// AsRefusal returns the *Refusal in err's chain, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// GitOp does action on worktree chat m: a commit of everything in its
// worktree with message ("" for the chat's title, else its name), a push
// of its branch, or a merge of it into its base branch. An error names the
// action and the chat.
func GitOp(ctx context.Context, m *sessions.Meta, action proto.GitAction, message string) (proto.GitOpResult, error) {
	var res proto.GitOpResult
	var err error
	switch action {
	case proto.GitCommit:
		res, err = Commit(ctx, m, message)
	case proto.GitPush:
		res, err = Push(ctx, m)
	case proto.GitMerge:
		res, err = Merge(ctx, m)
	default:
		return res, refuse("%q is not a git action (commit, push or merge)", plaintext.Line(string(action)))
	}
	if err != nil {
		return res, fmt.Errorf("%s chat %s: %w", action, m.ID, err)
	}
	res.Action = action
	return res, nil
}

// chatWorktree is m's worktree, or the refusal that says why there is none
// to act on.
func chatWorktree(m *sessions.Meta) (*sessions.Worktree, error) {
	w := m.Worktree
	if w == nil {
		return nil, refuse("not a worktree chat: commit, push and merge act on a chat's own branch, which only a chat made with --worktree has (its folder %s is not its own)", m.Cwd)
	}
	if w.Missing() {
		return nil, refuse("its worktree %s is gone (removed by hand)", w.Path)
	}
	if w.Branch == "" || strings.HasPrefix(w.Branch, "-") {
		return nil, refuse("its branch %q is not a branch name", plaintext.Line(w.Branch))
	}
	return w, nil
}

// DefaultMessage is the commit message a commit of m takes when none is
// given: the title its agent gave it, else its name.
func DefaultMessage(m *sessions.Meta) string {
	if t := strings.TrimSpace(m.Title); t != "" {
		return t
	}
	return m.Name
}

// Commit stages everything in m's worktree (git add -A: changes, deletions,
// untracked files; ignored files stay out) and commits it as the user's
// git identity. Nothing to commit, no identity, or unmerged files are
// refused; a commit that fails (a hook) leaves the index as it was.
func Commit(ctx context.Context, m *sessions.Meta, message string) (proto.GitOpResult, error) {
	res := proto.GitOpResult{}
	w, err := chatWorktree(m)
	if err != nil {
		return res, err
	}
	res.Branch = w.Branch
	message = strings.TrimSpace(plaintext.Clean(message))
	if message == "" {
		message = strings.TrimSpace(plaintext.Clean(DefaultMessage(m)))
	}
	if message == "" {
		return res, refuse("no commit message")
	}
	if len(message) > proto.MaxCommitMessage {
		return res, refuse("the commit message has %d bytes, more than %d", len(message), proto.MaxCommitMessage)
	}
	changes, err := changed(ctx, w.Path)
	if err != nil {
		return res, err
	}
	if changes == 0 {
		return res, refuse("nothing to commit: the worktree %s has no changes", w.Path)
	}
	if err := needIdentity(ctx, w.Path); err != nil {
		return res, err
	}
	// The index as it is, to put back if the commit fails: a commit
	// refused by a hook must not leave everything staged.
	tree, err := gitOut(ctx, w.Path, "write-tree")
	if err != nil {
		return res, refuse("the worktree %s has unmerged files: resolve them first (%v)", w.Path, err)
	}
	if _, err := gitOut(ctx, w.Path, "add", "-A"); err != nil {
		return res, err
	}
	r := gitRun(ctx, w.Path, gitCall{stdin: message + "\n", identity: true}, "commit", "-q", "-F", "-")
	if r.err != nil {
		if _, rerr := gitOut(context.Background(), w.Path, "read-tree", tree); rerr != nil {
			return res, fmt.Errorf("%w; and putting the index back failed: %v", r.err, rerr)
		}
		return res, r.err
	}
	if res.Commit, err = gitOut(ctx, w.Path, "rev-parse", "HEAD"); err != nil {
		return res, err
	}
	files, err := gitOut(ctx, w.Path, "diff-tree", "--no-commit-id", "--name-only", "-r", "-z", "HEAD")
	if err != nil {
		return res, err
	}
	n := len(strings.FieldsFunc(files, func(r rune) bool { return r == 0 }))
	subject, _, _ := strings.Cut(message, "\n")
	res.Summary = plaintext.Line(fmt.Sprintf("committed %d file%s on %s as %s: %s", n, plural(n), w.Branch, short(res.Commit), subject))
	return res, nil
}

// Push pushes m's branch to its upstream, else to origin with -u (so it
// has one after); a repository with neither is refused.
func Push(ctx context.Context, m *sessions.Meta) (proto.GitOpResult, error) {
	res := proto.GitOpResult{}
	w, err := chatWorktree(m)
	if err != nil {
		return res, err
	}
	res.Branch = w.Branch
	if _, err := gitOut(ctx, w.Path, "check-ref-format", "--branch", w.Branch); err != nil {
		return res, refuse("its branch %q is not a branch name", w.Branch)
	}
	tip, err := gitOut(ctx, w.Path, "rev-parse", "--verify", "refs/heads/"+w.Branch)
	if err != nil {
		return res, refuse("its branch %s is gone from %s", w.Branch, w.Repo)
	}
	remote, _ := gitOut(ctx, w.Path, "config", "--get", "branch."+w.Branch+".remote")
	merge, _ := gitOut(ctx, w.Path, "config", "--get", "branch."+w.Branch+".merge")
	argv := []string{"push"}
	upstreamSet := false
	if remote != "" && remote != "." && strings.HasPrefix(merge, "refs/heads/") {
		argv = append(argv, "--", remote, "refs/heads/"+w.Branch+":"+merge)
	} else {
		remotes, err := gitOut(ctx, w.Path, "remote")
		if err != nil {
			return res, err
		}
		names := strings.Fields(remotes)
		switch {
		case len(names) == 0:
			return res, refuse("branch %s has no upstream and the repository %s has no remote: add one (git -C %s remote add origin URL)", w.Branch, w.Repo, w.Repo)
		case !slices.Contains(names, "origin"):
			return res, refuse("branch %s has no upstream and the repository %s has no remote named origin (its remotes: %s): push it once with git -C %s push -u REMOTE %s",
				w.Branch, w.Repo, plaintext.Line(strings.Join(names, ", ")), w.Path, w.Branch)
		}
		remote, merge, upstreamSet = "origin", "refs/heads/"+w.Branch, true
		argv = append(argv, "-u", "--", remote, "refs/heads/"+w.Branch+":"+merge)
	}
	pctx, cancel := context.WithTimeout(ctx, PushTimeout)
	defer cancel()
	r := gitRun(pctx, w.Path, gitCall{env: pushEnv(ctx, w.Path), noTimeout: true}, argv...)
	if r.err != nil {
		return res, r.err
	}
	res.Commit = tip
	res.Remote = plaintext.Line(remote + "/" + strings.TrimPrefix(merge, "refs/heads/"))
	switch {
	case strings.Contains(r.stderr, "Everything up-to-date"):
		res.Summary = fmt.Sprintf("%s is up to date on %s (%s)", w.Branch, res.Remote, short(tip))
	case upstreamSet:
		res.Summary = fmt.Sprintf("pushed %s to %s (%s), its upstream now", w.Branch, res.Remote, short(tip))
	default:
		res.Summary = fmt.Sprintf("pushed %s to %s (%s)", w.Branch, res.Remote, short(tip))
	}
	res.Note = uncommittedNote(ctx, w.Path, "push")
	return res, nil
}

// pushEnv keeps a push from asking anyone anything: no terminal prompt
// (set for every call), and ssh in batch mode, added to the ssh command
// the user set (GIT_SSH_COMMAND, else core.sshCommand). A GIT_SSH program
// is left as it is: it may not be ssh.
func pushEnv(ctx context.Context, dir string) []string {
	if os.Getenv("GIT_SSH") != "" && os.Getenv("GIT_SSH_COMMAND") == "" {
		return nil
	}
	ssh := os.Getenv("GIT_SSH_COMMAND")
	if ssh == "" {
		ssh, _ = gitOut(ctx, dir, "config", "--get", "core.sshCommand")
	}
	if ssh == "" {
		ssh = "ssh"
	}
	return []string{"GIT_SSH_COMMAND=" + ssh + " -o BatchMode=yes"}
}

// Merge merges m's branch into its base branch with git merge --no-ff, in
// the working tree that has the base branch checked out. It is refused
// when the base branch is not a local branch, is checked out nowhere, has
// uncommitted changes there, already has the chat's commits, or would
// conflict (git merge-tree says so first; a merge that fails anyway is
// aborted).
func Merge(ctx context.Context, m *sessions.Meta) (proto.GitOpResult, error) {
	res := proto.GitOpResult{}
	w, err := chatWorktree(m)
	if err != nil {
		return res, err
	}
	res.Branch = w.Branch
	base, err := baseBranch(ctx, w)
	if err != nil {
		return res, err
	}
	if base == w.Branch {
		return res, refuse("its base branch is its own branch %s", base)
	}
	where, err := checkedOut(ctx, w.Repo, base)
	if err != nil {
		return res, err
	}
	res.Into, res.Where = base, where
	if _, err := gitOut(ctx, where, "rev-parse", "-q", "--verify", "MERGE_HEAD"); err == nil {
		return res, refuse("a merge is in progress in %s: finish or abort it there first", where)
	}
	dirty, err := gitOut(ctx, where, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return res, err
	}
	if dirty != "" {
		return res, refuse("%s, where %s is checked out, has uncommitted changes: commit or stash them there first (git -C %s status)", where, base, where)
	}
	if gitRun(ctx, w.Repo, gitCall{}, "merge-base", "--is-ancestor", "refs/heads/"+w.Branch, "refs/heads/"+base).err == nil {
		return res, refuse("nothing to merge: %s already has every commit of %s", base, w.Branch)
	}
	if err := needIdentity(ctx, where); err != nil {
		return res, err
	}
	if files, conflict := wouldConflict(ctx, w.Repo, base, w.Branch); conflict {
		return res, conflictRefusal(base, w.Branch, files)
	}
	msg := fmt.Sprintf("Merge chat %q (%s): branch %s", plaintext.Line(m.Name), m.ID, w.Branch)
	r := gitRun(ctx, where, gitCall{identity: true}, "merge", "--no-ff", "--no-edit", "-m", msg, w.Branch)
	if r.err != nil {
		// Whatever stopped it (a conflict merge-tree could not foresee, a
		// hook, the deadline), no half-done merge stays behind.
		if _, err := gitOut(context.Background(), where, "rev-parse", "-q", "--verify", "MERGE_HEAD"); err == nil {
			if _, aerr := gitOut(context.Background(), where, "merge", "--abort"); aerr != nil {
				return res, fmt.Errorf("%w; and git merge --abort failed: %v", r.err, aerr)
			}
			return res, fmt.Errorf("%w (the merge was aborted: %s is as it was)", r.err, where)
		}
		return res, r.err
	}
	if res.Commit, err = gitOut(ctx, where, "rev-parse", "HEAD"); err != nil {
		return res, err
	}
	res.Summary = fmt.Sprintf("merged %s into %s in %s (%s)", w.Branch, base, where, short(res.Commit))
	res.Note = uncommittedNote(ctx, w.Path, "merge")
	return res, nil
}

// baseBranch is the local branch worktree w came from: the branch its
// base ref names, or, for a worktree made from HEAD, the branch the base
// repository's main working tree is on, if it holds the commit the
// worktree was made from.
func baseBranch(ctx context.Context, w *sessions.Worktree) (string, error) {
	ref := w.BaseRef
	if ref == "" || ref == "HEAD" {
		b, err := gitOut(ctx, w.Repo, "symbolic-ref", "-q", "--short", "HEAD")
		if err != nil || b == "" {
			return "", refuse("it was made from HEAD of %s, which is on no branch now (detached): check out the branch to merge into there", w.Repo)
		}
		if gitRun(ctx, w.Repo, gitCall{}, "merge-base", "--is-ancestor", w.Base, "refs/heads/"+b).err != nil {
			return "", refuse("it was made from HEAD of %s at %s, and %s, checked out there now, does not hold that commit: check out the branch it came from", w.Repo, short(w.Base), b)
		}
		return b, nil
	}
	name := strings.TrimPrefix(ref, "refs/heads/")
	if strings.HasPrefix(name, "-") || gitRun(ctx, w.Repo, gitCall{}, "rev-parse", "-q", "--verify", "refs/heads/"+name).err != nil {
		return "", refuse("its base %s is not a local branch of %s: there is no branch to merge into (push its branch instead)", plaintext.Line(ref), w.Repo)
	}
	return name, nil
}

// checkedOut is the working tree of repo that has branch checked out, or
// the refusal that says none has.
func checkedOut(ctx context.Context, repo, branch string) (string, error) {
	out, err := gitOut(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return "", err
	}
	var path string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "worktree "):
			path = strings.TrimPrefix(line, "worktree ")
		case line == "branch refs/heads/"+branch:
			if _, err := os.Stat(path); err != nil {
				return "", refuse("%s is checked out in %s, which is gone", branch, path)
			}
			return path, nil
		}
	}
	return "", refuse("%s is not checked out in any working tree of %s: check it out there (git -C %s switch %s), then merge", branch, repo, repo, branch)
}

// wouldConflict asks git merge-tree (git 2.38 and later) whether merging
// branch into base would conflict, and in which files; a git too old to
// say is taken as "no", and the merge itself finds out (and is aborted).
func wouldConflict(ctx context.Context, repo, base, branch string) ([]string, bool) {
	r := gitRun(ctx, repo, gitCall{}, "merge-tree", "--write-tree", "--name-only", "--no-messages", "refs/heads/"+base, "refs/heads/"+branch)
	if r.code != 1 {
		return nil, false
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var files []string
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		files = append(files, plaintext.Line(l))
	}
	return files, true
}

func conflictRefusal(base, branch string, files []string) error {
	named := strings.Join(files, ", ")
	if len(files) > 10 {
		named = strings.Join(files[:10], ", ") + fmt.Sprintf(" and %d more", len(files)-10)
	}
	return refuse("merging %s into %s would conflict in %s: nothing was merged (bring %s into the chat's branch and resolve it there, then merge again)", branch, base, named, base)
}

// needIdentity refuses when git has no identity of the user's to commit
// as in dir (user.name and user.email, or git's environment): git's own
// words, cleaned, and how to set one. Git's guess from the host name is
// not taken (user.useConfigOnly).
func needIdentity(ctx context.Context, dir string) error {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		r := gitRun(ctx, dir, gitCall{identity: true}, "var", v)
		if r.err == nil {
			continue
		}
		var said []string
		for _, l := range strings.Split(plaintext.Clean(r.stderr), "\n") {
			l = strings.TrimSpace(l)
			if strings.Contains(l, "identity unknown") || strings.HasPrefix(l, "fatal:") {
				said = append(said, l)
			}
		}
		if len(said) == 0 {
			return r.err
		}
		return refuse("git has no identity to commit as: %s (set one: git config --global user.name \"Your Name\"; git config --global user.email you@example.com)", strings.Join(said, ": "))
	}
	return nil
}

// changed is how many files git status names in dir.
func changed(ctx context.Context, dir string) (int, error) {
	out, err := gitOut(ctx, dir, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return 0, err
	}
	if out == "" {
		return 0, nil
	}
	return strings.Count(out, "\n") + 1, nil
}

// uncommittedNote says that the worktree's uncommitted changes are not in
// what was pushed or merged ("" when it has none).
func uncommittedNote(ctx context.Context, dir, what string) string {
	n, err := changed(ctx, dir)
	if err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf("%d uncommitted change%s in %s are not in the %s: commit them first", n, plural(n), dir, what)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// gitCall is how one git call runs besides its argv.
type gitCall struct {
	env   []string
	stdin string
	// identity asks git for the user's configured identity only.
	identity bool
	// noTimeout leaves the deadline to the caller's context.
	noTimeout bool
}

// gitResult is one git call's output (stderr cleaned) and how it ended:
// err names the call and says what git said.
type gitResult struct {
	stdout, stderr string
	code           int
	err            error
}

// maxSaid bounds what of git's stderr an error carries.
const maxSaid = 2000

// gitRun runs git argv in dir within LocalTimeout (unless c.noTimeout),
// with no terminal to prompt on, its own process group (killed whole at
// the deadline: an ssh it started goes with it) and none of the caller's
// GIT_DIR-like variables.
func gitRun(ctx context.Context, dir string, c gitCall, argv ...string) gitResult {
	if !c.noTimeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, LocalTimeout)
		defer cancel()
	}
	full := []string{"-C", dir}
	if c.identity {
		full = append(full, "-c", "user.useConfigOnly=true")
	}
	cmd := exec.CommandContext(ctx, "git", append(full, argv...)...)
	cmd.Env = append(cleanEnv(), "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=:", "GIT_PAGER=cat", "GIT_MERGE_AUTOEDIT=no")
	cmd.Env = append(cmd.Env, c.env...)
	cmd.Stdin = strings.NewReader(c.stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := gitResult{stdout: out.String(), stderr: errb.String()}
	if err == nil {
		return r
	}
	r.code = -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	}
	said := saidByGit(r.stderr)
	switch {
	case ctx.Err() != nil:
		said = fmt.Sprintf("stopped after its deadline (%v)", ctx.Err())
	case said == "":
		said = err.Error()
	}
	r.err = fmt.Errorf("git %s: %s", argv[0], said)
	return r
}

// gitOut is gitRun's standard output, trimmed, or its error.
func gitOut(ctx context.Context, dir string, argv ...string) (string, error) {
	r := gitRun(ctx, dir, gitCall{}, argv...)
	return strings.TrimSpace(r.stdout), r.err
}

// saidByGit is git's stderr made fit to show: cleaned of escapes and
// control characters, empty lines dropped, bounded.
func saidByGit(stderr string) string {
	var lines []string
	for _, l := range strings.Split(plaintext.Clean(stderr), "\n") {
		if l = strings.TrimSpace(plaintext.Line(l)); l != "" {
			lines = append(lines, l)
		}
	}
	s := strings.Join(lines, "\n")
	if len(s) > maxSaid {
		s = strings.ToValidUTF8(s[:maxSaid], "") + "…"
	}
	return s
}
