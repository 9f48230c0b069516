package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/acpmux/acpmux-tui/proto"
)

// Worktree is the git worktree a chat was given (`new --worktree`): the
// chat's cwd is Path, a folder on Branch made from Base in Repo. It is
// the `[worktree]` table of the chat file.
type Worktree struct {
	// Path is the worktree's folder, the chat's cwd.
	Path string `toml:"path"`
	// Branch is the branch made for the chat: acpmux/<name slug>-<id>.
	Branch string `toml:"branch"`
	// Base is the commit (sha) the worktree was made from.
	Base string `toml:"base"`
	// BaseRef is the ref as given (--base REF), or "HEAD".
	BaseRef string `toml:"base_ref,omitempty"`
	// Repo is the base repository's toplevel.
	Repo string `toml:"repo"`
}

// JSON is w as printed; it looks whether w's folder still exists.
func (w *Worktree) JSON() *proto.WorktreeJSON {
	if w == nil {
		return nil
	}
	j := &proto.WorktreeJSON{Path: w.Path, Branch: w.Branch, Base: w.Base, BaseRef: w.BaseRef, Repo: w.Repo}
	if _, err := os.Stat(w.Path); errors.Is(err, os.ErrNotExist) {
		j.Missing = true
	}
	return j
}

// Missing reports whether w's folder is gone.
func (w *Worktree) Missing() bool {
	_, err := os.Stat(w.Path)
	return errors.Is(err, os.ErrNotExist)
}

// check verifies the shape of a stored worktree table.
func (w *Worktree) check() error {
	for _, kv := range [...][2]string{{"path", w.Path}, {"repo", w.Repo}} {
		if kv[1] == "" || !filepath.IsAbs(kv[1]) {
			return fmt.Errorf("worktree.%s %q is not an absolute path", kv[0], clip(kv[1]))
		}
		if reason := syntaxProblem(kv[1]); reason != "" {
			return fmt.Errorf("worktree.%s %q: %s", kv[0], clip(kv[1]), reason)
		}
	}
	if w.Branch == "" {
		return errors.New("missing key worktree.branch")
	}
	if w.Base == "" {
		return errors.New("missing key worktree.base")
	}
	return nil
}

// SetupLogPath is where the output of a chat's [worktree] setup command
// waits for the chat's first start: chats/<id>.setup.log.
func (s *Store) SetupLogPath(id string) string {
	return filepath.Join(s.home, "chats", id+".setup.log")
}

// maxSetupLogBytes bounds what ClaimSetupLog reads.
const maxSetupLogBytes = 64 << 10

// ClaimSetupLog returns the waiting setup output of chat id, at most 64
// KiB, and removes it so only one start shows it; nil when none waits.
// Only a regular file is read.
func (s *Store) ClaimSetupLog(id string) []byte {
	if !ValidID(id) {
		return nil
	}
	p := s.SetupLogPath(id)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxSetupLogBytes))
	os.Remove(p)
	return b
}

// WorktreeFromJSON is j as the chat file holds it (nil for nil): what a
// client that reads chats from the server puts in its Meta.
func WorktreeFromJSON(j *proto.WorktreeJSON) *Worktree {
	if j == nil {
		return nil
	}
	return &Worktree{Path: j.Path, Branch: j.Branch, Base: j.Base, BaseRef: j.BaseRef, Repo: j.Repo}
}
