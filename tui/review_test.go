package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

func gitT(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", argv, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeT(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCmd runs a command the dialog returned, as Bubble Tea would, and hands
// its message back; it fails on a command that is not the dialog's own.
func runCmd(t *testing.T, d *ReviewDialog, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	if cmd == nil {
		t.Fatal("the dialog returned no command")
	}
	return d.Update(cmd())
}

// TestReviewDialogUpdate: against a real repository, the pane lists the
// changed files, loads the selected one's diff, moves to the next, changes
// the compare side to a typed ref, refuses p without a parent, and closes on
// esc.
func TestReviewDialogUpdate(t *testing.T) {
	r := newRig(t, nil)
	dir := r.dir("repo")
	gitT(t, dir, "init", "-q")
	writeT(t, filepath.Join(dir, "a.txt"), "one\ntwo\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "base")
	meta := r.create(sessions.NewChat{Name: "review me", Cwd: dir})
	if _, err := r.store.RecordBaseline(meta.ID, sessions.NewBaseline(time.Now(), dir, nil)); err != nil {
		t.Fatal(err)
	}
	writeT(t, filepath.Join(dir, "a.txt"), "one\n2\n")
	writeT(t, filepath.Join(dir, "b.txt"), "new\n")

	c := plainCommon()
	d := NewReviewDialog(c, 7, r.fake, meta)
	d.SetSize(100, 30)
	cmd := runCmd(t, d, d.Init())
	if d.ErrText() != "" || len(d.files) != 2 {
		t.Fatalf("after the review: err %q, %d files; want a.txt and b.txt", d.ErrText(), len(d.files))
	}
	if _, p := d.Selected(); p != "a.txt" {
		t.Fatalf("selected %q, want a.txt", p)
	}
	runCmd(t, d, cmd)
	view := strings.Join(d.View(), "\n")
	for _, want := range []string{"M a.txt  +1 -1", "? b.txt  +1 -0", "-two", "+2", "@@ -1,2 +1,2 @@"} {
		if !strings.Contains(view, want) {
			t.Errorf("view has no %q:\n%s", want, view)
		}
	}
	// A diff that comes after the selection moved on is dropped.
	stale := d.Update(tea.KeyMsg{Type: tea.KeyDown})
	if _, p := d.Selected(); p != "b.txt" {
		t.Fatalf("down selected %q, want b.txt", p)
	}
	d.Update(reviewDiffMsg{owner: 7, gen: d.gen - 1, diff: proto.ReviewDiff{Path: "a.txt", Text: "@@ stale\n"}})
	if len(d.diffLines) != 0 {
		t.Errorf("a stale diff was drawn: %q", d.diffLines)
	}
	runCmd(t, d, stale)
	if view := strings.Join(d.View(), "\n"); !strings.Contains(view, "+new") {
		t.Errorf("b.txt's diff not shown:\n%s", view)
	}

	// b, a ref, enter: compared with HEAD; commit a.txt first so it drops.
	gitT(t, dir, "commit", "-qam", "a")
	d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b")})
	d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("HEAD")})
	runCmd(t, d, d.Update(tea.KeyMsg{Type: tea.KeyEnter}))
	if d.side.Ref != "HEAD" || len(d.files) != 1 {
		t.Fatalf("against HEAD: side %v, %d files (%v); want only b.txt", d.side, len(d.files), d.sections)
	}
	d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b")})
	d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("~nope")})
	runCmd(t, d, d.Update(tea.KeyMsg{Type: tea.KeyEnter}))
	if !strings.Contains(d.ErrText(), "nope") || d.side.Ref != "HEAD" {
		t.Errorf("a bad ref: err %q, side %v; want the error and the side kept", d.ErrText(), d.side)
	}
	d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	if !strings.Contains(d.ErrText(), "no parent") {
		t.Errorf("p without a parent: err %q", d.ErrText())
	}
	if cmd := d.Update(tea.KeyMsg{Type: tea.KeyEsc}); cmd == nil {
		t.Error("esc did not close the pane")
	} else if _, ok := cmd().(closeDialogMsg); !ok {
		t.Error("esc returned something other than closeDialog")
	}
}

// TestReviewTimes: the time an mtime section counts from is told in the
// clock's zone, as a reader wants it; a base that is no time is kept.
func TestReviewTimes(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	now := time.Date(2026, 12, 1, 16, 0, 0, 0, cet)
	for _, c := range []struct{ base, want string }{
		{"2026-12-01T13:06:00Z", "14:06 today"},
		{"2026-11-30T23:30:00Z", "00:30 today"}, // the day in the clock's zone
		{"2026-11-30T08:10:00.123456789Z", "09:10 yesterday"},
		{"2026-11-30T22:59:00Z", "23:59 yesterday"},
		{"2026-11-29T22:59:00Z", "Nov 29 23:59"},
		{"2026-12-03T08:10:00Z", "Dec 3 09:10"},
		{"2026-03-03T08:10:00+01:00", "Mar 3 08:10"},
		{"2025-12-31T23:10:00Z", "Jan 1 00:10"}, // this year in the clock's zone
		{"2025-12-31T22:10:00Z", "2025-12-31 23:10"},
		{"2025-12-03T08:10:00Z", "2025-12-03 09:10"},
		{"not a time", "not a time"},
	} {
		if got := reviewTime(c.base, now); got != c.want {
			t.Errorf("reviewTime(%q) = %q, want %q", c.base, got, c.want)
		}
	}
}

