package tui

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestFailedChatTakesNoKeysAndEnterRestartsIt: once a focused chat's
// harness fails, typing goes nowhere and says so, the pane says it stopped
// under what the harness printed last, and enter starts it again.
func TestFailedChatTakesNoKeysAndEnterRestartsIt(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.key(keyEnter)
	if !r.m.pane.Focused() {
		t.Fatal("enter did not open the chat")
	}
	r.key(runeKey('x'))
	if got := r.nextWrite(); string(got.b) != "x" {
		t.Fatalf("a running chat got %q", got.b)
	}

	// The harness crashes for good: its last words stay on screen.
	started := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	r.fake.set(a.ID, proto.State{Status: proto.StatusFailed, Started: started, Reason: "exited 6 times in a row (status 1)"},
		"Unable to connect to services\nENOTFOUND")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.key(runeKey('y'), runeKey('z'))
	select {
	case w := <-r.fake.writes:
		t.Fatalf("a failed chat was sent %q", w.b)
	default:
	}
	if !r.m.isErr || !strings.Contains(r.m.status, "is not running: enter starts it again") {
		t.Errorf("typing to a failed chat says %q", r.m.status)
	}
	v := r.m.View()
	for _, want := range []string{"ENOTFOUND", "shell failed · enter restarts it · exited 6", "a · not running · enter restarts it"} {
		if !strings.Contains(v, want) {
			t.Errorf("the pane does not show %q:\n%s", want, v)
		}
	}

	calls := len(r.fake.Calls())
	r.key(keyEnter)
	if got := r.fake.Calls()[calls:]; !slices.Contains(got, "start "+a.ID) {
		t.Fatalf("enter on a failed chat: calls %v, want a start", got)
	}
	if !r.m.pane.Focused() || strings.Contains(r.m.View(), "enter restarts it") {
		t.Errorf("after the restart the pane is not live:\n%s", r.m.View())
	}
	r.key(runeKey('w'))
	if got := r.nextWrite(); string(got.b) != "w" {
		t.Fatalf("the restarted chat got %q", got.b)
	}
}

// TestVanishedFolderIsMarkedWithoutReselecting: the selected chat's
// folders are looked at again on each tick, so one deleted meanwhile is
// flagged in the summary with no key pressed, and one restored is cleared.
func TestVanishedFolderIsMarkedWithoutReselecting(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{lib}})
	r.open(Options{}) // no timer: the test delivers the ticks
	if strings.Contains(r.m.View(), "does not exist") {
		t.Fatalf("a present folder is flagged:\n%s", r.m.View())
	}
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	r.run(func() tea.Msg { return folderTickMsg{} })
	if v := r.m.View(); !strings.Contains(v, "✗ does not exist · M remove") {
		t.Fatalf("the deleted folder is not marked after a tick:\n%s", v)
	}
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	r.run(func() tea.Msg { return folderTickMsg{} })
	if v := r.m.View(); strings.Contains(v, "does not exist") {
		t.Fatalf("the restored folder is still marked after a tick:\n%s", v)
	}
	// A tick that finds nothing new draws nothing.
	r.m.Update(folderTickMsg{})
	if !r.m.Unchanged() {
		t.Error("a folder tick redraws the screen")
	}
}

