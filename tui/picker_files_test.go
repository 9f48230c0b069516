package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// Tests of single files in the folder picker, the new-chat dialog, the
// summary pane and M.

// file writes a file under the rig's root and returns its path.
func (r *rig) file(rel string) string {
	r.t.Helper()
	p := filepath.Join(r.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("spec\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}

var keyCtrlT = keyOf(tea.KeyCtrlT)

// TestPickerListsFilesAndTogglesWhatAPickAdds: the picker lists a folder's
// files after its subfolders; a pick adds a folder until ctrl+t, then a
// file; each pick goes through the validator of its kind, refused inline;
// accept sets the files through the server (setFiles) and stores them.
func TestPickerListsFilesAndTogglesWhatAPickAdds(t *testing.T) {
	r := newRig(t, nil)
	r.dir("tree/sub")
	spec, notes := r.file("tree/spec.md"), r.file("tree/notes.txt")
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.key(runeKey('a'))
	p := r.m.dialog.(*FolderPicker)
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(filepath.Join(r.root, "tree") + "/")
	if got := p.path.Matches(); !slices.Equal(got, []string{"sub", "notes.txt", "spec.md"}) {
		t.Fatalf("listing %v, want the subfolder then the files", got)
	}
	if v := r.m.View(); !strings.Contains(v, "adds     folders · ctrl+t picks files") || !strings.Contains(v, "[ ] spec.md") || !strings.Contains(v, "[ ] sub/") {
		t.Fatalf("picker in folders mode:\n%s", v)
	}
	// In folders mode a file is refused by the folder validator.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyOf(tea.KeySpace))
	if !strings.Contains(p.ErrText(), "-32602") || len(p.Chosen()) != 0 {
		t.Fatalf("a file picked as a folder: err %q chosen %v", p.ErrText(), p.Chosen())
	}
	r.key(keyCtrlT)
	if !p.PicksFiles() || p.ErrText() != "" {
		t.Fatalf("ctrl+t: files %v err %q", p.PicksFiles(), p.ErrText())
	}
	if v := r.m.View(); !strings.Contains(v, "adds     files · ctrl+t picks folders") || !strings.Contains(v, "ctrl+t pick folders") {
		t.Fatalf("picker in files mode:\n%s", v)
	}
	// notes.txt is highlighted: space picks it; up to sub/, which the
	// file validator refuses as a folder.
	r.key(keyOf(tea.KeySpace))
	if !slices.Equal(p.ChosenFiles(), []string{notes}) || p.ErrText() != "" {
		t.Fatalf("space on a file: chosen %v err %q", p.ChosenFiles(), p.ErrText())
	}
	r.key(keyOf(tea.KeyUp), keyOf(tea.KeySpace))
	if !strings.Contains(p.ErrText(), "is a folder, not a file") || len(p.ChosenFiles()) != 1 {
		t.Fatalf("a folder picked as a file: err %q chosen %v", p.ErrText(), p.ChosenFiles())
	}
	// A typed file, enter.
	r.key(keyOf(tea.KeyUp))
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(spec)
	r.key(keyEnter)
	if want := []string{notes, spec}; !slices.Equal(p.ChosenFiles(), want) {
		t.Fatalf("typed file: chosen %v err %q", p.ChosenFiles(), p.ErrText())
	}
	if m, _ := r.store.Load(a.ID); len(m.AdditionalFiles) != 0 {
		t.Fatal("picking stored before accept")
	}
	r.key(keyOf(tea.KeyCtrlS))
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalFiles, []string{notes, spec}) || len(m.AdditionalDirectories) != 0 {
		t.Fatalf("after accept: files %v folders %v %v", m.AdditionalFiles, m.AdditionalDirectories, err)
	}
	if !slices.Contains(r.fake.Calls(), "setFiles "+a.ID) {
		t.Errorf("the files did not go through setFiles: %v", r.fake.Calls())
	}
	if r.m.dialog != nil || !strings.Contains(r.m.status, "2 files added") {
		t.Errorf("after accept: dialog %v status %q", r.m.dialog, r.m.status)
	}

	// Again: the chat's files are marked, and space takes one out.
	r.key(runeKey('a'))
	p = r.m.dialog.(*FolderPicker)
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(filepath.Join(r.root, "tree") + "/")
	if v := r.m.View(); !strings.Contains(v, "[✓] spec.md  already a file · space takes it out") {
		t.Fatalf("the chat's file is not marked:\n%s", v)
	}
	r.key(keyCtrlT, keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyOf(tea.KeySpace))
	if !slices.Equal(p.DroppedFiles(), []string{spec}) {
		t.Fatalf("take out: %v", p.DroppedFiles())
	}
	r.key(keyOf(tea.KeyCtrlS))
	if m, _ := r.store.Load(a.ID); !slices.Equal(m.AdditionalFiles, []string{notes}) {
		t.Fatalf("after taking out: %v", m.AdditionalFiles)
	}
	if !strings.Contains(r.m.status, "1 file taken out") {
		t.Errorf("status %q", r.m.status)
	}
}

// TestPickerRefusesAFIFOAndStoresNothing: a FIFO typed as a file is
// refused inline by the shared validator, and accept with a folder and a
// refused file picked together stores neither.
func TestPickerRefusesAFIFOAndStoresNothing(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	fifo := filepath.Join(r.dir("pipes"), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(r.store.ChatPath(a.ID))
	r.open(Options{})
	r.key(runeKey('a'), keyCtrlT, keyOf(tea.KeyCtrlU))
	p := r.m.dialog.(*FolderPicker)
	r.typeText(fifo)
	r.key(keyEnter)
	if !strings.Contains(p.ErrText(), "additionalFiles refused") || !strings.Contains(p.ErrText(), "is a FIFO") {
		t.Fatalf("FIFO: %q", p.ErrText())
	}
	if !strings.Contains(r.m.View(), "is a FIFO") {
		t.Errorf("refusal not on screen:\n%s", r.m.View())
	}
	// A file that goes between the pick and accept refuses the accept.
	spec := r.file("spec.md")
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(spec)
	r.key(keyEnter, keyCtrlT, keyOf(tea.KeyCtrlU))
	r.typeText(r.dir("lib"))
	r.key(keyEnter)
	if len(p.Chosen()) != 1 || len(p.ChosenFiles()) != 1 {
		t.Fatalf("chosen %v %v (%q)", p.Chosen(), p.ChosenFiles(), p.ErrText())
	}
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog == nil || !strings.Contains(p.ErrText(), "does not exist") {
		t.Fatalf("accept with a file gone: dialog %v err %q", r.m.dialog, p.ErrText())
	}
	if after, _ := os.ReadFile(r.store.ChatPath(a.ID)); string(after) != string(before) {
		t.Fatalf("a refusal changed the chat file:\n%s", after)
	}
}

// TestNewChatDialogTakesFiles: files picked in the new-chat dialog's
// picker are shown in the dialog and stored with the chat.
func TestNewChatDialogTakesFiles(t *testing.T) {
	r := newRig(t, nil)
	spec := r.file("specs/api.md")
	r.open(Options{DefaultHarness: "shell"})
	r.key(runeKey('n'))
	d := r.m.dialog.(*NewChatDialog)
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyEnter)
	if d.Picker() == nil {
		t.Fatal("enter on folders did not open the picker")
	}
	r.key(keyCtrlT, keyOf(tea.KeyCtrlU))
	r.typeText(spec)
	r.key(keyEnter, keyOf(tea.KeyCtrlS))
	if d.Picker() != nil || !slices.Equal(d.files, []string{spec}) {
		t.Fatalf("picker did not hand the files back: %v (open: %v)", d.files, d.Picker() != nil)
	}
	if v := r.m.View(); !strings.Contains(v, "files     "+spec) {
		t.Fatalf("the dialog does not show the file:\n%s", v)
	}
	r.key(keyOf(tea.KeyCtrlS))
	list, _ := r.store.List()
	if len(list) != 1 || !slices.Equal(list[0].Meta.AdditionalFiles, []string{spec}) {
		t.Fatalf("created %+v", list)
	}
}

// TestSummaryListsFilesAndMRemovesAMissingOne: the summary lists the files
// under the folders with how they reach the harness; a file deleted is
// marked with the key that removes it, and M removes it.
func TestSummaryListsFilesAndMRemovesAMissingOne(t *testing.T) {
	r := newRig(t, nil)
	// Short paths, so the summary shows them whole.
	short, err := os.MkdirTemp("", "f")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	short, _ = filepath.EvalSymlinks(short)
	r.root = short
	lib := r.dir("lib")
	keep, gone := r.file("keep.md"), r.file("gone.md")
	a := r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{lib}, AdditionalFiles: []string{keep, gone}})
	if _, err := r.store.Update(a.ID, func(m *sessions.Meta) error { m.FilesVia = "flag"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	view := r.m.View()
	for _, want := range []string{"folders  " + lib, "files    " + keep, "         " + gone, "         ↳ via system-prompt note + env"} {
		if !strings.Contains(view, want) {
			t.Fatalf("summary lacks %q:\n%s", want, view)
		}
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	e, _ := r.m.sidebar.Selected()
	r.run(checkFolders(e))
	view = r.m.View()
	if !strings.Contains(view, "✗ does not exist · M removes it") || !strings.Contains(view, "M remove missing files •") {
		t.Fatalf("summary does not flag the gone file:\n%s", view)
	}
	r.key(runeKey('M'))
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalFiles, []string{keep}) || !slices.Equal(m.AdditionalDirectories, []string{lib}) {
		t.Fatalf("after M: files %v folders %v %v", m.AdditionalFiles, m.AdditionalDirectories, err)
	}
	if !strings.Contains(r.m.status, "removed 1 missing file(s)") || !slices.Contains(r.fake.Calls(), "folders "+a.ID) {
		t.Errorf("after M: status %q calls %v", r.m.status, r.fake.Calls())
	}
	if v := r.m.View(); strings.Contains(v, "✗ does not exist") || strings.Contains(v, gone) {
		t.Errorf("still listed after M:\n%s", v)
	}
}

// TestRootsPickerOffersFoldersOnly: the import's roots picker lists
// folders alone, and ctrl+t does not turn it to files.
func TestRootsPickerOffersFoldersOnly(t *testing.T) {
	r := newRig(t, nil)
	r.dir("tree/sub")
	r.file("tree/spec.md")
	r.open(Options{})
	p := NewFolderPicker(r.m.c, 1, "roots", r.m.mux, "", "", r.root, r.root, nil, nil).FoldersOnly()
	r.run(r.m.openDialog(p))
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(filepath.Join(r.root, "tree") + "/")
	if got := p.path.Matches(); !slices.Equal(got, []string{"sub"}) {
		t.Fatalf("the roots picker lists %v, want the folder alone", got)
	}
	r.key(keyCtrlT)
	if p.PicksFiles() {
		t.Fatal("ctrl+t turned the roots picker to files")
	}
	if v := r.m.View(); strings.Contains(v, "picks files") || strings.Contains(v, "spec.md") {
		t.Fatalf("the roots picker offers files:\n%s", v)
	}
}
