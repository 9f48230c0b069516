package tui

import (
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// This file is the import dialog (i). It asks for the bundle file (a path
// field that completes files), then pushes the folder picker for the roots
// the chat's folders must be inside, then has the server check the bundle
// with a dry run, which writes nothing, and shows the guard's report: what
// it keeps and drops, and why, the chat's folder, how the conversation
// comes over. Only enter on that report imports; esc leaves nothing
// written. A refusal (a cwd outside the roots, a bad bundle) shows in the
// box with the server's words.

// The steps of the import dialog.
const (
	importFile     = iota // typing the bundle's path
	importChecking        // the dry run is under way
	importReport          // the dry run's report is shown
	importRefused         // the server refused the bundle
	importWriting         // the real import is under way
)

var (
	keyImportRoots = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose roots"))
	keyImportDo    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "import"))
	keyImportBack  = key.NewBinding(key.WithKeys("shift+tab", "backspace"), key.WithHelp("shift+tab", "back"))
)

// maxReportRows bounds the rows listed of each of the report's lists; the
// rest are counted.
const maxReportRows = 8

// bundleImportedMsg is the result of a dry run or an import: the server's
// report, or its refusal. owner tags the dialog that asked.
type bundleImportedMsg struct {
	owner  int
	dryRun bool
	rep    proto.ImportReport
	err    error
}

// importBundle asks the server to import the bundle at path under roots
// (or, with dryRun, to say what it would do), off the UI goroutine.
func importBundle(mx Mux, owner int, path string, roots []string, dryRun bool) tea.Cmd {
	roots = append([]string(nil), roots...)
	return func() tea.Msg {
		rep, err := mx.Import(path, roots, dryRun)
		return bundleImportedMsg{owner: owner, dryRun: dryRun, rep: rep, err: err}
	}
}

// ImportDialog imports a chat from a bundle, showing the guard's report
// before anything is written.
type ImportDialog struct {
	c         *Common
	mux       Mux
	owner     int // its listings; owner+1 tags the pushed picker
	cwd, home string
	path      *PathInput
	bundle    string   // the absolute path checked
	roots     []string // the roots chosen
	step      int
	rep       proto.ImportReport
	errText   string
	sw, sh, w int
}

// NewImportDialog returns the dialog; cwd is the TUI's folder (a relative
// path is taken from it, and the picker starts there), home what "~" means.
func NewImportDialog(c *Common, mx Mux, owner int, cwd, home string) *ImportDialog {
	start := cwd
	if start != "" && !strings.HasSuffix(start, "/") {
		start += "/"
	}
	p := NewPathInput(c, owner, home, start)
	p.WithFiles()
	p.input.Placeholder = "the bundle file (.acpmux.tgz)"
	p.Focus()
	return &ImportDialog{c: c, mux: mx, owner: owner, cwd: cwd, home: home, path: p}
}

// Init asks for the listing of the folder typed.
func (d *ImportDialog) Init() tea.Cmd { return d.path.Sync() }

// ErrText returns the refusal or error shown, if any.
func (d *ImportDialog) ErrText() string { return d.errText }

// Report returns the report shown (the dry run's), and whether one is.
func (d *ImportDialog) Report() (proto.ImportReport, bool) {
	return d.rep, d.step == importReport || d.step == importWriting
}

// Roots returns the roots chosen.
func (d *ImportDialog) Roots() []string { return d.roots }

// SetSize sets the screen size.
func (d *ImportDialog) SetSize(w, h int) {
	d.sw, d.sh = w, h
	d.w = max(min(w-4, 96), minDialogW)
	d.path.SetWidth(d.w - 14)
}

// Update runs the steps: the file, the roots (the pushed picker answers
// with pickerDoneMsg or pickerCancelledMsg), the dry run's report, the
// import.
func (d *ImportDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case dirListedMsg:
		_, cmd := d.path.Listed(msg)
		return cmd
	case pickerDoneMsg:
		if msg.owner != d.owner+1 {
			return nil
		}
		if len(msg.folders) == 0 {
			d.errText = "no root chosen: select one or more folders with space (or type one and press enter), then accept"
			return nil
		}
		d.roots = msg.folders
		d.step, d.errText = importChecking, ""
		return importBundle(d.mux, d.owner, d.bundle, d.roots, true)
	case pickerCancelledMsg:
		return nil // back at the file
	case bundleImportedMsg:
		if msg.owner != d.owner {
			return nil
		}
		if msg.err != nil {
			d.step, d.errText = importRefused, msg.err.Error()
			return nil
		}
		if msg.dryRun {
			d.step, d.rep = importReport, msg.rep
			return nil
		}
		return closeDialog
	case tea.KeyMsg:
		return d.key(msg)
	}
	return nil
}

