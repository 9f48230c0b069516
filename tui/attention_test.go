package tui

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// terminalLog records what the model writes to the terminal.
type terminalLog struct {
	mu  sync.Mutex
	seq []string
}

func (l *terminalLog) emit(s string) {
	l.mu.Lock()
	l.seq = append(l.seq, s)
	l.mu.Unlock()
}

func (l *terminalLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seq...)
}

func lastOf(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	return list[len(list)-1]
}

// TestTheServerHearsWhichChatIsShown: the selected chat is the one looked
// at, none while the terminal has lost focus.
func TestTheServerHearsWhichChatIsShown(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	r.create(sessions.NewChat{Name: "b"})
	r.open(Options{})
	order := r.order()
	if got := lastOf(r.fake.Looks()); got != order[0] {
		t.Fatalf("after opening the server heard %q, want the selected %s", got, order[0])
	}
	r.key(keyJ)
	if got := lastOf(r.fake.Looks()); got != order[1] {
		t.Fatalf("after j the server heard %q, want %s", got, order[1])
	}
	n := len(r.fake.Looks())
	r.key(keyJ) // no move past the end: nothing to tell
	if len(r.fake.Looks()) != n {
		t.Errorf("the server was told again of the same chat: %q", r.fake.Looks())
	}
	r.run(func() tea.Msg { return tea.BlurMsg{} })
	if got := lastOf(r.fake.Looks()); got != "" {
		t.Fatalf("with the terminal's focus lost the server heard %q, want none", got)
	}
	r.run(func() tea.Msg { return tea.FocusMsg{} })
	if got := lastOf(r.fake.Looks()); got != order[1] {
		t.Fatalf("with the focus back the server heard %q, want %s", got, order[1])
	}
}

// TestNoticesReachTheTerminal: a notice of a chat not shown becomes a
// desktop notification and the bell; none for the chat shown, none when
// the config turns them off; the title counts the chats that ask; an
// unread chat is marked in the sidebar.
func TestNoticesReachTheTerminal(t *testing.T) {
	for _, off := range []bool{false, true} {
		cfg := config.Defaults()
		if off {
			cfg.Notify.Terminal = new(bool)
		}
		r := newRig(t, cfg)
		a := r.create(sessions.NewChat{Name: "alpha"})
		b := r.create(sessions.NewChat{Name: "beta"})
		term := &terminalLog{}
		r.open(Options{Emit: term.emit, Getenv: func(string) string { return "" }})
		shown := r.selectedID()
		other := a.ID
		if other == shown {
			other = b.ID
		}
		if got := lastOf(term.all()); got != "\x1b]2;acpmux\a" {
			t.Fatalf("first title %q", got)
		}
		r.fake.set(other, proto.State{Status: proto.StatusAsking, Unread: true}, "")
		r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{other}} })
		if got := lastOf(term.all()); got != "\x1b]2;acpmux · 1 asking\a" {
			t.Fatalf("title with one chat asking: %q", got)
		}
		if !strings.Contains(r.m.View(), "?• ") {
			t.Errorf("the asking, unread chat has no marks in the sidebar:\n%s", r.m.View())
		}
		n := len(term.all())
		r.run(func() tea.Msg {
			return noticeMsg{ID: other, Status: "asking", Title: "beta; or so", Body: "asks for you"}
		})
		got := term.all()[n:]
		want := []string{"\x1b]777;notify;acpmux · beta, or so;asks for you\a\a"}
		if off {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("terminal off=%v: a notice wrote %q, want %q", off, got, want)
		}
		n = len(term.all())
		r.run(func() tea.Msg {
			return noticeMsg{ID: shown, Status: "waiting", Title: "shown", Body: "finished its turn"}
		})
		if got := term.all()[n:]; len(got) != 0 {
			t.Errorf("a notice of the chat shown wrote %q", got)
		}
	}
}

func TestDesktopNotificationPerTerminal(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "\x1b]777;notify;T;B\a\a"},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, "\x1b]9;T: B\a\a"},
		{map[string]string{"TERM": "xterm-kitty"}, "\x1b]9;T: B\a\a"},
		{map[string]string{"TMUX": "/tmp/tmux-1/default,1,0"}, "\x1bPtmux;\x1b\x1b]777;notify;T;B\a\x1b\\\a"},
	} {
		getenv := func(k string) string { return tt.env[k] }
		if got := desktopNotification(getenv, "T", "B\x1b[31m"); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}
