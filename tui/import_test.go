package tui

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// importRig is a rig with a bundle file under r.root/bundles, a root folder
// r.root/src, and a dry-run report the fake server answers with.
type importRig struct {
	*rig
	bundle, src string
	rep         proto.ImportReport
}

func newImportRig(t *testing.T) *importRig {
	t.Helper()
	r := newRig(t, nil)
	ir := &importRig{rig: r, src: r.dir("src")}
	ir.bundle = filepath.Join(r.dir("bundles"), "fix-the-parser-k3x9q2.acpmux.tgz")
	if err := os.WriteFile(ir.bundle, []byte("not read by the TUI"), 0o600); err != nil {
		t.Fatal(err)
	}
	app := r.dir("src/app")
	ir.rep = proto.ImportReport{
		Host: "box", Name: "fix the parser · import", Harness: "shell", Parent: "k3x9q2", Cwd: app,
		Kept:         []string{r.dir("src/lib")},
		Dropped:      []proto.Dropped{{Path: "/home/other/notes", Reason: "outside every root"}},
		DroppedFiles: []proto.Dropped{{Path: "/home/other/api.md", Reason: "not found here"}},
		Conversation: "capsule", How: "the scrollback becomes the chat's first message",
		Notes: []string{"an ACP turn was in progress: exported up to its last complete update"},
	}
	r.fake.bundles.dryRep = ir.rep
	return ir
}

// toReport opens the import dialog, completes the bundle's name with tab,
// picks src as the root in the pushed picker, and accepts: the dry run's
// report is then shown.
func (r *importRig) toReport() *ImportDialog {
	r.t.Helper()
	r.key(runeKey('i'))
	d, ok := r.m.dialog.(*ImportDialog)
	if !ok {
		r.t.Fatalf("i opened %T, want the import dialog", r.m.dialog)
	}
	r.typeText("bundles/fix")
	if v := r.m.View(); !strings.Contains(v, filepath.Base(r.bundle)) {
		r.t.Fatalf("the dialog does not offer the bundle the folder holds:\n%s", v)
	}
	r.key(keyOf(tea.KeyTab))
	if got := d.path.Value(); got != r.bundle {
		r.t.Fatalf("tab completed the bundle to %q, want %q", got, r.bundle)
	}
	r.key(keyEnter)
	p, ok := r.m.dialog.(*FolderPicker)
	if !ok || len(r.m.below) != 1 || r.m.below[0] != d {
		r.t.Fatalf("enter on the file: top %T, below %v; want the picker pushed over the import dialog", r.m.dialog, r.m.below)
	}
	r.clearField()
	r.typeText(r.src)
	r.key(keyEnter) // select the typed folder
	if !slices.Equal(p.Chosen(), []string{r.src}) {
		r.t.Fatalf("picker chose %q (error %q), want %s", p.Chosen(), p.ErrText(), r.src)
	}
	r.key(keyCtrlS)
	if r.m.dialog != d || len(r.m.below) != 0 {
		r.t.Fatalf("accept: top %T, below %d; want the import dialog back alone", r.m.dialog, len(r.m.below))
	}
	return d
}

func TestImportShowsTheGuardsReportAndEscWritesNothing(t *testing.T) {
	r := newImportRig(t)
	r.open(Options{Cwd: r.root})
	before, _ := r.store.List()
	d := r.toReport()
	want := "import " + r.bundle + " " + r.src + " dry"
	if got := r.bundleCalls("import"); !slices.Equal(got, []string{want}) {
		t.Fatalf("import calls %q, want only the dry run %q", got, want)
	}
	if _, shown := d.Report(); !shown || d.ErrText() != "" {
		t.Fatalf("no report shown (error %q)", d.ErrText())
	}
	v := r.m.View()
	for _, w := range []string{
		"import chat", "/bundles/fix-the-parser-k3x9q2.acpmux.tgz", "fix the parser · import", "from k3x9q2", "into box",
		"✓ " + r.rep.Cwd, "✓ " + r.rep.Kept[0], "✗ /home/other/notes — outside every root",
		"✗ /home/other/api.md — not found here", "history   capsule: the scrollback becomes",
		"! an ACP turn was in progress", "enter import", "esc cancel: nothing is written",
	} {
		if !strings.Contains(v, w) {
			t.Errorf("the report lacks %q:\n%s", w, v)
		}
	}
	r.key(keyEscK)
	if r.m.dialog != nil {
		t.Fatalf("esc leaves %T open", r.m.dialog)
	}
	if got := r.bundleCalls("import"); len(got) != 1 {
		t.Fatalf("after esc, import calls %q: want the dry run alone", got)
	}
	if after, _ := r.store.List(); len(after) != len(before) {
		t.Fatalf("esc after the dry run stored chats: %d before, %d after", len(before), len(after))
	}
}