func (d *ImportDialog) key(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, keyCancel) {
		return closeDialog
	}
	switch d.step {
	case importFile:
		switch {
		case key.Matches(msg, keyComplete):
			return d.path.Complete()
		case key.Matches(msg, keyImportRoots):
			return d.chooseRoots()
		}
		d.errText = ""
		return d.path.Update(msg)
	case importReport:
		switch {
		case key.Matches(msg, keyImportDo):
			d.step = importWriting
			return importBundle(d.mux, d.owner, d.bundle, d.roots, false)
		case key.Matches(msg, keyImportBack):
			d.back()
		}
	case importRefused:
		if key.Matches(msg, keyImportBack) || key.Matches(msg, keyEnterKey) {
			d.back()
		}
	}
	return nil
}

// back returns to the file, keeping what was typed and the roots.
func (d *ImportDialog) back() {
	d.step, d.errText = importFile, ""
	d.path.Focus()
}

// chooseRoots takes the typed file and pushes the folder picker for the
// roots, starting at the TUI's folder with the roots chosen before.
func (d *ImportDialog) chooseRoots() tea.Cmd {
	path := resolvePath(d.path.Value(), d.cwd, d.home)
	if path == "" || strings.HasSuffix(d.path.Value(), "/") {
		d.errText = "type the bundle file to import (tab completes)"
		return nil
	}
	d.bundle, d.errText = path, ""
	start := d.cwd
	if start == "" {
		start = d.home
	}
	p := NewFolderPicker(d.c, d.owner+1, "roots: the chat's folders must be inside one", d.mux, "", "", d.home, start, d.roots, nil).FoldersOnly()
	return pushDialog(p)
}

// ShortHelp returns the keys of the step.
func (d *ImportDialog) ShortHelp() []key.Binding {
	switch d.step {
	case importFile:
		return []key.Binding{keyComplete, keyImportRoots, keyCancel}
	case importReport:
		return []key.Binding{keyImportDo, keyImportBack, keyCancel}
	case importRefused:
		return []key.Binding{keyImportBack, keyCancel}
	}
	return []key.Binding{keyCancel}
}

// View draws the step: the file field, or the report.
func (d *ImportDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	label := func(text string) string { return st.Dim.Render(fitPlain(text, 10)) }
	var lines []string
	if d.step == importFile {
		lines = append(lines, "", label("bundle")+d.path.View())
		if hint := d.matchHint(iw - 10); hint != "" {
			lines = append(lines, label("")+st.Dim.Render(hint))
		}
		if len(d.roots) > 0 {
			lines = append(lines, label("roots")+truncPlain(strings.Join(d.roots, " · "), iw-10))
		}
		lines = append(lines, "")
		if d.errText != "" {
			lines = append(lines, errorLines(st, ansi.Wrap(d.errText, iw-2, " "), iw)...)
		} else {
			lines = append(lines, st.Dim.Render(truncPlain("enter chooses the roots: the chat's folders are kept only inside them", iw)))
		}
		lines = append(lines, "")
		return d.box(lines)
	}
	lines = append(lines, "", label("bundle")+truncPathLeft(d.bundle, iw-10), label("roots")+truncPlain(strings.Join(d.roots, " · "), iw-10), "")
	switch d.step {
	case importChecking:
		lines = append(lines, st.Dim.Render("checking the bundle (nothing is written)…"), "")
		return d.box(lines)
	case importRefused:
		lines = append(lines, errorLines(st, ansi.Wrap(d.errText, iw-2, " "), iw)...)
		lines = append(lines, "", st.Dim.Render(truncPlain("nothing was written; shift+tab goes back to the file and roots", iw)), "")
		return d.box(lines)
	}
	lines = append(lines, d.reportLines(iw)...)
	lines = append(lines, "")
	if d.step == importWriting {
		lines = append(lines, st.Dim.Render("importing…"))
	} else {
		lines = append(lines, st.HelpKey.Render("enter")+st.Dim.Render(" import   ")+st.HelpKey.Render("esc")+st.Dim.Render(" cancel: nothing is written"))
	}
	lines = append(lines, "")
	return d.box(lines)
}

// matchHint lists what tab would complete to, bundles and folders first
// among the names the typed folder holds, in at most w cells.
func (d *ImportDialog) matchHint(w int) string {
	matches := d.path.Matches()
	if len(matches) == 0 {
		return ""
	}
	var bundles, dirs, others []string
	for _, n := range matches {
		switch {
		case !d.path.IsFile(n):
			dirs = append(dirs, n+"/")
		case strings.HasSuffix(n, bundleSuffix) || strings.HasSuffix(n, ".tgz") || strings.HasSuffix(n, ".tar.gz"):
			bundles = append(bundles, n)
		default:
			others = append(others, n)
		}
	}
	names := append(append(bundles, dirs...), others...)
	if len(names) > 12 {
		names = append(names[:12], fmt.Sprintf("… %d more", len(matches)-12))
	}
	return truncPlain(strings.Join(names, "  "), w)
}

// box frames the lines, cut to the screen's height.
func (d *ImportDialog) box(lines []string) []string {
	if limit := max(d.sh-4, 6); len(lines) > limit {
		lines = append(lines[:limit-1], d.c.Styles.Dim.Render("…"))
	}
	for i, l := range lines {
		lines[i] = " " + l
	}
	return d.c.Styles.Box("import chat", lines, d.w, len(lines)+2, true)
}

