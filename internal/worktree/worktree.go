// Package worktree gives a chat a git worktree of its own, with the real
// git (os/exec, argv slices, `git -C dir`): making it on a new branch,
// carrying another worktree's uncommitted work into it, saying what would
// be lost by removing it, removing it, and pruning a folder removed by hand.
// It never changes the base repository's working tree or index.
package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode"
)

// ErrNotRepo is returned (wrapped) when a folder is not inside a git
// repository.
var ErrNotRepo = errors.New("not inside a git repository")

// ErrNoCommits is returned (wrapped) when a repository has no commit to
// branch from.
var ErrNoCommits = errors.New("the repository has no commits yet")

// ErrBadBase is returned (wrapped) when a base ref names no commit.
var ErrBadBase = errors.New("not a commit")

// Git runs git with argv in dir (`git -C dir argv...`) and returns its
// standard output. GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE are not passed
// on, so a caller inside a git hook still acts on dir. A failure says what
// was run and what git printed on stderr.
func Git(dir string, argv ...string) (string, error) {
	return gitEnv(dir, nil, argv...)
}

func gitEnv(dir string, extra []string, argv ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, argv...)...)
	cmd.Env = append(cleanEnv(), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git -C %s %s: %s: %w", dir, strings.Join(argv, " "), msg, err)
	}
	return out.String(), nil
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "GIT_DIR="), strings.HasPrefix(kv, "GIT_WORK_TREE="),
			strings.HasPrefix(kv, "GIT_INDEX_FILE="), strings.HasPrefix(kv, "GIT_PREFIX="):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Repo is what IsRepo learns of a folder's repository.
type Repo struct {
	// Toplevel is the working tree's top (a linked worktree's own), or for
	// a bare repository its git folder.
	Toplevel string
	// Main is the repository's main working tree top (for a linked
	// worktree, the one it was made from), or for a bare repository its
	// git folder.
	Main string
	// Bare is set for a bare repository.
	Bare bool
	// Detached is set when HEAD names no branch.
	Detached bool
	// Submodules is set when the working tree has a .gitmodules file.
	Submodules bool
}

// IsRepo reports whether dir is inside a git repository, and which; an
// error wrapping ErrNotRepo when it is not.
func IsRepo(dir string) (Repo, error) {
	out, err := Git(dir, "rev-parse", "--is-bare-repository", "--absolute-git-dir")
	if err != nil {
		return Repo{}, fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		return Repo{}, fmt.Errorf("%s: git rev-parse printed %q", dir, out)
	}
	r := Repo{Bare: lines[0] == "true"}
	common, err := Git(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return Repo{}, fmt.Errorf("%s: %w", dir, err)
	}
	common = filepath.Clean(strings.TrimSpace(common))
	r.Main = common
	if r.Bare {
		r.Toplevel = lines[1]
	} else {
		top, err := Git(dir, "rev-parse", "--show-toplevel")
		if err != nil {
			// Inside a .git folder: neither a work tree nor bare.
			return Repo{}, fmt.Errorf("%s is inside a git folder, not a working tree: %w", dir, ErrNotRepo)
		}
		r.Toplevel = strings.TrimSpace(top)
		if filepath.Base(common) == ".git" {
			r.Main = filepath.Dir(common)
		}
		if _, err := os.Stat(filepath.Join(r.Toplevel, ".gitmodules")); err == nil {
			r.Submodules = true
		}
	}
	if _, err := Git(dir, "symbolic-ref", "-q", "HEAD"); err != nil {
		r.Detached = true
	}
	return r, nil
}

// Slug is a chat name made fit for a branch name: lower-case letters and
// digits, runs of anything else one "-", at most 40 bytes; "chat" when
// nothing is left.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 40 {
				break
			}
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "chat"
	}
	return b.String()
}

// BranchName is the branch a chat's worktree is made on:
// acpmux/<name slug>-<id>. A name that already ends in the id (the
// default name, "<folder> <id>") does not get it twice.
func BranchName(name, id string) string {
	slug := Slug(name)
	if slug == id || strings.HasSuffix(slug, "-"+id) {
		return "acpmux/" + slug
	}
	return "acpmux/" + slug + "-" + id
}

// Made is a worktree Add made.
type Made struct {
	// Path is the worktree's folder.
	Path string
	// Branch is its new branch.
	Branch string
	// Base is the commit it was made from.
	Base string
	// BaseRef is the ref as given ("HEAD" when none was).
	BaseRef string
	// Repo is the base repository's toplevel: its main working tree, even
	// when the worktree was made from a linked one.
	Repo string
}

// Add makes a worktree at dest of the repository dir is in, on a new
// branch from base (HEAD when empty), with `git worktree add -b`. Hooks
// run as git runs them; submodules are left as git leaves them (not
// checked out). The base repository's working tree is not touched.
func Add(dir, dest, branch, base string) (Made, error) {
	repo, err := IsRepo(dir)
	if err != nil {
		return Made{}, err
	}
	if base == "" {
		base = "HEAD"
	}
	sha, err := resolveCommit(dir, base)
	if err != nil {
		return Made{}, err
	}
	if _, err := os.Lstat(dest); err == nil {
		return Made{}, fmt.Errorf("make worktree: %s already exists", dest)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return Made{}, fmt.Errorf("make worktree: %w", err)
	}
	if _, err := Git(dir, "worktree", "add", "-b", branch, "--", dest, sha); err != nil {
		return Made{}, fmt.Errorf("make worktree of %s: %w", repo.Toplevel, err)
	}
	path, err := filepath.EvalSymlinks(dest)
	if err != nil {
		return Made{}, fmt.Errorf("make worktree: %w", err)
	}
	return Made{Path: path, Branch: branch, Base: sha, BaseRef: base, Repo: repo.Main}, nil
}

// resolveCommit is the commit ref names in dir's repository.
func resolveCommit(dir, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("base %q: a ref does not start with '-': %w", ref, ErrBadBase)
	}
	out, err := Git(dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		if ref == "HEAD" {
			return "", fmt.Errorf("%s: %w", dir, ErrNoCommits)
		}
		return "", fmt.Errorf("base %q is %w in %s", ref, ErrBadBase, dir)
	}
	return strings.TrimSpace(out), nil
}

// Head is the commit checked out in the worktree at path.
func Head(path string) (string, error) {
	return resolveCommit(path, "HEAD")
}

// Prune runs `git worktree prune` in the repository at repo, so a
// worktree whose folder was removed by hand is forgotten by git.
func Prune(repo string) error {
	_, err := Git(repo, "worktree", "prune")
	return err
}

// Remove removes the worktree at path from the repository at repo with
// `git worktree remove` (--force when force is set); a folder already
// gone is pruned instead. With deleteBranch the branch is deleted too
// (`git branch -D`, after the caller has checked, or forced, Report).
func Remove(repo, path, branch string, force, deleteBranch bool) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := Prune(repo); err != nil {
			return fmt.Errorf("remove worktree %s: %w", path, err)
		}
	} else {
		argv := []string{"worktree", "remove"}
		if force {
			argv = append(argv, "--force")
		}
		if _, err := Git(repo, append(argv, "--", path)...); err != nil {
			return fmt.Errorf("remove worktree %s: %w", path, err)
		}
	}
	if deleteBranch && branch != "" {
		if _, err := Git(repo, "branch", "-D", "--", branch); err != nil {
			return fmt.Errorf("delete branch %s: %w", branch, err)
		}
	}
	return nil
}
