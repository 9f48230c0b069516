package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
)

// This file is the export dialog (e): one path field, prefilled with
// <the TUI's folder>/<name slug>-<id>.acpmux.tgz; enter has the server
// write the selected chat's bundle there, and the status line says where
// it went, how big it is, how the conversation was carried and any notes.
// For a worktree chat whose worktree holds work (uncommitted changes,
// commits on no other branch: what rm finds), the dialog says first that
// the work stays behind, as `acpmux-tui export` warns: a bundle carries
// the chat and its conversation, not its worktree.

// keyExport writes the bundle to the path typed.
var keyExport = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "export"))

// bundleSuffix ends the name of every bundle file the TUI proposes.
const bundleSuffix = ".acpmux.tgz"

// maxSlug bounds the part of a bundle's file name made from the chat's
// name.
const maxSlug = 48

// chatExportedMsg is the result of an export: the server's report, or why
// it failed. owner tags the dialog that asked.
type chatExportedMsg struct {
	owner int
	id    string
	rep   proto.ExportReport
	err   error
}

// exportWorkMsg brings what a worktree chat's worktree holds that an
// export leaves behind (proto.RemoveReport's WorktreeWork, from a dry run
// of its removal). owner tags the dialog that asked.
type exportWorkMsg struct {
	owner  int
	branch string
	work   []string
}

// askExportWork asks the server, off the UI goroutine, what chat id's
// worktree holds that would stay behind; a failure to tell shows nothing
// (the export's report says it again).
func askExportWork(mx Mux, owner int, id string) tea.Cmd {
	return func() tea.Msg {
		rep, err := mx.Remove(id, false, true)
		if err != nil {
			return nil
		}
		var work []string
		for _, w := range rep.WorktreeWork {
			// Its other chats running in the worktree are not work.
			if !(strings.HasPrefix(w, "chat ") && strings.HasSuffix(w, " runs in it")) {
				work = append(work, w)
			}
		}
		return exportWorkMsg{owner: owner, branch: rep.Branch, work: work}
	}
}

// exportChat has the server write chat id's bundle to path, off the UI
// goroutine.
func exportChat(mx Mux, owner int, id, path string) tea.Cmd {
	return func() tea.Msg {
		rep, err := mx.Export(id, path)
		return chatExportedMsg{owner: owner, id: id, rep: rep, err: err}
	}
}

// nameSlug makes a chat's name fit for a file name: lower-case letters and
// digits, every other run of characters one "-", at most maxSlug bytes;
// "chat" when nothing is left.
func nameSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= maxSlug {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	if s == "" {
		return "chat"
	}
	return s
}

// defaultBundlePath is where an export goes unless the user types another
// path: the TUI's folder, the chat's name and id.
func defaultBundlePath(cwd, name, id string) string {
	return filepath.Join(cwd, nameSlug(name)+"-"+id+bundleSuffix)
}

// resolvePath makes a typed path absolute: "~" is the user's home, a
// relative path is taken from the TUI's folder.
func resolvePath(typed, cwd, home string) string {
	p := expandHome(strings.TrimSpace(typed), home)
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// ExportDialog asks where to write a chat's bundle.
type ExportDialog struct {
	c         *Common
	mux       Mux
	owner     int
	id, name  string
	cwd, home string
	path      *PathInput
	errText   string
	busy      bool
	w         int
	// worktree is set for a worktree chat: the dialog asks what its
	// worktree holds (work, on branch) as it opens.
	worktree bool
	branch   string
	work     []string
}

// NewExportDialog returns the dialog for chat id (named name); cwd is the
// TUI's folder, home what "~" means; owner tags its listings and result.
func NewExportDialog(c *Common, mx Mux, owner int, id, name, cwd, home string) *ExportDialog {
	p := NewPathInput(c, owner, home, defaultBundlePath(cwd, name, id))
	p.WithFiles()
	p.Focus()
	return &ExportDialog{c: c, mux: mx, owner: owner, id: id, name: name, cwd: cwd, home: home, path: p}
}

// ForWorktree marks the chat as a worktree chat: the dialog asks, as it
// opens, what work its worktree holds, and says that work stays behind.
func (d *ExportDialog) ForWorktree() *ExportDialog {
	d.worktree = true
	return d
}

// Init asks for the listing of the prefilled path's folder and, for a
// worktree chat, what its worktree holds.
func (d *ExportDialog) Init() tea.Cmd {
	if d.worktree {
		return tea.Batch(d.path.Sync(), askExportWork(d.mux, d.owner, d.id))
	}
	return d.path.Sync()
}

// ErrText returns the error shown inline, if any.
func (d *ExportDialog) ErrText() string { return d.errText }

// Value returns the path as typed.
func (d *ExportDialog) Value() string { return d.path.Value() }

// SetSize sets the screen size.
func (d *ExportDialog) SetSize(w, h int) {
	d.w = max(min(w-4, 96), minDialogW)
	d.path.SetWidth(d.w - 6)
}

// Update edits the path; enter exports, esc cancels. A failure stays in
// the box; a success closes it (the status line tells).
func (d *ExportDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case dirListedMsg:
		_, cmd := d.path.Listed(msg)
		return cmd
	case exportWorkMsg:
		if msg.owner == d.owner {
			d.branch, d.work = msg.branch, msg.work
		}
		return nil
	case chatExportedMsg:
		if msg.owner != d.owner {
			return nil
		}
		d.busy = false
		if msg.err != nil {
			d.errText = msg.err.Error()
			return nil
		}
		return closeDialog
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, keyCancel):
			return closeDialog
		case key.Matches(msg, keyComplete):
			return d.path.Complete()
		case key.Matches(msg, keyExport):
			if d.busy {
				return nil
			}
			path := resolvePath(d.path.Value(), d.cwd, d.home)
			if path == "" {
				d.errText = "type the file to write the bundle to"
				return nil
			}
			d.busy, d.errText = true, ""
			return exportChat(d.mux, d.owner, d.id, path)
		}
		d.errText = ""
		return d.path.Update(msg)
	}
	return nil
}