// reportLines draws the guard's report: the chat, its folder, the folders
// and files kept and dropped with the reasons, the conversation, the notes.
func (d *ImportDialog) reportLines(iw int) []string {
	st := d.c.Styles
	rep := d.rep
	label := func(text string) string { return st.Dim.Render(fitPlain(text, 10)) }
	pad := strings.Repeat(" ", 10)
	kept := func(p string) string { return st.Accent.Render("✓ ") + truncPlain(p, iw-12) }
	dropped := func(dr proto.Dropped) string {
		return st.Warn.Render("✗ ") + truncPlain(dr.Path+" — "+dr.Reason, iw-12)
	}
	var out []string
	from := ""
	if rep.Parent != "" {
		from = " · from " + rep.Parent
	}
	host := ""
	if rep.Host != "" {
		host = " · into " + rep.Host
	}
	out = append(out, label("chat")+truncPlain(fmt.Sprintf("%q · %s%s%s", rep.Name, rep.Harness, from, host), iw-10))
	if rep.CwdFresh {
		out = append(out, label("folder")+st.Accent.Render("✓ ")+truncPlain("a fresh folder of its own (it had no project)", iw-12))
	} else {
		out = append(out, label("folder")+kept(rep.Cwd))
	}
	out = append(out, d.listLines("folders", rep.Kept, rep.Dropped, label, pad, kept, dropped)...)
	out = append(out, d.listLines("files", rep.KeptFiles, rep.DroppedFiles, label, pad, kept, dropped)...)
	conv := rep.Conversation
	if rep.How != "" {
		conv += ": " + rep.How
	}
	for i, l := range strings.Split(ansi.Wrap(plainOneLine(conv), iw-10, " "), "\n") {
		lead := pad
		if i == 0 {
			lead = label("history")
		}
		out = append(out, lead+l)
	}
	for i, n := range rep.Notes {
		lead := pad
		if i == 0 {
			lead = label("notes")
		}
		out = append(out, lead+st.Warn.Render("! ")+truncPlain(n, iw-12))
	}
	return out
}

// listLines draws one of the report's lists (folders or files): each kept
// one, then each dropped one with its reason, at most maxReportRows, or
// "none".
func (d *ImportDialog) listLines(name string, kept []string, dropped []proto.Dropped, label func(string) string, pad string,
	keptLine func(string) string, droppedLine func(proto.Dropped) string) []string {
	// Only the rows shown are drawn: a crafted bundle may list thousands.
	total, shown := len(kept)+len(dropped), len(kept)+len(dropped)
	if total > maxReportRows {
		shown = maxReportRows - 1
	}
	rows := make([]string, 0, maxReportRows)
	for i := 0; i < shown; i++ {
		if i < len(kept) {
			rows = append(rows, keptLine(kept[i]))
		} else {
			rows = append(rows, droppedLine(dropped[i-len(kept)]))
		}
	}
	switch {
	case total == 0:
		rows = append(rows, d.c.Styles.Dim.Render("none"))
	case shown < total:
		rows = append(rows, d.c.Styles.Dim.Render(fmt.Sprintf("… and %d more", total-shown)))
	}
	for i := range rows {
		if i == 0 {
			rows[i] = label(name) + rows[i]
		} else {
			rows[i] = pad + rows[i]
		}
	}
	return rows
}

// conversationWords says how an imported chat's conversation came over.
func conversationWords(how string) string {
	switch how {
	case "exact":
		return "with its conversation as it was"
	case "capsule":
		return "its conversation as a capsule (its first message)"
	}
	return "without its conversation (the bundle had none this harness can take)"
}

// plainOneLine is text from the other side shown as one plain line.
func plainOneLine(s string) string { return truncPlain(s, len(s)+1) }

// imported shows the result of an import: a refusal in the dialog (the
// status line once the dialog has gone); a chat made in the status line,
// and it is selected as soon as the list holds it.
func (m *Model) imported(msg bundleImportedMsg) tea.Cmd {
	var cmd tea.Cmd
	if m.dialog != nil {
		cmd = m.dialog.Update(msg)
	}
	if msg.dryRun {
		return cmd // a check: it matters only to its dialog, if still open
	}
	if msg.err != nil {
		if _, open := m.dialog.(*ImportDialog); !open {
			m.fail("import", msg.err)
		}
		return cmd
	}
	rep := msg.rep
	text := fmt.Sprintf("✓ imported %s as %s, %s", rep.Name, rep.ID, conversationWords(rep.Conversation))
	var dropped []string
	if n := len(rep.Dropped); n > 0 {
		dropped = append(dropped, plural(n, "folder"))
	}
	if n := len(rep.DroppedFiles); n > 0 {
		dropped = append(dropped, plural(n, "file"))
	}
	if len(dropped) > 0 {
		text += ", " + strings.Join(dropped, " and ") + " dropped"
	}
	if len(rep.Dropped)+len(rep.DroppedFiles)+len(rep.Notes) > 0 {
		m.setWarning(text)
	} else {
		m.setStatus(text, false)
	}
	m.selectListed = rep.ID
	return tea.Batch(cmd, m.reloadList(rep.ID))
}
