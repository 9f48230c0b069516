package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// TestSummaryFilesViaBeforeFirstStart: a chat whose files have never gone
// to its harness shows the way the harness table expects them to go, as
// the server's view tells it, whether the list came from the server or
// from the chat files; once a start recorded the way, that is shown.
func TestSummaryFilesViaBeforeFirstStart(t *testing.T) {
	r := newRig(t, nil)
	spec := r.file("spec.md")
	c := r.create(sessions.NewChat{Harness: "shell", AdditionalFiles: []string{spec}})
	shell, ok := r.table.Get("shell")
	if !ok {
		t.Fatal("the default table has no shell harness")
	}
	expected, isExpectation := shell.ChatFilesVia(&sessions.Meta{AdditionalFiles: []string{spec}})
	if !isExpectation || expected == "" {
		t.Fatalf("shell's expectation for one file: %q %v", expected, isExpectation)
	}
	r.open(Options{})
	if view, want := r.m.View(), "↳ via "+sessions.FilesViaWords(expected); !strings.Contains(view, want) {
		t.Fatalf("summary lacks %q before the first start:\n%s", want, view)
	}
	if _, err := r.store.Update(c.ID, func(m *sessions.Meta) error { m.FilesVia = "acp"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	if view, want := r.m.View(), "↳ via "+sessions.FilesViaWords("acp"); !strings.Contains(view, want) {
		t.Fatalf("summary lacks the recorded way %q:\n%s", want, view)
	}
}
