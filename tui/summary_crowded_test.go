package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestSummaryShowsAFolderWhenTheyDoNotFit: a summary with room for one
// folder line and several folders shows the first of them and how many
// more, not a count alone; a missing one comes first, flagged with how
// many are missing and the key that removes them. With room for two, the
// second line is the count; a second folder line comes before the
// command line.
func TestSummaryShowsAFolderWhenTheyDoNotFit(t *testing.T) {
	c := plainCommon()
	dirs := []string{"/src/lib", "/notes", "/gone"}
	meta := &sessions.Meta{Version: 1, ID: "k3x9q2", Name: "fix", Harness: "shell", Cwd: "/src/app", AdditionalDirectories: dirs}
	summary := func(h int, problems []proto.FolderProblem) []string {
		t.Helper()
		s := NewSummary(c)
		s.SetSize(80, h)
		s.Set(ChatInfo{Entry: sessions.Entry{ID: meta.ID, Meta: meta}, State: proto.State{Status: proto.StatusStopped}, Problems: problems}, true, time.Now())
		return folderRows(s)
	}
	// The title, cwd and process lines, and one for the folders.
	rows := summary(4, nil)
	if len(rows) != 1 || !strings.Contains(rows[0], "/src/lib") || !strings.Contains(rows[0], "… 2 more") {
		t.Errorf("one folder line: %q, want /src/lib and … 2 more", rows)
	}
	rows = summary(4, []proto.FolderProblem{{Index: 2, Reason: "does not exist"}})
	removeKey := c.Keys.RemoveMissing.Help().Key
	if len(rows) != 1 || !strings.Contains(rows[0], "/gone") || !strings.Contains(rows[0], "… 2 more (1 missing: "+removeKey+" removes them)") {
		t.Errorf("one folder line, one missing: %q, want /gone first and the count of missing", rows)
	}
	rows = summary(5, nil)
	if len(rows) != 2 || !strings.Contains(rows[0], "/src/lib") || strings.Contains(rows[0], "more") || !strings.Contains(rows[1], "… 2 more") {
		t.Errorf("two folder lines: %q, want /src/lib, then … 2 more", rows)
	}

	// A running chat with a session line and a command line: its second
	// folder line comes before its command.
	s := NewSummary(c)
	s.SetSize(80, 6)
	s.Set(ChatInfo{Entry: sessions.Entry{ID: meta.ID, Meta: meta}, StartsFresh: true,
		State: proto.State{Status: proto.StatusRunning, Pid: 42, Argv: []string{"/bin/bash"}}}, true, time.Now())
	view := strings.Join(s.View(), "\n")
	if rows := folderRows(s); len(rows) != 2 || !strings.Contains(view, "session") || strings.Contains(view, "/bin/bash") {
		t.Errorf("a running chat at 6 rows: folders %q; want two folder lines, the session line, no command:\n%s", rows, view)
	}
	s.SetSize(80, 7)
	if view := strings.Join(s.View(), "\n"); !strings.Contains(view, "/bin/bash") {
		t.Errorf("a running chat at 7 rows: want the command back:\n%s", view)
	}
}

// folderRows are the summary's lines that list the test's folders.
func folderRows(s *Summary) []string {
	var rows []string
	for _, l := range s.View() {
		if strings.Contains(l, "/src/lib") || strings.Contains(l, "/notes") || strings.Contains(l, "/gone") || strings.Contains(l, "more") {
			rows = append(rows, strings.TrimSpace(l))
		}
	}
	return rows
}

// TestSummaryCutsLongPathsAtTheirStart: a cwd, folder or file too long
// for the summary is cut at its start, so its end (the folder's or file's
// own name) shows; a chat with no project keeps its "no project · ".
func TestSummaryCutsLongPathsAtTheirStart(t *testing.T) {
	c := plainCommon()
	deep := "/home/someone/a/rather/long/way/down/to/the/projects"
	meta := &sessions.Meta{Version: 1, ID: "k3x9q2", Name: "fix", Harness: "shell", Cwd: deep + "/app",
		AdditionalDirectories: []string{deep + "/lib"}, AdditionalFiles: []string{deep + "/notes.md"}}
	for _, noProject := range []bool{false, true} {
		s := NewSummary(c)
		s.SetSize(50, 12)
		s.Set(ChatInfo{Entry: sessions.Entry{ID: meta.ID, Meta: meta}, NoProject: noProject, State: proto.State{Status: proto.StatusStopped}}, true, time.Now())
		view := strings.Join(s.View(), "\n")
		for _, end := range []string{"…", "/projects/app", "/projects/lib", "/projects/notes.md"} {
			if !strings.Contains(view, end) {
				t.Errorf("no project %v: the summary lacks %q:\n%s", noProject, end, view)
			}
		}
		if strings.Contains(view, "/home/someone") {
			t.Errorf("no project %v: a long path kept its start:\n%s", noProject, view)
		}
		if noProject && !strings.Contains(view, "no project · …") {
			t.Errorf("a chat with no project lost its words:\n%s", view)
		}
	}
}