func TestImportEnterImportsAndSelectsTheNewChat(t *testing.T) {
	r := newImportRig(t)
	r.create(sessions.NewChat{Name: "already here"})
	r.open(Options{Cwd: r.root})
	r.toReport()
	r.key(keyEnter)
	want := []string{"import " + r.bundle + " " + r.src + " dry", "import " + r.bundle + " " + r.src}
	if got := r.bundleCalls("import"); !slices.Equal(got, want) {
		t.Fatalf("import calls %q, want %q", got, want)
	}
	made := r.chatOf(sessions.OriginImport)
	if made == nil {
		t.Fatal("no chat imported")
	}
	if r.m.dialog != nil {
		t.Fatalf("the dialog stays open after the import: %T", r.m.dialog)
	}
	if r.selectedID() != made.ID {
		t.Fatalf("selected %s, want the imported chat %s", r.selectedID(), made.ID)
	}
	if !strings.HasPrefix(r.m.status, "✓ imported "+made.Name+" as "+made.ID+", its conversation as a capsule (its first message), 1 folder and 1 file dropped") || strings.Contains(r.m.status, "none conversation") || !r.m.isWarn {
		t.Fatalf("status %q (warn %v)", r.m.status, r.m.isWarn)
	}
}

func TestImportRefusalShowsTheServersWords(t *testing.T) {
	r := newImportRig(t)
	r.fake.bundles.dryErr = errors.New("import refused: the chat's folder /elsewhere/app is outside every root")
	r.open(Options{Cwd: r.root})
	d := r.toReport()
	if !strings.Contains(d.ErrText(), "outside every root") {
		t.Fatalf("error %q", d.ErrText())
	}
	if v := r.m.View(); !strings.Contains(v, "refused") || !strings.Contains(v, "/elsewhere/app") || !strings.Contains(v, "nothing was written") {
		t.Fatalf("the refusal is not shown:\n%s", v)
	}
	// enter does not import after a refusal: it goes back to the file.
	r.key(keyEnter)
	if got := r.bundleCalls("import"); len(got) != 1 || !strings.HasSuffix(got[0], " dry") {
		t.Fatalf("import calls %q after a refusal", got)
	}
	if d.step != importFile || r.m.dialog != d {
		t.Fatalf("after the refusal, enter: step %d, top %T; want the file again", d.step, r.m.dialog)
	}
	if r.chatOf(sessions.OriginImport) != nil {
		t.Fatal("a refused import stored a chat")
	}
}

func TestImportPickerCancelReturnsToTheFile(t *testing.T) {
	r := newImportRig(t)
	r.open(Options{Cwd: r.root})
	r.key(runeKey('i'))
	d := r.m.dialog.(*ImportDialog)
	r.typeText("bundles/fix-the-parser-k3x9q2.acpmux.tgz")
	r.key(keyEnter)
	if _, ok := r.m.dialog.(*FolderPicker); !ok {
		t.Fatalf("enter opened %T, want the picker", r.m.dialog)
	}
	r.key(keyEscK)
	if r.m.dialog != d || d.step != importFile || len(r.m.below) != 0 {
		t.Fatalf("esc in the picker: top %T, step %d, below %d", r.m.dialog, d.step, len(r.m.below))
	}
	// Accepting no root is refused in the dialog, and nothing is asked.
	r.key(keyEnter, keyCtrlS)
	if r.m.dialog != d || !strings.Contains(d.ErrText(), "no root chosen") {
		t.Fatalf("no root: top %T, error %q", r.m.dialog, d.ErrText())
	}
	if got := r.bundleCalls("import"); len(got) != 0 {
		t.Fatalf("import calls %q with no root", got)
	}
}

func TestImportNeedsAFile(t *testing.T) {
	r := newImportRig(t)
	r.open(Options{Cwd: r.root})
	r.key(runeKey('i'), keyEnter) // the field holds the TUI's folder, with "/"
	d := r.m.dialog.(*ImportDialog)
	if !strings.Contains(d.ErrText(), "type the bundle file") {
		t.Fatalf("a folder taken as the bundle: error %q, top %T", d.ErrText(), r.m.dialog)
	}
}

// A report from the other side is outside input: escape sequences in its
// names and reasons are not drawn, and a list of thousands shows a few
// rows and a count.
func TestImportReportShowsHostileTextPlainAndBounded(t *testing.T) {
	r := newImportRig(t)
	many := make([]proto.Dropped, 5000)
	for i := range many {
		many[i] = proto.Dropped{Path: "/x/" + strings.Repeat("d", i%7), Reason: "outside every root"}
	}
	r.fake.bundles.dryRep.Name = "evil\x1b]0;owned\x07\x1b[2J name"
	r.fake.bundles.dryRep.Dropped = many
	r.fake.bundles.dryRep.Notes = []string{"note\x1b[31m red"}
	r.open(Options{Cwd: r.root})
	r.toReport()
	v := strings.Join(r.m.dialog.View(), "\n")
	if strings.Contains(v, "\x1b]") || strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x07") {
		t.Fatalf("the report draws escape sequences from the bundle: %q", v)
	}
	if !strings.Contains(v, "owned") || !strings.Contains(v, "… and 4994 more") {
		t.Fatalf("the report lacks the plain name or the count of the rest:\n%s", v)
	}
	if n := strings.Count(v, "outside every root"); n != maxReportRows-2 {
		t.Fatalf("%d dropped rows drawn, want %d", n, maxReportRows-2)
	}
}
