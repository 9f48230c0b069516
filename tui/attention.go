package tui

import (
	"fmt"
	"strings"
	"sync"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	tea "github.com/charmbracelet/bubbletea"
)

// This file is what the TUI does so that the user knows which chat needs
// them: it tells the server which chat it shows (none while its terminal
// has lost focus), so that only the others are marked unread and
// announced; it turns the server's notices into a desktop notification
// through the terminal and the bell; and it keeps the terminal's title
// counting the chats that ask (`acpmux · 2 asking`).

// noticeMsg is a notice from the server: a chat needs the user.
type noticeMsg proto.Notice

// waitNotices waits for the server's next notice.
func waitNotices(ch <-chan proto.Notice) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg(n)
	}
}

// latest sends a value that changes (the chat looked at, the title) from
// commands, which may run in any order: each sends the latest value under
// one lock, so the last one sent is the last one wanted.
type latest struct {
	mu         sync.Mutex
	want, sent string
	wanted     bool // want holds a value ("" is one)
	sentAny    bool // sent holds a value
}

// set records v and returns the command that sends it, or nil when it is
// what was last asked for.
func (l *latest) set(v string, send func(string) error) tea.Cmd {
	l.mu.Lock()
	same := l.wanted && l.want == v
	l.want, l.wanted = v, true
	l.mu.Unlock()
	if same {
		return nil
	}
	return func() tea.Msg {
		l.flush(send)
		return nil
	}
}

// flush sends the value last asked for unless it was sent already. The
// input writer calls it before each write, so the server hears which chat
// is shown (none, once the terminal lost focus) before any key typed after
// the change, whatever order the commands run in.
func (l *latest) flush(send func(string) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wanted && (!l.sentAny || l.want != l.sent) {
		if send(l.want) == nil {
			l.sent, l.sentAny = l.want, true
		}
	}
}

// settled reports whether the value last asked for was sent: flush has
// nothing to send.
func (l *latest) settled() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.wanted || l.sentAny && l.want == l.sent
}

// current is the value last asked for.
func (l *latest) current() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.want
}

// attend runs after every message: the server hears which chat the user
// sees when that changed, and the title follows the number of chats that
// ask.
func (m *Model) attend() tea.Cmd {
	want := m.selected
	if m.blurred {
		want = ""
	}
	look := m.looking.set(want, m.sendLook)
	var title tea.Cmd
	if emit := m.opt.Emit; emit != nil {
		title = m.title.set(titleOf(m.sidebar.Asking()), func(t string) error {
			emit("\x1b]2;" + t + "\a")
			return nil
		})
	}
	return tea.Batch(look, title)
}

// sendLook tells the server which chat the user sees ("" for none).
func (m *Model) sendLook(id string) error {
	err := m.mux.Look(id)
	if err != nil {
		m.c.Log.Warn("tell the server which chat is shown", "chat", id, "err", err)
	}
	return err
}

// titleOf is the terminal's title while n chats ask for the user.
func titleOf(n int) string {
	if n == 0 {
		return "acpmux"
	}
	return fmt.Sprintf("acpmux · %d asking", n)
}

// noticed announces a chat that needs the user, unless it is the one shown
// (the server sent the notice before it heard so) or the config turned
// terminal notifications off.
func (m *Model) noticed(n noticeMsg) tea.Cmd {
	next := waitNotices(m.mux.Notices())
	emit := m.opt.Emit
	if emit == nil || n.ID == m.looking.current() || !m.opt.Config.Notify.TerminalNotifications() {
		return next
	}
	seq := desktopNotification(m.getenv(), "acpmux · "+n.Title, n.Body)
	return tea.Batch(next, func() tea.Msg { emit(seq); return nil })
}

// desktopNotification is the escape sequence that has the terminal show a
// desktop notification, then the bell: OSC 9 for iTerm2 and kitty, OSC
// 777 for the others that show one (WezTerm, Ghostty, foot, VTE's). Inside
// tmux it is passed through to the outer terminal (tmux's
// allow-passthrough must be on for the notification; the bell needs
// nothing).
func desktopNotification(getenv func(string) string, title, body string) string {
	title = strings.ReplaceAll(plaintext.Line(title), ";", ",")
	body = plaintext.Line(body)
	var seq string
	if getenv("TERM_PROGRAM") == "iTerm.app" || getenv("TERM") == "xterm-kitty" {
		seq = "\x1b]9;" + title + ": " + body + "\a"
	} else {
		seq = "\x1b]777;notify;" + title + ";" + body + "\a"
	}
	if getenv("TMUX") != "" {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq + "\a"
}
