package tui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

var keyCtrlL = keyOf(tea.KeyCtrlL)

// The new-chat dialog's sandbox line starts at the chosen harness's
// default and follows the harness chosen until the sandbox key turns it;
// the chat is then asked of the server with the choice, and left to the
// server's config while untouched.
func TestNewChatDialogSandboxChoice(t *testing.T) {
	on := true
	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{"shell": {Sandbox: &on}}
	r := newRig(t, cfg)
	r.open(Options{})
	r.key(runeKey('n'))
	d := r.m.dialog.(*NewChatDialog)
	const yes, no = "sandbox   yes · writes only in its folders  ctrl+l turns it off", "sandbox   no  ctrl+l turns it on"
	if sb, _ := d.Sandbox(); !sb || !strings.Contains(r.m.View(), yes) {
		t.Fatalf("shell's sandbox = true does not show as on:\n%s", r.m.View())
	}
	if !strings.Contains(r.m.View(), "ctrl+l sandbox on/off") {
		t.Fatalf("the help line lacks the sandbox key:\n%s", r.m.View())
	}
	// The next harness has no sandbox of its own and the config none:
	// the line follows it, and comes back with shell.
	r.key(keyOf(tea.KeyRight))
	if sb, _ := d.Sandbox(); sb || d.harnesses[d.hi].Name == "shell" || !strings.Contains(r.m.View(), no) {
		t.Fatalf("on %s the sandbox does not follow its default:\n%s", d.harnesses[d.hi].Name, r.m.View())
	}
	r.key(keyOf(tea.KeyLeft))
	if sb, _ := d.Sandbox(); !sb {
		t.Fatalf("back on shell the sandbox is off:\n%s", r.m.View())
	}
	// Turned by the key, the choice stays whatever harness is chosen.
	r.key(keyCtrlL)
	if sb, _ := d.Sandbox(); sb || !strings.Contains(r.m.View(), no) {
		t.Fatalf("ctrl+l did not turn it off:\n%s", r.m.View())
	}
	r.key(keyOf(tea.KeyRight), keyOf(tea.KeyLeft))
	if sb, _ := d.Sandbox(); sb {
		t.Fatal("a harness chosen after the key put its default back")
	}
	r.key(keyOf(tea.KeyCtrlS))
	if got := r.fake.SandboxAsks(); !slices.Equal(got, []string{"no"}) {
		t.Fatalf("asked of the server: %v, want [no]", got)
	}
	// Untouched, the server's config decides (it says shell's chats are
	// sandboxed, as the line did).
	r.key(keyLeave, runeKey('n'))
	if d, ok := r.m.dialog.(*NewChatDialog); !ok {
		t.Fatalf("the second dialog: %v", r.m.dialog)
	} else if sb, _ := d.Sandbox(); !sb {
		t.Fatal("the second dialog does not start at shell's default")
	}
	r.key(keyOf(tea.KeyCtrlS))
	if got := r.fake.SandboxAsks(); !slices.Equal(got, []string{"no", "default"}) {
		t.Fatalf("asked of the server: %v, want [no default]", got)
	}
	// Turned on, it is asked for outright, and the chat is sandboxed.
	r.key(keyLeave, runeKey('n'), keyOf(tea.KeyRight), keyCtrlL)
	r.key(keyOf(tea.KeyCtrlS))
	if got := r.fake.SandboxAsks(); !slices.Equal(got, []string{"no", "default", "yes"}) {
		t.Fatalf("asked of the server: %v, want [no default yes]", got)
	}
	if m, err := r.store.Load(r.selectedID()); err != nil || !m.Sandbox || m.Harness == "shell" {
		t.Fatalf("the chat made: %+v, %v; want a sandboxed chat of the harness after shell", m, err)
	}

	// Rebound under [keys], the dialog takes the new key.
	cfg2 := config.Defaults()
	cfg2.Keys = map[string]config.KeyList{"sandbox": {"ctrl+o"}}
	r2 := newRig(t, cfg2)
	r2.open(Options{})
	r2.key(runeKey('n'))
	d2 := r2.m.dialog.(*NewChatDialog)
	r2.key(keyCtrlL)
	if sb, _ := d2.Sandbox(); sb {
		t.Fatal("ctrl+l still turns the sandbox on after rebinding")
	}
	r2.key(keyOf(tea.KeyCtrlO))
	if sb, _ := d2.Sandbox(); !sb || !strings.Contains(r2.m.View(), "ctrl+o turns it off") {
		t.Fatalf("the rebound key did not turn it on:\n%s", r2.m.View())
	}
}