// TestGoldenReview: d opens the review pane over the list; with its
// sections and a diff in, it shows the files grouped by folder with their
// counts, the binary file and the mtime folder's file named with the time
// it counts from (local, "09:10 today"), and the selected file's diff. The
// pane covers the screen above the help line: nothing of the boxes under
// it shows at its edges.
func TestGoldenReview(t *testing.T) {
	entries := []sessions.Entry{
		{ID: "k3x9q2", Meta: &sessions.Meta{ID: "k3x9q2", Name: "fix the parser", Harness: "claude", Cwd: "/nonexistent/src/app",
			AdditionalDirectories: []string{"/nonexistent/lib", "/nonexistent/notes"}}},
	}
	m := goldenModel(t, entries, newFakeMux(nil))
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("d")})
	// The fake server, which has no store, refuses the review first; the
	// sections below are the answer it did not give.
	waitScreen(t, tm, "the fake server has no chat store")
	const owner = 2 // the first dialog the model opens
	tm.Send(reviewComputedMsg{owner: owner, sections: []proto.ReviewSection{
		{Folder: "/nonexistent/src/app", Kind: proto.ReviewGit, Base: "0123456789abcdef0123456789abcdef01234567", Files: []proto.ReviewFile{
			{Path: "parser.go", Status: proto.ReviewModified, Added: 2, Deleted: 1},
			{Path: "logo.png", Status: proto.ReviewUntracked, Binary: true},
		}},
		{Folder: "/nonexistent/lib", Kind: proto.ReviewGit, Base: "89abcdef0123456789abcdef0123456789abcdef", Files: []proto.ReviewFile{
			{Path: "lex.go", Status: proto.ReviewAdded, Added: 10},
		}},
		{Folder: "/nonexistent/notes", Kind: proto.ReviewMtime, Base: "2026-12-01T09:10:00Z", Note: "not a git repository: files modified since, not diffed",
			Files: []proto.ReviewFile{{Path: "todo.md", Status: proto.ReviewModified}}},
	}})
	// Its diff is asked of git in a folder that does not exist: wait for
	// that failure, then the diff below replaces it.
	waitScreen(t, tm, "diff parser.go")
	tm.Send(reviewDiffMsg{owner: owner, gen: 1, diff: proto.ReviewDiff{Path: "parser.go",
		Text: "diff --git a/parser.go b/parser.go\n--- a/parser.go\n+++ b/parser.go\n@@ -1,3 +1,4 @@\n package parser\n-func Parse() {}\n+func Parse() error {\n+\treturn nil\n+}\n"}})
	waitScreen(t, tm, "return nil")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	view := final.View()
	lines := strings.Split(view, "\n")
	for i, l := range lines[:len(lines)-1] { // all but the help line
		first, last := []rune(l)[0], []rune(l)[len([]rune(l))-1]
		if !strings.ContainsRune("╭│╰", first) || !strings.ContainsRune("╮│╯", last) || i == 0 && !strings.HasPrefix(l, "╭─ review") {
			t.Fatalf("line %d is not the review pane's edge to edge: %q", i, l)
		}
		if strings.Contains(l, "│▌") || strings.Count(l, "│") > 2 {
			t.Fatalf("line %d shows a piece of a box under the pane: %q", i, l)
		}
	}
	teatest.RequireEqualOutput(t, []byte(view))
}

// TestReviewRuleNamesTheFileShown: the rule above the diff names the file
// shown, a long path cut at its start so its name stays; with no file to
// show it is a plain rule, not one with an empty name's gap.
func TestReviewRuleNamesTheFileShown(t *testing.T) {
	c := plainCommon()
	meta := &sessions.Meta{ID: "k3x9q2", Name: "fix", Harness: "shell", Cwd: "/nonexistent/app"}
	rule := func(files []proto.ReviewFile) string {
		t.Helper()
		d := NewReviewDialog(c, 7, newFakeMux(nil), meta)
		d.SetSize(60, 20)
		d.Update(reviewComputedMsg{owner: 7, sections: []proto.ReviewSection{{Folder: "/nonexistent/app", Kind: proto.ReviewGit, Files: files}}})
		for _, l := range d.View() {
			if inner := strings.Trim(l, "│ "); strings.HasPrefix(l, "│") && strings.HasPrefix(inner, "──") {
				return inner
			}
		}
		t.Fatalf("no rule in the pane:\n%s", strings.Join(d.View(), "\n"))
		return ""
	}
	if got := rule(nil); strings.Trim(got, "─") != "" {
		t.Errorf("with no file, the rule is %q, want a plain rule", got)
	}
	deep := "internal/a/rather/long/way/down/to/where/the/code/lives/parser.go"
	if got := rule([]proto.ReviewFile{{Path: deep, Status: proto.ReviewModified, Added: 1}}); !strings.HasPrefix(got, "── …") || !strings.Contains(got, "/lives/parser.go ─") {
		t.Errorf("with %s, the rule is %q, want its end, cut at its start", deep, got)
	}
}
