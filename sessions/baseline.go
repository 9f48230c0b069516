package sessions

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/internal/lazyre"
	"github.com/acpmux/acpmux-tui/proto"
)

// Baseline is what a chat's folders were at its first start, the side a
// review compares against for a chat without a worktree of its own: the
// commit its cwd was at, and each folder's commit (or, for a folder that is
// not a git repository, the time after which a file counts as changed).
type Baseline struct {
	// At is when the chat's harness first started.
	At time.Time `toml:"at"`
	// Head is the commit HEAD of the chat's cwd pointed at then, when the
	// cwd was inside a git repository with a commit.
	Head string `toml:"head,omitempty"`
	// Folders are the additional folders' baselines, one per folder, the
	// ones present at the first start and each one added later.
	Folders []FolderBaseline `toml:"folders,omitempty"`
}

// FolderBaseline is one additional folder's baseline.
type FolderBaseline struct {
	Path string `toml:"path"`
	// Head is the folder's HEAD commit when recorded, when it is a git
	// repository with a commit.
	Head string `toml:"head,omitempty"`
	// Since is when a folder added after the first start was added (its
	// files changed after that count); zero for a folder present at the
	// first start, which counts from Baseline.At.
	Since *time.Time `toml:"since,omitempty"`
}

// Clone returns a deep copy of b (nil for nil).
func (b *Baseline) Clone() *Baseline {
	if b == nil {
		return nil
	}
	c := *b
	c.Folders = make([]FolderBaseline, len(b.Folders))
	for i, f := range b.Folders {
		c.Folders[i] = f
		if f.Since != nil {
			t := *f.Since
			c.Folders[i].Since = &t
		}
	}
	if len(b.Folders) == 0 {
		c.Folders = nil
	}
	return &c
}

// Folder returns the baseline recorded for the folder at path, if any.
func (b *Baseline) Folder(path string) (FolderBaseline, bool) {
	if b == nil {
		return FolderBaseline{}, false
	}
	i := slices.IndexFunc(b.Folders, func(f FolderBaseline) bool { return f.Path == path })
	if i < 0 {
		return FolderBaseline{}, false
	}
	return b.Folders[i], true
}

// FolderSince is when files in the folder at path start to count as changed:
// the time it was added, or the chat's first start.
func (b *Baseline) FolderSince(path string) time.Time {
	if f, ok := b.Folder(path); ok && f.Since != nil {
		return *f.Since
	}
	if b == nil {
		return time.Time{}
	}
	return b.At
}

// headTimeout bounds one `git rev-parse HEAD`, so a hung file system does not
// hold a start or an add-dir.
const headTimeout = 10 * time.Second

// GitHead returns the commit HEAD points at in the git repository dir is in,
// or "" when dir is not in one, HEAD has no commit yet, or git is missing.
// It runs the real git and takes no lock.
func GitHead(dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), headTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	cmd.Env = append(cmd.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// NewBaseline makes the baseline of a chat starting now with cwd and folders,
// running git for each (no lock is held: call it before taking one).
func NewBaseline(at time.Time, cwd string, folders []string) *Baseline {
	b := &Baseline{At: at.UTC(), Head: GitHead(cwd)}
	for _, f := range folders {
		b.Folders = append(b.Folders, FolderBaseline{Path: f, Head: GitHead(f)})
	}
	return b
}

// RecordBaseline stores b as the chat's baseline unless it already has one
// (the first start's stays); it reports whether it stored b.
func (s *Store) RecordBaseline(id string, b *Baseline) (bool, error) {
	stored := false
	_, err := s.Update(id, func(m *Meta) error {
		if m.Baseline != nil {
			return nil
		}
		m.Baseline = b.Clone()
		stored = true
		return nil
	})
	return stored, err
}

// addFolderBaselines gives each folder in added that m's baseline has no
// entry for one, with heads found before the lock was taken; a chat not yet
// started has no baseline and gets none (its first start records all).
func addFolderBaselines(m *Meta, added []string, heads map[string]string, at time.Time) {
	if m.Baseline == nil {
		return
	}
	for _, f := range added {
		if _, ok := m.Baseline.Folder(f); ok {
			continue
		}
		t := at.UTC()
		m.Baseline.Folders = append(m.Baseline.Folders, FolderBaseline{Path: f, Head: heads[f], Since: &t})
	}
}

var commitPattern = lazyre.New(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// check verifies a stored baseline's shape: commits are hex object names and
// folders absolute paths, at most MaxFolders of them.
func (b *Baseline) check() error {
	if b == nil {
		return nil
	}
	if b.Head != "" && !commitPattern().MatchString(b.Head) {
		return fmt.Errorf("baseline head %q is not a commit id", clip(b.Head))
	}
	if len(b.Folders) > 2*MaxFolders {
		return fmt.Errorf("%d baseline folders, at most %d", len(b.Folders), 2*MaxFolders)
	}
	for i, f := range b.Folders {
		if reason := syntaxProblem(f.Path); reason != "" {
			return fmt.Errorf("baseline folders[%d] %q: %s", i, clip(f.Path), reason)
		}
		if f.Head != "" && !commitPattern().MatchString(f.Head) {
			return fmt.Errorf("baseline folders[%d] head %q is not a commit id", i, clip(f.Head))
		}
	}
	return nil
}

// JSON returns b as printed (nil for nil), its times in RFC 3339 with
// nanoseconds, so the review's mtime side reads back the same instant.
func (b *Baseline) JSON() *proto.BaselineJSON {
	if b == nil {
		return nil
	}
	j := &proto.BaselineJSON{At: b.At.UTC().Format(time.RFC3339Nano), Head: b.Head}
	for _, f := range b.Folders {
		fj := proto.FolderBaselineJSON{Path: f.Path, Head: f.Head}
		if f.Since != nil {
			fj.Since = f.Since.UTC().Format(time.RFC3339Nano)
		}
		j.Folders = append(j.Folders, fj)
	}
	return j
}

// BaselineFromJSON returns the baseline j prints (nil for nil), or nil
// when a time in it does not parse: a client then has no baseline rather
// than a wrong one.
func BaselineFromJSON(j *proto.BaselineJSON) *Baseline {
	if j == nil {
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, j.At)
	if err != nil {
		return nil
	}
	b := &Baseline{At: at, Head: j.Head}
	for _, fj := range j.Folders {
		f := FolderBaseline{Path: fj.Path, Head: fj.Head}
		if fj.Since != "" {
			since, err := time.Parse(time.RFC3339Nano, fj.Since)
			if err != nil {
				return nil
			}
			f.Since = &since
		}
		b.Folders = append(b.Folders, f)
	}
	return b
}
