package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestReviewThroughTheServer: the server reviews a chat where its folders
// are: its repository against the baseline its first start recorded (a
// file committed since, one changed and one untracked), and an added
// folder that is no repository by mtime; a file's diff comes from the same
// server; another side is asked by ref.
func TestReviewThroughTheServer(t *testing.T) {
	repo, git := serverGitRepo(t)
	notes, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, rigOpt{})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{Cwd: repo, AdditionalDirectories: []string{notes}}}, &c)
	r.waitRecords(1)
	waitFor(t, "the chat's baseline", func() bool {
		m, err := r.store.Load(c.ID)
		return err == nil && m.Baseline != nil
	})
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, "b.txt"), "b\n")
	git(repo, "add", "b.txt")
	git(repo, "commit", "-q", "-m", "second")
	write(filepath.Join(repo, "a.txt"), "a\nmore\n")
	write(filepath.Join(repo, "new.txt"), "fresh\n")
	write(filepath.Join(notes, "todo.md"), "- review\n")

	var res proto.ReviewResult
	w.ok(proto.MethodReview, proto.ReviewParams{ID: c.ID}, &res)
	if len(res.Sections) != 2 {
		t.Fatalf("%d sections, want the repository and the notes: %+v", len(res.Sections), res.Sections)
	}
	own, other := res.Sections[0], res.Sections[1]
	if got := filesOf(own); own.Folder != repo || own.Kind != proto.ReviewGit || got != "a.txt:modified b.txt:added new.txt:untracked" {
		t.Fatalf("the chat's folder: %s %s %q", own.Folder, own.Kind, got)
	}
	if got := filesOf(other); other.Folder != notes || other.Kind != proto.ReviewMtime || got != "todo.md:modified" {
		t.Fatalf("the added folder: %s %s %q", other.Folder, other.Kind, got)
	}

	var d proto.ReviewDiff
	w.ok(proto.MethodReviewDiff, diffParams(c.ID, own, "a.txt"), &d)
	if !strings.Contains(d.Text, "+more") || d.Path != "a.txt" {
		t.Fatalf("a.txt's diff: %+v", d)
	}
	w.ok(proto.MethodReviewDiff, diffParams(c.ID, own, "new.txt"), &d)
	if !strings.Contains(d.Text, "+fresh") {
		t.Fatalf("the untracked file's diff: %+v", d)
	}
	w.ok(proto.MethodReviewDiff, diffParams(c.ID, other, "todo.md"), &d)
	if !d.NotDiffed || d.Text != "" {
		t.Fatalf("a file of the mtime folder: %+v", d)
	}

	// Against HEAD, the commit made since drops out.
	w.ok(proto.MethodReview, proto.ReviewParams{ID: c.ID, Ref: "HEAD"}, &res)
	if got := filesOf(res.Sections[0]); got != "a.txt:modified new.txt:untracked" {
		t.Fatalf("against HEAD: %q", got)
	}
}

// TestReviewRefusals: a review or a diff the server cannot make, or that
// is not about the chat's folders, is refused with what is wrong, and git
// is never given an option where a commit or a path goes.
func TestReviewRefusals(t *testing.T) {
	repo, _ := serverGitRepo(t)
	r := newRig(t, rigOpt{})
	m, err := r.store.Create(sessions.NewChat{Harness: "shell", Cwd: repo})
	if err != nil {
		t.Fatal(err)
	}
	w := r.dial()
	var res proto.ReviewResult
	w.ok(proto.MethodReview, proto.ReviewParams{ID: m.ID}, &res)
	own := res.Sections[0]
	if own.Kind != proto.ReviewGit || !strings.Contains(own.Note, "has not started") {
		t.Fatalf("a chat not started yet: %+v", own)
	}

	for _, tc := range []struct {
		name string
		code int
		p    any
		want string
	}{
		{"no id", proto.CodeInvalidParams, proto.ReviewParams{}, "id is required"},
		{"no such chat", proto.CodeChatNotFound, proto.ReviewParams{ID: "zzzzzz"}, "zzzzzz"},
		{"two sides", proto.CodeInvalidParams, proto.ReviewParams{ID: m.ID, Ref: "HEAD", Parent: true}, "give one"},
		{"a ref that is not there", proto.CodeFailed, proto.ReviewParams{ID: m.ID, Ref: "no-such-branch"}, "no-such-branch"},
		{"a ref that is an option", proto.CodeFailed, proto.ReviewParams{ID: m.ID, Ref: "--output=/tmp/x"}, "does not start with -"},
		{"no parent", proto.CodeFailed, proto.ReviewParams{ID: m.ID, Parent: true}, "no parent"},
	} {
		t.Run("review: "+tc.name, func(t *testing.T) {
			if e := w.fails(tc.code, proto.MethodReview, tc.p); !strings.Contains(e.Message, tc.want) {
				t.Fatalf("message %q lacks %q", e.Message, tc.want)
			}
		})
	}

	ok := diffParams(m.ID, own, "a.txt")
	for _, tc := range []struct {
		name string
		edit func(p *proto.ReviewDiffParams)
		want string
	}{
		{"another folder", func(p *proto.ReviewDiffParams) { p.Folder = "/etc" }, "not a folder of chat"},
		{"a base that is an option", func(p *proto.ReviewDiffParams) { p.Base = "--output=/tmp/x" }, "not a commit id"},
		{"a short base", func(p *proto.ReviewDiffParams) { p.Base = "HEAD" }, "not a commit id"},
		{"a path outside", func(p *proto.ReviewDiffParams) { p.File.Path = "../../etc/passwd" }, "not a path inside"},
		{"an absolute path", func(p *proto.ReviewDiffParams) { p.File.Path = "/etc/passwd" }, "not a path inside"},
		{"a path that is an option", func(p *proto.ReviewDiffParams) { p.File.Path = "--output=x" }, "not a path inside"},
		{"an unknown kind", func(p *proto.ReviewDiffParams) { p.Kind = "svn" }, "kind must be"},
	} {
		t.Run("diff: "+tc.name, func(t *testing.T) {
			p := ok
			tc.edit(&p)
			if e := w.fails(proto.CodeInvalidParams, proto.MethodReviewDiff, p); !strings.Contains(e.Message, tc.want) {
				t.Fatalf("message %q lacks %q", e.Message, tc.want)
			}
		})
	}
}

// diffParams asks for file path of section s of chat id.
func diffParams(id string, s proto.ReviewSection, path string) proto.ReviewDiffParams {
	f := proto.ReviewFile{Path: path}
	for _, sf := range s.Files {
		if sf.Path == path {
			f = sf
		}
	}
	return proto.ReviewDiffParams{ID: id, Folder: s.Folder, Kind: s.Kind, Base: s.Base, File: f}
}

// filesOf is a section's files as "path:status", in order.
func filesOf(s proto.ReviewSection) string {
	var b []string
	for _, f := range s.Files {
		b = append(b, f.Path+":"+string(f.Status))
	}
	return strings.Join(b, " ")
}
