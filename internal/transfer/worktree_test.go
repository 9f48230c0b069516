package transfer

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/gitenv"
	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/sessions"
)

// worktreeChat makes w.app a git repository with one commit (the real
// git) and a chat in a worktree of it, with a baseline recorded.
func worktreeChat(t *testing.T, w *world) *sessions.Meta {
	t.Helper()
	gitenv.Set(t)
	for _, argv := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", w.app}, argv...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", argv, err, out)
		}
	}
	m, err := w.store.Create(sessions.NewChat{Name: "wt", Harness: "claude", Cwd: w.app})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = worktree.Give(w.store, m, w.store.WorktreesDir(), worktree.Ask{From: w.app}, worktree.Setup{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.RecordBaseline(m.ID, sessions.NewBaseline(time.Now(), m.Cwd, nil)); err != nil {
		t.Fatal(err)
	}
	if m, err = w.store.Load(m.ID); err != nil || m.Baseline == nil || m.Worktree == nil {
		t.Fatalf("the worktree chat: %+v, %v", m, err)
	}
	return m
}

func exportBundle(t *testing.T, w *world, m *sessions.Meta) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Export(&buf, m, w.exportOptions()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func hasNote(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// TestImportKeepsAWorktreeThatIsHere: a worktree chat imported where its
// worktree is (another agent home on the same machine, the worktree's
// folder under a root) runs in it and keeps its [worktree]; its baseline
// is not carried, and the report says both.
func TestImportKeepsAWorktreeThatIsHere(t *testing.T) {
	w := newWorld(t)
	m := worktreeChat(t, w)
	o := w.other()
	rep, err := Import(bytes.NewReader(exportBundle(t, w, m)), o.importOptions(w.src, w.store.WorktreesDir()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.store.Load(rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Worktree == nil || *got.Worktree != *m.Worktree || got.Cwd != m.Worktree.Path {
		t.Fatalf("imported: cwd %s, worktree %+v; want the exported %+v", got.Cwd, got.Worktree, m.Worktree)
	}
	if got.Baseline != nil {
		t.Errorf("the exporting side's baseline was carried: %+v", got.Baseline)
	}
	if !hasNote(rep.Notes, "is here: the chat runs in it") || !hasNote(rep.Notes, "review baseline") {
		t.Errorf("notes: %q", rep.Notes)
	}
}

// TestImportDropsAWorktreeThatIsNotHere: where the worktree's folder is
// not (another host: here, removed after the export), the imported chat
// has no [worktree] and runs in the worktree's repository, with a line in
// the report; when the repository is outside every root too, the import
// is refused, naming the worktree.
func TestImportDropsAWorktreeThatIsNotHere(t *testing.T) {
	w := newWorld(t)
	m := worktreeChat(t, w)
	data := exportBundle(t, w, m)
	if err := os.RemoveAll(m.Worktree.Path); err != nil {
		t.Fatal(err)
	}
	o := w.other()
	rep, err := Import(bytes.NewReader(data), o.importOptions(w.src, w.store.WorktreesDir()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.store.Load(rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Worktree != nil || got.Cwd != w.app {
		t.Fatalf("imported: cwd %s, worktree %+v; want the repository %s and no worktree", got.Cwd, got.Worktree, w.app)
	}
	if !hasNote(rep.Notes, "dropped") || !hasNote(rep.Notes, "runs in the worktree's repository") {
		t.Errorf("notes: %q", rep.Notes)
	}

	_, err = Import(bytes.NewReader(data), o.importOptions(filepath.Join(w.root, "outside")))
	var ref *Refusal
	if err == nil || !errors.As(err, &ref) || !strings.Contains(ref.Reason, "git worktree") {
		t.Fatalf("repository outside every root: %v", err)
	}
}
