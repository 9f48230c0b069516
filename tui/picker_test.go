package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// Tests of the folder picker and the new-chat dialog.

func TestPickerRefusesInlineAndStoresOnAccept(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	extra := r.dir("extra")
	r.open(Options{})
	before, _ := os.ReadFile(r.store.ChatPath(a.ID))
	r.key(runeKey('a'))
	p, ok := r.m.dialog.(*FolderPicker)
	if !ok {
		t.Fatalf("a opened %T", r.m.dialog)
	}
	r.key(keyOf(tea.KeyCtrlU))
	// Runes typed faster than one read arrive as one key; "end" must stay
	// text, not the end binding.
	r.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("end")})
	if !strings.Contains(p.path.Value(), "end") {
		t.Fatalf("quickly typed %q became %q", "end", p.path.Value())
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("rel/dir")
	r.key(keyEnter)
	if !strings.Contains(p.ErrText(), "-32602") || !strings.Contains(p.ErrText(), `[0] "rel/dir": not an absolute path`) {
		t.Fatalf("refusal not shown inline: %q", p.ErrText())
	}
	if !strings.Contains(r.m.View(), "invalid params (-32602)") {
		t.Errorf("refusal not on screen:\n%s", r.m.View())
	}
	if after, _ := os.ReadFile(r.store.ChatPath(a.ID)); string(after) != string(before) {
		t.Fatalf("a refusal changed the chat file:\n%s", after)
	}
	// Accept with nothing chosen stores nothing either.
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog == nil || !strings.Contains(p.ErrText(), "nothing selected") {
		t.Fatalf("empty accept: dialog %v err %q", r.m.dialog, p.ErrText())
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(extra)
	r.key(keyEnter)
	if p.ErrText() != "" || !slices.Equal(p.Chosen(), []string{extra}) {
		t.Fatalf("typed folder: err %q chosen %v", p.ErrText(), p.Chosen())
	}
	if after, _ := os.ReadFile(r.store.ChatPath(a.ID)); string(after) != string(before) {
		t.Fatal("choosing stored before accept")
	}
	// To the accept button with tab from the list, and enter.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyTab))
	if p.focus != pickAccept {
		t.Fatalf("focus %d, want the accept button", p.focus)
	}
	r.key(keyEnter)
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalDirectories, []string{extra}) {
		t.Fatalf("after accept: %v %v", m.AdditionalDirectories, err)
	}
	if r.m.dialog != nil || !strings.Contains(r.m.status, "1 folder added") {
		t.Errorf("after accept: dialog %v status %q", r.m.dialog, r.m.status)
	}
}

func TestPickerBrowsesAndCompletes(t *testing.T) {
	r := newRig(t, nil)
	r.dir("tree/alpha/inner")
	r.dir("tree/beta")
	r.dir("tree/.hidden")
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.key(runeKey('a'))
	p := r.m.dialog.(*FolderPicker)
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(filepath.Join(r.root, "tree") + "/")
	if got := p.path.Matches(); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Fatalf("listing %v", got)
	}
	r.typeText("al")
	r.key(keyOf(tea.KeyTab))
	if got := p.path.Value(); got != filepath.Join(r.root, "tree/alpha")+"/" {
		t.Fatalf("tab completed to %q", got)
	}
	// Browse: down into the list, space selects, left goes up, the other.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeySpace), keyOf(tea.KeyLeft))
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeySpace))
	want := []string{filepath.Join(r.root, "tree/alpha/inner"), filepath.Join(r.root, "tree/beta")}
	if !slices.Equal(p.Chosen(), want) {
		t.Fatalf("chosen %v, want %v", p.Chosen(), want)
	}
	r.key(keyOf(tea.KeyCtrlS))
	m, _ := r.store.Load(a.ID)
	if !slices.Equal(m.AdditionalDirectories, want) {
		t.Fatalf("stored %v", m.AdditionalDirectories)
	}
	// Esc closes without storing.
	r.key(runeKey('a'), keyEscK)
	if r.m.dialog != nil {
		t.Error("esc did not close the picker")
	}
}

func TestNewChatDialog(t *testing.T) {
	r := newRig(t, nil)
	proj := r.dir("proj")
	r.open(Options{DefaultHarness: "shell"})
	r.key(runeKey('n'))
	d, ok := r.m.dialog.(*NewChatDialog)
	if !ok {
		t.Fatalf("n opened %T", r.m.dialog)
	}
	// Folders through the picker: a relative one is refused inline there.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyEnter)
	if d.Picker() == nil {
		t.Fatal("enter on folders did not open the picker")
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("not/absolute")
	r.key(keyEnter)
	if !strings.Contains(d.Picker().ErrText(), "-32602") {
		t.Fatalf("picker refusal: %q", d.Picker().ErrText())
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(r.dir("lib"))
	r.key(keyEnter, keyOf(tea.KeyCtrlS))
	if d.Picker() != nil || !slices.Equal(d.folders, []string{r.dir("lib")}) {
		t.Fatalf("picker did not hand the folders back: %v", d.folders)
	}
	// A project folder that does not exist refuses the creation inline.
	r.key(keyOf(tea.KeyUp))
	r.typeText(filepath.Join(r.root, "nope"))
	r.key(keyOf(tea.KeyCtrlS))
	if !strings.Contains(d.ErrText(), "does not exist") || r.m.dialog == nil {
		t.Fatalf("bad project: %q", d.ErrText())
	}
	if list, _ := r.store.List(); len(list) != 0 {
		t.Fatalf("a refusal created %v", list)
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(proj)
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown))
	r.typeText("my chat")
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog != nil {
		t.Fatalf("dialog still open: %q", d.ErrText())
	}
	list, _ := r.store.List()
	if len(list) != 1 || list[0].Meta.Name != "my chat" || list[0].Meta.Cwd != proj || !slices.Equal(list[0].Meta.AdditionalDirectories, []string{r.dir("lib")}) {
		t.Fatalf("created %+v", list)
	}
	if r.selectedID() != list[0].ID || !r.m.pane.Focused() {
		t.Errorf("the new chat is not opened: selected %s", r.selectedID())
	}
}

// TestNewChatDialogNeverDropsAName: down goes through every row, the
// name's included; text typed on a row that takes none goes to the name.
func TestNewChatDialogNeverDropsAName(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{DefaultHarness: "shell"})
	r.key(runeKey('n'))
	d := r.m.dialog.(*NewChatDialog)
	var rows []int
	for range numFields {
		rows = append(rows, d.field)
		r.key(keyOf(tea.KeyDown))
	}
	if !slices.Equal(rows, []int{fieldHarness, fieldProject, fieldFolders, fieldName, fieldCreate, fieldCancel}) || d.field != fieldHarness {
		t.Fatalf("down went through %v, then %d", rows, d.field)
	}
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown)) // the folders' row
	r.typeText("mine")
	if d.field != fieldName || d.name.Value() != "mine" {
		t.Fatalf("typed on the folders' row: field %d, name %q", d.field, d.name.Value())
	}
	r.key(keyOf(tea.KeyCtrlS))
	list, _ := r.store.List()
	if len(list) != 1 || list[0].Meta.Name != "mine" {
		t.Fatalf("created %+v", list)
	}
}
