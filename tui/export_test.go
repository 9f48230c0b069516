package tui

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// bundleCalls returns the fake server's calls that start with prefix.
func (r *rig) bundleCalls(prefix string) []string {
	var out []string
	for _, c := range r.fake.Calls() {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// clearField empties the focused text field (ctrl+u deletes up to the
// cursor, which sits at the end).
func (r *rig) clearField() { r.key(keyOf(tea.KeyCtrlU)) }

func TestExportWritesTheBundleWhereAskedAndSaysSo(t *testing.T) {
	r := newRig(t, nil)
	c := r.create(sessions.NewChat{Name: "Fix the parser!"})
	r.fake.bundles.exportRep = proto.ExportReport{Name: c.Name, Bytes: 12_400, Conversation: "exact", Source: "claude-session", Host: "box"}
	r.open(Options{Cwd: r.root})

	r.key(runeKey('e'))
	d, ok := r.m.dialog.(*ExportDialog)
	if !ok {
		t.Fatalf("e opened %T, want the export dialog", r.m.dialog)
	}
	want := filepath.Join(r.root, "fix-the-parser-"+c.ID+".acpmux.tgz")
	if d.Value() != want {
		t.Fatalf("export path prefilled %q, want %q", d.Value(), want)
	}
	if v := r.m.View(); !strings.Contains(v, "export chat") || !strings.Contains(v, "fix-the-parser-"+c.ID) {
		t.Fatalf("the dialog is not drawn with its path:\n%s", v)
	}
	r.key(keyEnter)
	if got := r.bundleCalls("export"); !slices.Equal(got, []string{"export " + c.ID + " " + want}) {
		t.Fatalf("export calls %q, want one to %s", got, want)
	}
	if r.m.dialog != nil {
		t.Fatalf("the dialog stays open after the export: %T", r.m.dialog)
	}
	wantStatus := "exported Fix the parser!: 12.1 KiB, exact conversation (claude-session) → " + filepath.Base(want)
	if r.m.status != wantStatus || r.m.isErr || r.m.isWarn {
		t.Fatalf("status %q (err %v, warn %v), want %q", r.m.status, r.m.isErr, r.m.isWarn, wantStatus)
	}
}

func TestExportResolvesARelativePathAgainstTheTUIsFolder(t *testing.T) {
	r := newRig(t, nil)
	c := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{Cwd: r.root})
	r.key(runeKey('e'))
	r.clearField()
	r.typeText("out/b.tgz")
	r.key(keyEnter)
	want := "export " + c.ID + " " + filepath.Join(r.root, "out", "b.tgz")
	if got := r.bundleCalls("export"); !slices.Equal(got, []string{want}) {
		t.Fatalf("export calls %q, want %q", got, want)
	}
	if !strings.HasSuffix(r.m.status, " → out/b.tgz") {
		t.Errorf("status %q: want the path relative to the TUI's folder", r.m.status)
	}
}

func TestExportSummaryNamesAPathElsewhereInFull(t *testing.T) {
	rep := proto.ExportReport{Name: "a", Path: "/srv/bundles/a.tgz", Bytes: 10, Conversation: "none"}
	if got, want := exportSummary(rep, "/home/me"), "exported a: 10 B, no conversation → /srv/bundles/a.tgz"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	rep.Path = "/home/me-too/a.tgz" // beside the TUI's folder, not in it
	if got := exportSummary(rep, "/home/me"); !strings.HasSuffix(got, "→ /home/me-too/a.tgz") {
		t.Errorf("summary %q", got)
	}
}

func TestExportNotesShowAsAWarning(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	note := "an ACP turn was in progress: exported up to its last complete update"
	r.fake.bundles.exportRep = proto.ExportReport{Name: "a", Bytes: 3 << 20, Conversation: "exact", Source: "acp-transcript", Notes: []string{note}}
	r.open(Options{Cwd: r.root})
	r.key(runeKey('e'), keyEnter)
	if !r.m.isWarn || !strings.Contains(r.m.status, "3.0 MiB") || !strings.Contains(r.m.status, "; "+note+" → ") {
		t.Fatalf("status %q (warn %v): want the size and the note as a warning", r.m.status, r.m.isWarn)
	}
}

func TestExportRefusalStaysInTheDialog(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	r.fake.bundles.exportErr = errors.New("write bundle: /nope: permission denied")
	r.open(Options{Cwd: r.root})
	r.key(runeKey('e'), keyEnter)
	d, ok := r.m.dialog.(*ExportDialog)
	if !ok || !strings.Contains(d.ErrText(), "permission denied") || !strings.Contains(r.m.View(), "permission denied") {
		t.Fatalf("a refused export: dialog %T, error %q\n%s", r.m.dialog, d.ErrText(), r.m.View())
	}
	// Editing the path clears the error; esc closes with nothing more sent.
	r.typeText("x")
	if d.ErrText() != "" {
		t.Errorf("the error stays after an edit: %q", d.ErrText())
	}
	r.key(keyEscK)
	if r.m.dialog != nil || len(r.bundleCalls("export")) != 1 {
		t.Fatalf("esc: dialog %T, export calls %q", r.m.dialog, r.bundleCalls("export"))
	}
}

func TestExportEscWritesNothing(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	r.open(Options{Cwd: r.root})
	r.key(runeKey('e'), keyEscK)
	if r.m.dialog != nil || len(r.bundleCalls("export")) != 0 {
		t.Fatalf("esc: dialog %T, export calls %q", r.m.dialog, r.bundleCalls("export"))
	}
}

func TestNameSlug(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"fix the parser", "fix-the-parser"},
		{"  Fix: the PARSER (again)  ", "fix-the-parser-again"},
		{"zap · fork 2", "zap-fork-2"},
		{"../../etc/passwd", "etc-passwd"},
		{"日本語", "chat"},
		{"", "chat"},
		{strings.Repeat("ab ", 40), strings.TrimRight(strings.Repeat("ab-", 16), "-")},
	} {
		if got := nameSlug(tc.name); got != tc.want {
			t.Errorf("nameSlug(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if got := nameSlug(tc.name); len(got) > maxSlug || strings.ContainsAny(got, "/.") {
			t.Errorf("nameSlug(%q) = %q: not a safe file name part", tc.name, got)
		}
	}
}

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {12_400, "12.1 KiB"}, {50 << 20, "50.0 MiB"}, {3 << 30, "3.0 GiB"}} {
		if got := byteSize(tc.n); got != tc.want {
			t.Errorf("byteSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
