package tui

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// View draws the picker's box.
func (p *FolderPicker) View() []string {
	st := p.c.Styles
	iw := p.w - 4 // inner width with a column of padding each side
	var top, bottom []string
	label := "folder   "
	if p.pickFiles {
		label = "file     "
	}
	top = append(top, st.Dim.Render(label)+p.path.View())
	top = append(top, st.Dim.Render(strings.Repeat("─", iw)))

	toggle := p.c.Keys.PickFiles.Help().Key
	mode := st.Bold.Render("folders") + st.Dim.Render(" · "+toggle+" picks files")
	switch {
	case p.foldersOnly:
		mode = st.Bold.Render("folders")
	case p.pickFiles:
		mode = st.Bold.Render("files") + st.Dim.Render(" · "+toggle+" picks folders")
	}
	chosen := st.Dim.Render("none yet")
	if len(p.chosen) > 0 {
		chosen = truncPlain(strings.Join(p.chosen, " · "), iw-9)
	}
	bottom = append(bottom, st.Dim.Render(strings.Repeat("─", iw)))
	bottom = append(bottom, st.Dim.Render("adds     ")+mode)
	bottom = append(bottom, st.Dim.Render("selected ")+chosen)
	if len(p.chosenFiles) > 0 {
		bottom = append(bottom, st.Dim.Render("files    ")+truncPlain(strings.Join(p.chosenFiles, " · "), iw-9))
	}
	if drop := append(slices.Clone(p.drop), p.dropFiles...); len(drop) > 0 {
		bottom = append(bottom, st.Dim.Render("take out ")+st.Warn.Render(truncPlain(strings.Join(drop, " · "), iw-9)))
	}
	if p.errText != "" {
		bottom = append(bottom, errorLines(st, p.errText, iw)...)
	} else if p.busy {
		bottom = append(bottom, st.Dim.Render("checking…"))
	}
	accept, cancel := st.Button.Render("[ accept ]"), st.Button.Render("[ cancel ]")
	if p.focus == pickAccept {
		accept = st.ButtonFocused.Render("[ accept ]")
	}
	if p.focus == pickCancel {
		cancel = st.ButtonFocused.Render("[ cancel ]")
	}
	bottom = append(bottom, accept+" "+cancel)

	listH := max(p.h-2-len(top)-len(bottom), 1)
	list := p.listLines(iw, listH)
	for len(list) < listH {
		list = append(list, "")
	}
	lines := make([]string, 0, p.h)
	for _, l := range append(append(top, list...), bottom...) {
		lines = append(lines, " "+l)
	}
	return st.Box(p.title, lines, p.w, len(lines)+2, true)
}

// listLines draws the subfolders of the typed folder, then its files, a
// window of n rows around the highlighted one. Files are dimmed while a
// pick adds folders.
func (p *FolderPicker) listLines(w, n int) []string {
	st := p.c.Styles
	matches := p.path.Matches()
	var out []string
	switch {
	case !p.path.Absolute():
		return []string{st.Dim.Render("type an absolute path (starting with / or ~) to browse")}
	case p.path.Pending():
		return []string{st.Dim.Render("reading…")}
	case p.path.ListErr() != nil:
		return []string{st.Warn.Render(truncPlain("cannot list: "+p.path.ListErr().Error(), w))}
	case len(matches) == 0:
		return []string{st.Dim.Render("no subfolders or files here")}
	}
	off := 0
	if p.cur >= n {
		off = p.cur - n + 1
	}
	for i := off; i < len(matches) && i < off+n; i++ {
		full := filepath.Join(p.path.Folder(), matches[i])
		isFile := p.path.IsFile(matches[i])
		box, note := p.mark(full, isFile)
		text := box + " " + matches[i]
		if !isFile {
			text += "/"
		}
		switch {
		case i == p.cur && p.focus == pickList:
			out = append(out, st.SelectedName.Render("› "+fitPlain(text+note, w-2)))
		case isFile && !p.pickFiles:
			out = append(out, st.Dim.Render("  "+truncPlain(text+note, w-2)))
		default:
			out = append(out, "  "+truncPlain(text, w-2)+st.Dim.Render(truncPlain(note, max(w-2-ansi.StringWidth(text), 0))))
		}
	}
	return out
}

// mark is an entry's box and note: taken out, the chat's already, the
// chat's own folder, or selected.
func (p *FolderPicker) mark(full string, isFile bool) (box, note string) {
	already, drop, chosen, what := p.already, p.drop, p.chosen, "folder"
	if isFile {
		already, drop, chosen, what = p.alreadyFiles, p.dropFiles, p.chosenFiles, "file"
	}
	switch {
	case slices.Contains(drop, full):
		return "[−]", "  taken out on accept"
	case slices.Contains(already, full) && p.chatID != "":
		return "[✓]", "  already a " + what + " · space takes it out"
	case slices.Contains(already, full):
		return "[✓]", "  already a " + what
	case !isFile && p.cwd != "" && full == filepath.Clean(p.cwd):
		return "[-]", "  the chat's own folder"
	case slices.Contains(chosen, full):
		return "[x]", ""
	}
	return "[ ]", ""
}