// TestPickerTakesOutAFolderTheChatHas: space on one of the chat's folders
// in the picker's list marks it to be taken out (a toggle); accept removes
// it as rm-dir does, adds what was selected, and tells the mux, which
// applies the change at the end of the turn.
func TestPickerTakesOutAFolderTheChatHas(t *testing.T) {
	r := newRig(t, nil)
	proj := r.dir("proj")
	docs, lib, extra := r.dir("proj/docs"), r.dir("proj/lib"), r.dir("proj/new")
	a := r.create(sessions.NewChat{Name: "a", Cwd: proj, AdditionalDirectories: []string{docs, lib}})
	r.open(Options{})
	r.key(runeKey('a'))
	p, ok := r.m.dialog.(*FolderPicker)
	if !ok {
		t.Fatalf("a opened %T", r.m.dialog)
	}
	if v := r.m.View(); !strings.Contains(v, "[✓] docs/  already a folder · space takes it out") {
		t.Fatalf("the chat's folders are not offered for taking out:\n%s", v)
	}
	r.key(keyOf(tea.KeyDown)) // into the list: docs, lib, new
	r.key(runeKey(' '))
	if !slices.Equal(p.Dropped(), []string{docs}) {
		t.Fatalf("space on docs: dropped %v", p.Dropped())
	}
	v := r.m.View()
	if !strings.Contains(v, "[−] docs/  taken out on accept") || !strings.Contains(v, "take out "+docs) {
		t.Fatalf("the folder taken out is not shown:\n%s", v)
	}
	r.key(runeKey(' ')) // a toggle: kept again
	if len(p.Dropped()) != 0 || strings.Contains(r.m.View(), "taken out on accept") {
		t.Fatalf("space again did not keep docs: %v", p.Dropped())
	}
	r.key(runeKey(' '))
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), runeKey(' ')) // select new
	if !slices.Equal(p.Chosen(), []string{extra}) {
		t.Fatalf("new is not selected: %v", p.Chosen())
	}
	if m, _ := r.store.Load(a.ID); !slices.Equal(m.AdditionalDirectories, []string{docs, lib}) {
		t.Fatalf("stored before accept: %v", m.AdditionalDirectories)
	}
	calls := len(r.fake.Calls())
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog != nil {
		t.Fatalf("accept left the picker open: %q", p.ErrText())
	}
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalDirectories, []string{lib, extra}) {
		t.Fatalf("after accept the chat has %v (%v), want [lib new]", m.AdditionalDirectories, err)
	}
	if got := r.fake.Calls()[calls:]; !slices.Contains(got, "folders "+a.ID) {
		t.Errorf("the mux was not told of the change: %v", got)
	}
	if !strings.Contains(r.m.status, "1 folder added, 1 taken out") {
		t.Errorf("status %q", r.m.status)
	}
	if v := r.m.View(); strings.Contains(v, docs) {
		t.Errorf("the summary still lists the folder taken out:\n%s", v)
	}

	// Only taking out: accept with nothing selected is enough.
	r.key(runeKey('a'))
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), runeKey(' '), keyOf(tea.KeyCtrlS))
	if m, _ := r.store.Load(a.ID); !slices.Equal(m.AdditionalDirectories, []string{extra}) {
		t.Fatalf("after taking out lib the chat has %v", m.AdditionalDirectories)
	}
	if !strings.Contains(r.m.status, "1 folder taken out") {
		t.Errorf("status %q", r.m.status)
	}
}

// linkMux is the fake mux with a connection to a server that the test
// loses and gives back. Its Link channel is closed: the model's wait for
// the next change ends at once, and the test sends linkMsg itself.
type linkMux struct {
	*fakeMux
	link     chan struct{}
	starts   int
	startErr error
}

func newLinkMux(f *fakeMux) *linkMux {
	l := &linkMux{fakeMux: f, link: make(chan struct{})}
	close(l.link)
	return l
}

func (l *linkMux) Link() <-chan struct{} { return l.link }
func (l *linkMux) Lost() error           { return nil }
func (l *linkMux) StartServer() error {
	l.starts++
	return l.startErr
}

