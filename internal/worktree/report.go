package worktree

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Report is what removing a worktree would lose.
type Report struct {
	// Changes are `git status --porcelain` lines: staged, unstaged and
	// untracked files.
	Changes []string
	// Commits are "<short sha> <subject>" of the commits reachable from
	// the worktree's HEAD that are on no other branch (local or remote)
	// and were not already in its base.
	Commits []string
}

// Clean reports whether nothing would be lost.
func (r Report) Clean() bool { return len(r.Changes) == 0 && len(r.Commits) == 0 }

// String names what would be lost, a line each.
func (r Report) String() string {
	var b strings.Builder
	if len(r.Changes) > 0 {
		fmt.Fprintf(&b, "%d uncommitted change(s):\n", len(r.Changes))
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	if len(r.Commits) > 0 {
		fmt.Fprintf(&b, "%d commit(s) on no other branch:\n", len(r.Commits))
		for _, c := range r.Commits {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Check reports the uncommitted changes in the worktree at path and the
// commits on its branch that no other branch has. base, when set, is the
// commit the worktree was made from: what it already held is not counted.
func Check(path, branch, base string) (Report, error) {
	var r Report
	out, err := Git(path, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return r, fmt.Errorf("check worktree %s: %w", path, err)
	}
	for _, line := range strings.Split(out, "\n") {
		if line != "" {
			r.Changes = append(r.Changes, line)
		}
	}
	argv := []string{"log", "--format=%h %s", "HEAD", "--not"}
	if base != "" {
		argv = append(argv, base)
	}
	if branch != "" {
		// git matches --exclude before --branches against the name
		// with or without refs/heads/ depending on its version: both.
		argv = append(argv, "--exclude=refs/heads/"+branch, "--exclude="+branch)
	}
	argv = append(argv, "--branches", "--remotes", "--")
	out, err = Git(path, argv...)
	if err != nil {
		return r, fmt.Errorf("check worktree %s: %w", path, err)
	}
	for _, line := range strings.Split(out, "\n") {
		if line != "" {
			r.Commits = append(r.Commits, line)
		}
	}
	return r, nil
}

// Dirty reports whether the working tree at dir has uncommitted changes
// (staged, unstaged or untracked).
func Dirty(dir string) (bool, error) {
	out, err := Git(dir, "status", "--porcelain")
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(out) != "", nil
}

// stashIdentity lets `git stash create` make its commit where no user is
// configured; the commit is a carrier, never a branch's.
var stashIdentity = []string{
	"GIT_AUTHOR_NAME=acpmux", "GIT_AUTHOR_EMAIL=acpmux@localhost",
	"GIT_COMMITTER_NAME=acpmux", "GIT_COMMITTER_EMAIL=acpmux@localhost",
}

// CarryUncommitted puts the uncommitted work of the worktree at src
// (staged, unstaged and untracked files) into the worktree at dst, which
// must share src's repository and start at src's HEAD: `git stash create`
// in src (which changes nothing there), `git stash apply --index` of it in
// dst, and the untracked files (not the ignored ones) copied.
func CarryUncommitted(src, dst string) error {
	out, err := gitEnv(src, stashIdentity, "stash", "create")
	if err != nil {
		return fmt.Errorf("carry uncommitted work from %s: %w", src, err)
	}
	if sha := strings.TrimSpace(out); sha != "" {
		if _, err := Git(dst, "stash", "apply", "--index", sha); err != nil {
			return fmt.Errorf("carry uncommitted work from %s to %s: %w", src, dst, err)
		}
	}
	out, err = Git(src, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return fmt.Errorf("carry untracked files from %s: %w", src, err)
	}
	for _, rel := range strings.Split(out, "\x00") {
		if rel == "" {
			continue
		}
		if err := copyEntry(filepath.Join(src, rel), filepath.Join(dst, rel)); err != nil {
			return fmt.Errorf("carry untracked file %s: %w", rel, err)
		}
	}
	return nil
}

// copyEntry copies one regular file or symbolic link, keeping its mode,
// and makes its folders; it never replaces what dst already has.
func copyEntry(from, to string) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	case fi.Mode().IsRegular():
		in, err := os.Open(from)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	return nil // a socket or FIFO: nothing to carry
}