// ShortHelp returns the dialog's keys.
func (d *ExportDialog) ShortHelp() []key.Binding {
	return []key.Binding{keyComplete, keyExport, keyCancel}
}

// View draws the path field and any error.
func (d *ExportDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	lines := []string{"",
		" " + st.Dim.Render(truncPlain(fmt.Sprintf("write %q (%s) to the bundle file:", d.name, d.id), iw-1)),
		"", " " + d.path.View()}
	lines = append(lines, d.workLines(iw-1)...)
	switch {
	case d.errText != "":
		lines = append(lines, "")
		for _, l := range errorLines(st, d.errText, iw-1) {
			lines = append(lines, " "+l)
		}
	case d.busy:
		lines = append(lines, "", " "+st.Dim.Render("exporting…"))
	default:
		lines = append(lines, "", " "+st.Dim.Render(truncPlain("a relative path is taken from "+d.cwd, iw-1)))
	}
	lines = append(lines, "")
	return st.Box("export chat", lines, d.w, len(lines)+2, true)
}

// maxExportWork bounds the changes and commits the dialog names.
const maxExportWork = 4

// workLines say, when the chat's worktree holds work, that it stays
// behind, naming the first of it; none otherwise.
func (d *ExportDialog) workLines(w int) []string {
	if len(d.work) == 0 {
		return nil
	}
	st := d.c.Styles
	lines := []string{"", " " + st.Warn.Render(truncPlain(fmt.Sprintf("⚠ the work in its git worktree stays behind (the bundle does not carry it), %d:", len(d.work)), w))}
	for i, item := range d.work {
		if i == maxExportWork {
			lines = append(lines, " "+st.Dim.Render(fmt.Sprintf("  … %d more", len(d.work)-i)))
			break
		}
		lines = append(lines, " "+st.Dim.Render(truncPlain("  "+item, w)))
	}
	return append(lines, " "+st.Dim.Render(truncPlain("commit it and push branch "+d.branch+" to reach it from elsewhere", w)))
}

// exported shows the result of an export: in the dialog when it failed
// (the status line too once the dialog has gone), in the status line when
// it is written.
func (m *Model) exported(msg chatExportedMsg) tea.Cmd {
	var cmd tea.Cmd
	if m.dialog != nil {
		cmd = m.dialog.Update(msg)
	}
	if msg.err != nil {
		if _, open := m.dialog.(*ExportDialog); !open {
			m.fail("export", msg.err)
		}
		return cmd
	}
	text := exportSummary(msg.rep, m.opt.Cwd)
	if len(msg.rep.Notes) > 0 {
		m.setWarning(text)
	} else {
		m.setStatus(text, false)
	}
	return cmd
}

// exportSummary is the status line's account of a bundle written: how big
// it is, how the conversation travels and the notes first, as a narrow
// status line cuts the end, then where it went (relative to the TUI's
// folder cwd when inside it).
func exportSummary(rep proto.ExportReport, cwd string) string {
	conv := rep.Conversation + " conversation"
	switch rep.Conversation {
	case "", "none":
		conv = "no conversation"
	}
	if rep.Source != "" {
		conv += " (" + rep.Source + ")"
	}
	text := fmt.Sprintf("exported %s: %s, %s", rep.Name, byteSize(rep.Bytes), conv)
	if len(rep.Notes) > 0 {
		text += "; " + strings.Join(rep.Notes, "; ")
	}
	where := rep.Path
	if rel, err := filepath.Rel(cwd, rep.Path); err == nil && cwd != "" && filepath.IsAbs(rep.Path) && !strings.HasPrefix(rel, "..") {
		where = rel
	}
	return text + " → " + where
}

// byteSize writes n bytes for a person: B, KiB, MiB or GiB, one decimal.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB"} {
		if f < unit {
			break
		}
		f, suffix = f/unit, s
	}
	return fmt.Sprintf("%.1f %s", f, suffix)
}