// TestStatusBarFollowsTheServer: while the server is gone the status line
// says so whatever else happens; the loss starts a server at once, and
// when that fails S starts one; once the connection is back the line says
// so and the list is read again.
func TestStatusBarFollowsTheServer(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	lm := newLinkMux(r.fake)
	r.open(Options{Mux: lm})
	gone := errors.New("lost the connection to the server (EOF); reconnecting when one is back")
	// The loss starts a server by itself; this start fails, and says why.
	lm.startErr = errors.New("start the server for /x: the agent home cannot be made")
	r.run(func() tea.Msg { return linkMsg{lost: gone} })
	want := "✗ server gone: reconnecting… (press S to start one)"
	if v := r.m.View(); lm.starts != 1 || !strings.Contains(v, want) || !strings.Contains(v, "S start a server") || !strings.Contains(r.m.status, "cannot be made") {
		t.Fatalf("after the loss (%d starts, status %q) the status line does not say the server is gone:\n%s", lm.starts, r.m.status, v)
	}
	// The loss told again while it lasts starts no other.
	r.run(func() tea.Msg { return linkMsg{lost: gone} })
	if lm.starts != 1 {
		t.Fatalf("the loss told twice started %d servers", lm.starts)
	}
	// A chat whose pane has the keyboard cannot be started meanwhile.
	r.fake.set(r.selectedID(), proto.State{Status: proto.StatusFailed, Started: time.Now(), Reason: gone.Error()}, "$ ")
	r.m.Update(chatsChangedMsg{ids: []string{r.selectedID()}})
	r.m.pane.SetFocus(true)
	calls := len(r.fake.Calls())
	r.key(keyEnter)
	if got := r.fake.Calls()[calls:]; len(got) != 0 || !strings.Contains(r.m.status, "no server to start it in: ctrl+], then S starts one") {
		t.Fatalf("enter on a chat while the server is gone: calls %v, status %q", got, r.m.status)
	}
	r.key(keyOf(tea.KeyCtrlCloseBracket))
	r.key(keyJ, keyK) // keys clear the status line, not this
	if v := r.m.View(); !strings.Contains(v, want) {
		t.Fatalf("a key cleared the server's loss:\n%s", v)
	}

	// S starts one; a start that fails says why, beside the loss.
	lm.startErr = errors.New("start the server for /x: another server holds the lock")
	r.key(runeKey('S'))
	if lm.starts != 2 {
		t.Fatalf("S started %d servers", lm.starts-1)
	}
	if v := r.m.View(); !strings.Contains(v, want+" · start the s") || !strings.Contains(r.m.status, "another server holds the lock") {
		t.Fatalf("the failed start is not shown (status %q):\n%s", r.m.status, v)
	}
	lm.startErr = nil
	r.key(runeKey('S'))
	if v := r.m.View(); lm.starts != 3 || !strings.Contains(v, "✗ server gone: starting one…") {
		t.Fatalf("after S (%d starts) the status line is not the start's:\n%s", lm.starts, v)
	}

	// Back: a chat made meanwhile (by another client) is listed.
	b := r.create(sessions.NewChat{Name: "made while gone"})
	calls = len(r.fake.Calls())
	r.run(func() tea.Msg { return linkMsg{} })
	v := r.m.View()
	if strings.Contains(v, "server gone") || !strings.Contains(v, "✓ reconnected to the server") {
		t.Fatalf("after the server came back:\n%s", v)
	}
	if _, ok := r.m.sidebar.Entry(b.ID); !ok {
		t.Errorf("the list was not read again on reconnection: %v", r.order())
	}
	if got := r.fake.Calls()[calls:]; !slices.ContainsFunc(got, func(c string) bool { return strings.HasPrefix(c, "resize ") }) {
		t.Errorf("the new server was not given the size: %v", got)
	}
	r.key(runeKey('S'))
	if lm.starts != 3 || !strings.Contains(r.m.status, "connected to the server") {
		t.Errorf("S while connected: %d starts, status %q", lm.starts, r.m.status)
	}

	// Lost again: the line says a server is being started, at once.
	r.run(func() tea.Msg { return linkMsg{lost: gone} })
	if v := r.m.View(); lm.starts != 4 || !strings.Contains(v, "✗ server gone: starting one…") {
		t.Fatalf("after a second loss (%d starts) the status line is not the start's:\n%s", lm.starts, v)
	}
}

// connectingMux is a linkMux whose first connection was still on its way
// when the TUI started (it drew its first frame meanwhile); Connected
// says how it ended.
type connectingMux struct {
	*linkMux
	err error
}

func (c *connectingMux) Connected() (bool, error) { return true, c.err }

// TestFirstConnection: a TUI drawn before the server it started answered
// reads the list again once connected (a chat file written meanwhile was
// made before the server could tell of it) and says nothing more; when the
// server could not be had it says why, and that it is gone.
func TestFirstConnection(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	cm := &connectingMux{linkMux: newLinkMux(r.fake)}
	r.open(Options{Mux: cm})
	b := r.create(sessions.NewChat{Name: "written before the server"})
	r.run(r.m.awaitConnection())
	if r.m.isErr || strings.Contains(r.m.View(), "server gone") {
		t.Fatalf("a first connection made is reported (status %q):\n%s", r.m.status, r.m.View())
	}
	if _, ok := r.m.sidebar.Entry(b.ID); !ok {
		t.Fatalf("the list was not read again on the first connection: %v", r.order())
	}
	cm.err = errors.New("start the server for /x: the agent home cannot be made")
	r.run(r.m.awaitConnection())
	r.run(func() tea.Msg { return linkMsg{lost: cm.err} })
	if v := r.m.View(); !r.m.isErr || !strings.Contains(r.m.status, "cannot be made") || !strings.Contains(v, "server gone") {
		t.Fatalf("the failed first connection is not shown (status %q):\n%s", r.m.status, v)
	}
}
