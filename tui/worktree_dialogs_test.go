package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

var (
	keyCtrlG = keyOf(tea.KeyCtrlG)
	keyLeave = keyOf(tea.KeyCtrlCloseBracket)
)

// gitInit makes dir a git repository with the real git.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", dir, err, out)
	}
}

// The new-chat dialog's worktree line starts at the config's default, the
// worktree key turns it, and the chat is asked of the server with the
// choice shown.
func TestNewChatDialogWorktreeChoice(t *testing.T) {
	cfg := config.Defaults()
	cfg.Worktree.Default = true
	r := newRig(t, cfg)
	r.open(Options{})
	r.key(runeKey('n'))
	d := r.m.dialog.(*NewChatDialog)
	if !d.Worktree() || !strings.Contains(r.m.View(), "worktree  yes · a worktree of the project's repository  ctrl+g turns it off") {
		t.Fatalf("worktree = true does not show as on:\n%s", r.m.View())
	}
	r.key(keyCtrlG)
	if d.Worktree() || !strings.Contains(r.m.View(), "worktree  no  ctrl+g turns it on") {
		t.Fatalf("ctrl+g did not turn it off:\n%s", r.m.View())
	}
	r.key(keyOf(tea.KeyCtrlS))
	if got := r.fake.WorktreeAsks(); !slices.Equal(got, []string{"no"}) {
		t.Fatalf("asked of the server: %v, want [no]", got)
	}
	// Untouched, the config's default is left to the server (which gives
	// a project outside a repository no worktree rather than a refusal).
	r.key(keyLeave, runeKey('n'))
	if d, ok := r.m.dialog.(*NewChatDialog); !ok || !d.Worktree() {
		t.Fatalf("the second dialog: %v", r.m.dialog)
	}
	r.key(keyOf(tea.KeyCtrlS))
	if got := r.fake.WorktreeAsks(); !slices.Equal(got, []string{"no", "default"}) {
		t.Fatalf("asked of the server: %v, want [no default]", got)
	}

	// Rebound under [keys], the dialog takes the new key.
	cfg2 := config.Defaults()
	cfg2.Keys = map[string]config.KeyList{"worktree": {"ctrl+o"}}
	r2 := newRig(t, cfg2)
	r2.open(Options{})
	r2.key(runeKey('n'))
	d2 := r2.m.dialog.(*NewChatDialog)
	r2.key(keyCtrlG)
	if d2.Worktree() {
		t.Fatal("ctrl+g still turns the worktree on after rebinding")
	}
	r2.key(keyOf(tea.KeyCtrlO))
	if !d2.Worktree() || !strings.Contains(r2.m.View(), "ctrl+o turns it off") {
		t.Fatalf("the rebound key did not turn it on:\n%s", r2.m.View())
	}
	r2.key(keyOf(tea.KeyCtrlS))
	if got := r2.fake.WorktreeAsks(); !slices.Equal(got, []string{"yes"}) {
		t.Fatalf("asked of the server: %v, want [yes]", got)
	}
}

// f on a chat in a git repository opens the fork dialog, its worktree
// off by default; the key turns it on and enter forks asking for one. A
// chat outside any repository forks at once, asking nothing.
func TestForkDialogWorktreeChoice(t *testing.T) {
	r := newRig(t, nil)
	repo := r.dir("repo")
	gitInit(t, repo)
	plain := r.create(sessions.NewChat{Name: "plain", Cwd: r.dir("plain")})
	inRepo := r.create(sessions.NewChat{Name: "inrepo", Cwd: repo})
	r.open(Options{})

	r.m.sidebar.Select(plain.ID)
	r.key(runeKey('f'))
	if r.m.dialog != nil {
		t.Fatalf("a chat outside a repository got a dialog:\n%s", r.m.View())
	}
	if got := r.fake.WorktreeAsks(); !slices.Equal(got, []string{"default"}) {
		t.Fatalf("the plain fork asked %v, want [default]", got)
	}
	r.key(keyLeave) // the fork opened, focused

	r.m.sidebar.Select(inRepo.ID)
	r.key(runeKey('f'))
	d, ok := r.m.dialog.(*ForkDialog)
	if !ok {
		t.Fatalf("no fork dialog for a chat in a repository:\n%s", r.m.View())
	}
	if d.Worktree() || !strings.Contains(r.m.View(), "The fork runs in the same folder as its parent.") {
		t.Fatalf("the worktree is not off by default:\n%s", r.m.View())
	}
	r.key(keyCtrlG)
	if !d.Worktree() || !strings.Contains(r.m.View(), "starts at the repository's HEAD") {
		t.Fatalf("ctrl+g did not turn it on:\n%s", r.m.View())
	}
	r.key(keyEnter)
	if r.m.dialog != nil {
		t.Fatalf("enter left the dialog open:\n%s", r.m.View())
	}
	if got := r.fake.WorktreeAsks(); !slices.Equal(got, []string{"default", "yes"}) {
		t.Fatalf("asked %v, want [default yes]", got)
	}

	// esc forks nothing.
	r.key(keyLeave)
	r.m.sidebar.Select(inRepo.ID)
	r.key(runeKey('f'), keyOf(tea.KeyEsc))
	if r.m.dialog != nil || len(r.fake.WorktreeAsks()) != 2 {
		t.Fatalf("esc forked or stayed open: %v", r.fake.WorktreeAsks())
	}
}

// The review pane asks the server for the review, which reviews the chat
// as stored then (its baseline with it): a chat listed before its first
// start recorded the baseline is still compared with the HEAD recorded
// then, so a commit made since shows.
func TestReviewAsksTheServerForTheBaseline(t *testing.T) {
	r := newRig(t, nil)
	repo := r.dir("repo")
	git := func(argv ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, argv...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", argv, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitInit(t, repo)
	git("commit", "-q", "--allow-empty", "-m", "one")
	listed := r.create(sessions.NewChat{Name: "rev", Cwd: repo})
	if _, err := r.store.RecordBaseline(listed.ID, sessions.NewBaseline(time.Now(), repo, nil)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "later.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "later.txt")
	git("commit", "-q", "-m", "two")

	msg, ok := computeReview(1, r.fake, listed.ID, proto.ReviewSide{})().(reviewComputedMsg)
	if !ok || msg.err != nil || len(msg.sections) == 0 {
		t.Fatalf("review: %+v", msg)
	}
	files := msg.sections[0].Files
	if len(files) != 1 || files[0].Path != "later.txt" {
		t.Fatalf("files %+v; want later.txt, committed since the baseline's HEAD", files)
	}
	if !slices.Contains(r.fake.Calls(), "review "+listed.ID) {
		t.Errorf("the review was not asked of the server: %v", r.fake.Calls())
	}
}