// The sandbox key does not reach the dialog's text fields: in the name
// field it turns the sandbox, and types nothing.
func TestSandboxKeyInATextField(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{})
	r.key(runeKey('n'))
	d := r.m.dialog.(*NewChatDialog)
	d.setField(fieldName)
	r.typeText("ab")
	r.key(keyCtrlL)
	if sb, _ := d.Sandbox(); !sb || d.name.Value() != "ab" {
		t.Fatalf("sandbox %v, name %q", sb, d.name.Value())
	}
}

// With another host chosen, whose config this side does not know, the
// line says that config decides; the key then asks for a sandbox.
func TestNewChatDialogSandboxOnAnotherHost(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{})
	var made []sessions.NewChat
	d := NewNewChatDialog(r.m.c, 1, r.fake, r.root, []HarnessInfo{{Name: "shell", Transport: "pty", Installed: true, Sandbox: true}}, "shell", false,
		func(n sessions.NewChat) tea.Cmd { made = append(made, n); return nil })
	d.SetHosts([]string{"", "box"}, func(string) ChatLists { return r.fake })
	d.SetSize(100, 30)
	if sb, known := d.Sandbox(); !sb || !known {
		t.Fatalf("on this machine: sandbox %v, known %v", sb, known)
	}
	d.Update(keyOf(tea.KeyRight)) // the host field: box
	view := strings.Join(d.View(), "\n")
	if _, known := d.Sandbox(); known || !strings.Contains(view, "sandbox   as box's config  ctrl+l turns it on") {
		t.Fatalf("on box the choice is known here:\n%s", view)
	}
	d.Update(keyOf(tea.KeyCtrlS))
	d.busy = false
	d.Update(keyCtrlL)
	if sb, known := d.Sandbox(); !sb || !known {
		t.Fatalf("after the key: sandbox %v, known %v", sb, known)
	}
	d.Update(keyOf(tea.KeyCtrlS))
	if len(made) != 2 || made[0].Sandbox != nil || made[1].Sandbox == nil || !*made[1].Sandbox {
		t.Fatalf("chats asked for: %+v", made)
	}
}

// The fork dialog's sandbox line starts at the parent's; left alone the
// fork keeps it, turned it is asked for. A chat outside any repository
// forks at once and its fork keeps the parent's sandbox.
func TestForkDialogSandboxChoice(t *testing.T) {
	r := newRig(t, nil)
	repo := r.dir("repo")
	gitInit(t, repo)
	on := true
	plain := r.create(sessions.NewChat{Name: "plain", Cwd: r.dir("plain"), Sandbox: &on})
	inRepo := r.create(sessions.NewChat{Name: "inrepo", Cwd: repo, Sandbox: &on})
	r.open(Options{})

	r.m.sidebar.Select(plain.ID)
	r.key(runeKey('f'))
	if r.m.dialog != nil {
		t.Fatalf("a chat outside a repository got a dialog:\n%s", r.m.View())
	}
	if m, err := r.store.Load(r.selectedID()); err != nil || m.Parent != plain.ID || !m.Sandbox {
		t.Fatalf("the fork of a sandboxed chat: %+v, %v", m, err)
	}
	r.key(keyLeave)

	r.m.sidebar.Select(inRepo.ID)
	r.key(runeKey('f'))
	d, ok := r.m.dialog.(*ForkDialog)
	if !ok {
		t.Fatalf("no fork dialog for a chat in a repository:\n%s", r.m.View())
	}
	if !d.Sandbox() || !strings.Contains(r.m.View(), "sandbox   yes · writes only in its folders  ctrl+l turns it off") ||
		!strings.Contains(r.m.View(), "ctrl+l sandbox on/off") {
		t.Fatalf("the fork dialog does not start at the parent's sandbox:\n%s", r.m.View())
	}
	r.key(keyEnter)
	r.key(keyLeave)
	r.m.sidebar.Select(inRepo.ID)
	r.key(runeKey('f'), keyCtrlL)
	d = r.m.dialog.(*ForkDialog)
	if d.Sandbox() || !strings.Contains(r.m.View(), "sandbox   no  ctrl+l turns it on") {
		t.Fatalf("ctrl+l did not turn it off:\n%s", r.m.View())
	}
	r.key(keyEnter)
	if got := r.fake.SandboxAsks(); !slices.Equal(got, []string{"default", "default", "no"}) {
		t.Fatalf("asked %v, want [default default no]", got)
	}
	if m, err := r.store.Load(r.selectedID()); err != nil || m.Parent != inRepo.ID || m.Sandbox {
		t.Fatalf("the fork asked unsandboxed: %+v, %v", m, err)
	}
}
