package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
)

// workMux is the fake server whose dry run of a removal reports rep.
type workMux struct {
	*fakeMux
	rep   proto.RemoveReport
	asked int
}

func (w *workMux) Remove(id string, force, dryRun bool) (proto.RemoveReport, error) {
	if !dryRun || force {
		panic("the export dialog removed a chat")
	}
	w.asked++
	return w.rep, nil
}

// runDialog runs cmd and what it leads to through the dialog.
func runDialog(d *ExportDialog, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			queue = append(queue, d.Update(msg))
		}
	}
}

// TestExportDialogSaysTheWorktreesWorkStaysBehind: for a worktree chat
// whose worktree holds an uncommitted file and an unpushed commit, the
// export dialog says, before anything is written, that the work stays
// behind and names it (not the other chats that run there); for a chat
// without a worktree it asks nothing.
func TestExportDialogSaysTheWorktreesWorkStaysBehind(t *testing.T) {
	c := plainCommon()
	mx := &workMux{fakeMux: newFakeMux(nil), rep: proto.RemoveReport{ID: "c1", Branch: "acpmux/wt-c1",
		WorktreeWork: []string{"?? notes.txt", "abc1234 add the parser", "chat zz9 runs in it"}}}
	d := NewExportDialog(c, mx, 7, "c1", "wt", t.TempDir(), t.TempDir()).ForWorktree()
	d.SetSize(120, 40)
	runDialog(d, d.Init())
	view := strings.Join(d.View(), "\n")
	for _, want := range []string{"the work in its git worktree stays behind (the bundle does not carry it), 2:",
		"?? notes.txt", "abc1234 add the parser", "push branch acpmux/wt-c1"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the export dialog lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "zz9") {
		t.Fatalf("the export dialog names another chat as work:\n%s", view)
	}

	plain := &workMux{fakeMux: newFakeMux(nil)}
	d = NewExportDialog(c, plain, 8, "c2", "plain", t.TempDir(), t.TempDir())
	d.SetSize(120, 40)
	runDialog(d, d.Init())
	if view := strings.Join(d.View(), "\n"); plain.asked != 0 || strings.Contains(view, "stays behind") {
		t.Fatalf("a chat without a worktree: asked %d times, dialog:\n%s", plain.asked, view)
	}
}
