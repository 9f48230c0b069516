package tui

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// configMux is the rig's fake mux telling a server's config, as
// client.Router does: cfg once told, and each ReadConfig counted.
type configMux struct {
	*fakeMux
	cfg     proto.ConfigResult
	told    bool
	reads   int
	readErr error
	changed chan struct{}
}

func newConfigMux(f *fakeMux) *configMux {
	c := &configMux{fakeMux: f, changed: make(chan struct{})}
	// Closed: a wait the rig runs ends at once (the rig delivers the
	// notices itself).
	close(c.changed)
	return c
}

func (c *configMux) Config() (proto.ConfigResult, bool) { return c.cfg, c.told }
func (c *configMux) ConfigChanged() <-chan struct{}     { return c.changed }
func (c *configMux) ReadConfig() (proto.ConfigResult, error) {
	c.reads++
	return c.cfg, c.readErr
}

// TestHarnessesFromTheServer: the TUI offers the harness table its server
// has in effect, never one of its own read. Until the server tells, the
// table read at start is offered; once it tells (at the connection, at
// each change of the file), the new-chat dialog and the handoff chooser
// offer its harnesses, marked installed or not as the server finds them,
// with its default first; the dialog asks the server to read the file
// again as it opens. A refusal the server tells is shown and changes
// nothing offered.
func TestHarnessesFromTheServer(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "first"})
	src := newConfigMux(r.fake)
	r.open(Options{Mux: src, DefaultHarness: "shell", Harnesses: []HarnessInfo{{Name: "shell", Transport: "pty", Installed: true}}})

	r.key(runeKey('n'))
	d, ok := r.m.dialog.(*NewChatDialog)
	if !ok {
		t.Fatalf("n opened %T", r.m.dialog)
	}
	if src.reads != 1 {
		t.Fatalf("the dialog asked the server to read the config %d times, want once", src.reads)
	}
	if len(d.harnesses) != 1 || d.harnesses[0].Name != "shell" {
		t.Fatalf("before the server tells, the dialog offers %+v; want what was read at start", d.harnesses)
	}
	r.key(keyEscK)

	// The server tells a config: a harness added (the new default) and one
	// whose command it does not find.
	src.cfg = proto.ConfigResult{Generation: 2, DefaultHarness: "added", Harnesses: []proto.HarnessInfo{
		{Name: "shell", Transport: "pty", Kind: "plain", Command: "$SHELL", Installed: true},
		{Name: "aider", Transport: "pty", Kind: "plain", Command: "aider"},
		{Name: "added", Transport: "acp", Kind: "acp", Command: "/opt/added", Installed: true},
	}}
	src.told = true
	r.run(func() tea.Msg { return configMsg{rearm: true} })
	if r.m.opt.DefaultHarness != "added" || !r.m.missing["aider"] || r.m.missing["added"] {
		t.Fatalf("after the server told: default %q, missing %v", r.m.opt.DefaultHarness, r.m.missing)
	}
	if spec, ok := r.m.table.Get("added"); !ok || spec.Transport != "acp" {
		t.Fatalf("the table in effect lacks the added ACP harness: %+v", spec)
	}

	r.key(runeKey('h'))
	view := r.m.View()
	if !regexp.MustCompile(`added\s+acp · ✓ installed`).MatchString(view) || !regexp.MustCompile(`aider\s+pty · not installed`).MatchString(view) {
		t.Fatalf("the handoff chooser does not offer the server's harnesses:\n%s", view)
	}
	r.key(keyEscK)

	r.key(runeKey('n'))
	d = r.m.dialog.(*NewChatDialog)
	if len(d.harnesses) != 3 || d.harnesses[d.hi].Name != "added" || !strings.Contains(r.m.View(), "‹ added ›") {
		t.Fatalf("the dialog offers %+v, chosen %d; want the server's three, its default chosen", d.harnesses, d.hi)
	}
	r.key(keyEscK)

	// A refusal: said, and nothing offered changes.
	r.run(func() tea.Msg {
		return newsMsg{ConfigRefused: "config /c/config.toml: line 3: harness.aider.kind: \"robot\" is not one of claude; the last good config stays in effect"}
	})
	if view := r.m.View(); !strings.Contains(view, "config refused: line 3: harness.aider.kind") {
		t.Fatalf("the refusal is not in the status line:\n%s", view)
	}
	src.readErr = errors.New("lost the connection to the server")
	r.key(runeKey('n'))
	d = r.m.dialog.(*NewChatDialog)
	if len(d.harnesses) != 3 || d.harnesses[d.hi].Name != "added" {
		t.Fatalf("after a refusal the dialog offers %+v; want the last good config's", d.harnesses)
	}
}
