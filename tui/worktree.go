package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// maxWorkLines bounds how many of a worktree's changes the delete dialog
// names.
const maxWorkLines = 8

// worktreeDeleteLines adds to the delete dialog what happens to a worktree
// chat's worktree, as `acpmux-tui rm` says it: removed with git worktree
// remove, its branch kept; with work that would be lost, that work named
// and the answer made a forced removal.
func worktreeDeleteLines(lines []string, msg deleteAskMsg, yes string, force bool) ([]string, string, bool) {
	lines = append(lines, "Its chat file goes, and its worktree with git worktree remove:", "  "+msg.worktree,
		"its branch "+msg.branch+" is kept.")
	if len(msg.work) == 0 {
		return lines, yes, force
	}
	lines = append(lines, "", fmt.Sprintf("The worktree has work that would be lost (%d):", len(msg.work)))
	for i, w := range msg.work {
		if i == maxWorkLines {
			lines = append(lines, fmt.Sprintf("  … %d more", len(msg.work)-i))
			break
		}
		lines = append(lines, "  "+w)
	}
	return lines, "delete, losing that work", true
}

// gitFolders are those of dirs that are git repositories, or inside one:
// a folder with a .git entry (a working tree, or a linked worktree's
// file) on the way up, or a bare repository (HEAD, objects and refs).
// It stats, never runs git: it is called on every folder check.
func gitFolders(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if inGitRepo(d) {
			out = append(out, d)
		}
	}
	return out
}

func inGitRepo(dir string) bool {
	if isBare(dir) {
		return true
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

func isBare(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// worktreeLines are the summary's lines of a worktree chat: its branch,
// the commit (and ref) it was made from, the repository, and whether its
// folder has gone.
func (s *Summary) worktreeLines(row func(string, string) string, vw int) []string {
	w := s.info.Meta().Worktree
	if w == nil {
		return nil
	}
	st := s.c.Styles
	base := w.Base
	if len(base) > 12 {
		base = base[:12]
	}
	if w.BaseRef != "" && w.BaseRef != w.Base {
		base += " (" + w.BaseRef + ")"
	}
	out := []string{row("branch", truncPlain(w.Branch+" · from "+base, vw))}
	if s.info.WorktreeGone {
		out = append(out, row("worktree", st.Warn.Render(truncPlain("missing (removed by hand) · "+w.Path, vw))))
	}
	return append(out, row("repo", truncPlain(w.Repo, vw)))
}

// isGitFolder reports whether the folder check found d to be a git
// repository.
func (i ChatInfo) isGitFolder(d string) bool { return slices.Contains(i.GitFolders, d) }

// gitCheck is what a folder check learns of git: which additional folders
// are repositories, and whether a worktree chat's folder has gone.
type gitCheck struct {
	folders      []string
	worktreeGone bool
}

func (g gitCheck) equal(o gitCheck) bool {
	return g.worktreeGone == o.worktreeGone && slices.Equal(g.folders, o.folders)
}
