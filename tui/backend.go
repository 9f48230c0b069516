package tui

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Mux is what the TUI uses of the server: its mux and its chat store.
// client.Remote satisfies it, and tests give a fake. State, Render,
// Terminal and Transcript are in-memory reads, called from Update on a
// change notice; everything else may block and is only called inside a
// tea.Cmd or the input writer. The server is the TUI's one source of
// chats: it holds no store of its own, and reads and writes chats only
// through these methods.
type Mux interface {
	ChatStore
	Reviews
	ChatOptions

	// Changes delivers ids of chats whose screen or state changed, at most
	// one pending per chat until State or Render is called for it.
	Changes() <-chan string
	State(id string) proto.State
	Render(id string, scroll int) string
	Terminal(id string) proto.Terminal
	Transcript(id string) []proto.Entry
	// History is a pty chat's scrollback and screen as plain lines, at
	// most maxBytes (a handoff's capsule reads it); it may block.
	History(id string, maxBytes int) []string

	Start(id string, cols, rows int) error
	Restart(id string, cols, rows int) error
	Stop(id string)
	Write(id string, p []byte) error
	ResizeAll(cols, rows int)
	CreateAndStart(n sessions.NewChat, cols, rows int) (*sessions.Meta, error)
	Fill() error

	// Prompt sends text and the files it links (resource_link blocks).
	Prompt(ctx context.Context, id, text string, links ...proto.Link) (string, error)
	Cancel(id string) error
	AnswerPermission(id, optionID string) error

	// Look says which chat the user sees now ("" for none): it is not
	// announced nor marked unread while they do. It may block.
	Look(id string) error
	// Notices delivers chats that ask for the user or finished a turn
	// while nobody looked at them.
	Notices() <-chan proto.Notice
	// News delivers what the server tells of changes made outside this
	// client: chat files changed on disk (by hand, another acpmux-tui
	// process, or the server), a config file it refused.
	News() <-chan proto.News

	// Export has the server write chat id's bundle to path (absolute). It
	// may block.
	Export(id, path string) (proto.ExportReport, error)
	// Import has the server add a chat from the bundle at path (absolute),
	// keeping its folders only inside roots; with dryRun nothing is
	// written and the report says what would be kept and dropped. It may
	// block.
	Import(path string, roots []string, dryRun bool) (proto.ImportReport, error)
}

// ChatStore is the chat store as the server keeps it (client.Remote's
// calls of the server's chat methods). Every method may block.
type ChatStore interface {
	// ChatLists is what the folder picker needs.
	ChatLists
	// List returns every chat, in the store's order; Chat one of them.
	List() ([]sessions.Entry, error)
	// Create stores a new chat without starting it.
	Create(n sessions.NewChat) (*sessions.Meta, error)
	// Derive makes a fork, side chat or handoff of parent (d.Capsule its
	// first message); nothing is started.
	Derive(parent string, d sessions.Derivation) (*sessions.Meta, error)
	// Capsule is the capsule derivation d of parent would carry ("" for
	// none), written by the server that runs the parent: from the chat as
	// it holds it and from its harness's session log in the environment
	// the harness runs in. Nothing is made; it may block.
	Capsule(parent string, d sessions.Derivation) (string, error)
	// Rename renames a chat; a refused name changes nothing.
	Rename(id, name string) (*sessions.Meta, error)
	// RemoveMissing drops the chat's stored folders and files that fail
	// the check of every start, and says which.
	RemoveMissing(id string) (proto.RemoveMissingResult, error)
	// Remove stops and deletes a chat, its own folder with the files in
	// it only when force is set; with dryRun it only says what the
	// folder holds.
	Remove(id string, force, dryRun bool) (proto.RemoveReport, error)
}

// Reviews is what the review pane needs of the server: what a chat
// changed and one file's diff, computed by the server of the chat's host,
// where its folders are (_acpmux/review, _acpmux/reviewDiff). Both may
// block.
type Reviews interface {
	Review(id string, side proto.ReviewSide) ([]proto.ReviewSection, error)
	ReviewDiff(id string, s proto.ReviewSection, f proto.ReviewFile) (proto.ReviewDiff, error)
}

// ChatLists is what the folder picker needs of the server: the shared
// validator (with the agent home's rule), one chat as stored, and the
// writes of its folders and files.
type ChatLists interface {
	// Validate returns the lists in canonical form, or the refusal that
	// names every bad entry of both.
	Validate(cwd string, dirs, files []string) ([]string, []string, error)
	Chat(id string) (sessions.Entry, error)
	AddFolders(id string, dirs []string) (*sessions.Meta, error)
	RemoveFolders(id string, dirs []string) (*sessions.Meta, error)
	// SetFiles replaces a chat's single files (_acpmux/setFiles: the
	// shared validator passes the whole list or refuses it, changing
	// nothing) and returns the chat as stored then; a running chat takes
	// them at the end of its turn.
	SetFiles(id string, files []string) (*sessions.Meta, error)
}

// Common is what every component shares: styles, key map, logger.
type Common struct {
	Styles *Styles
	Keys   config.KeyMap
	Log    *slog.Logger
}

// chatsChangedMsg carries the chats the mux reported changed within one
// frame. echo, when set, is the chat a key was typed into whose change
// (the key's echo) made the message go at once: the model has it drawn at
// once too (Model.Urgent).
type chatsChangedMsg struct {
	ids  []string
	echo string
}

// changeGate remembers when change notices were last handed to the model
// (only one waitChanges runs at a time, each started after the model took
// the last one's message), and the chat a key was just typed into, whose
// next change is awaited as its echo.
type changeGate struct {
	last time.Time
	// echo is set by the UI goroutine as a key goes to a chat, and taken
	// by waitChanges' goroutine when that chat's change comes.
	echo atomic.Pointer[string]
}

// expectEcho marks chat id's next change as a key's echo.
func (g *changeGate) expectEcho(id string) { g.echo.Store(&id) }

// takeEcho reports whether id's change is the awaited echo, and if so
// awaits none after it (the changes that follow, a flood perhaps, are
// gathered by frame again).
func (g *changeGate) takeEcho(id string) bool {
	p := g.echo.Load()
	return p != nil && *p == id && g.echo.CompareAndSwap(p, nil)
}

// waitChanges reads the mux's change notices. A notice that comes after a
// frame of quiet goes at once, with whatever else is already queued, and
// so does a key's echo (the first change of the chat a key was just typed
// into) whenever it comes; within a frame of the last delivery any other
// notice waits for that frame's end, gathering every other notice, so a
// flood of output from many chats is still one message per frame.
func waitChanges(ch <-chan string, frame time.Duration, gate *changeGate) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		first, ok := <-ch
		if !ok {
			return nil
		}
		msg := chatsChangedMsg{ids: []string{first}}
		seen := map[string]bool{first: true}
		add := func(id string) {
			if !seen[id] {
				seen[id] = true
				msg.ids = append(msg.ids, id)
			}
		}
		if gate.takeEcho(first) {
			msg.echo = first
		}
		defer func() { gate.last = time.Now() }()
		wait := time.Until(gate.last.Add(frame))
		if wait <= 0 || msg.echo != "" {
			for {
				select {
				case id, ok := <-ch:
					if !ok {
						return msg
					}
					add(id)
				default:
					return msg
				}
			}
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		for {
			select {
			case id, ok := <-ch:
				if !ok {
					return msg
				}
				add(id)
				if gate.takeEcho(id) {
					msg.echo = id
					return msg
				}
			case <-timer.C:
				return msg
			}
		}
	}
}

// writeErrMsg reports a failed write of input to a harness.
type writeErrMsg struct {
	id  string
	err error
}

// inputWriter sends keys to harnesses in the order they were typed. A key
// goes from the UI goroutine itself when nothing else is on its way (the
// common case: keys typed by hand, each answered long before the next),
// with no goroutine woken to send it nor to wait for its answer; else it
// joins a queue that a writer goroutine sends in order, off the UI
// goroutine, since a write may block while the harness is busy.
type inputWriter struct {
	queue chan writeReq
	errs  chan writeErrMsg
	// now sends at once (nil: the Mux cannot); ready reports whether it
	// may, that is whether nothing must go to the server first.
	now   func(id string, b []byte, done func(error)) error
	ready func() bool
	// busy counts the writes queued or not yet answered: one goes at once
	// only when it is 0, so no key overtakes another.
	busy atomic.Int64
	// idle runs once busy is 0 again (whenIdle).
	mu   sync.Mutex
	idle []func()
}

// nowWriter is a Mux that can send input at once (client.Router).
type nowWriter interface {
	WriteNow(id string, b []byte, done func(error)) error
}

// maxNow is the most input sent at once from the UI goroutine: a paste
// longer than that is queued, so a socket that cannot take it whole blocks
// the writer, never the UI.
const maxNow = 4 << 10

type writeReq struct {
	id string
	b  []byte
}

// newInputWriter starts the writer; before runs ahead of each write (the
// TUI sends there which chat its user sees, so that reaches the server
// before the keys typed after it changed), and ready reports whether
// before has nothing to send.
func newInputWriter(m Mux, before func(), ready func() bool) *inputWriter {
	w := &inputWriter{queue: make(chan writeReq, 4096), errs: make(chan writeErrMsg, 16), ready: ready}
	if nw, ok := m.(nowWriter); ok {
		w.now = nw.WriteNow
	}
	go func() {
		for req := range w.queue {
			before()
			w.report(req.id, m.Write(req.id, req.b))
			w.answered()
		}
	}()
	return w
}

// report hands a failed write to the UI.
func (w *inputWriter) report(id string, err error) {
	if err == nil {
		return
	}
	select {
	case w.errs <- writeErrMsg{id, err}:
	default: // the UI has not taken the last error yet
	}
}

// send sends input at once when it can, else queues it; when the harness
// is so far behind that the queue is full, the input is dropped and
// reported rather than blocking the UI.
func (w *inputWriter) send(id string, b []byte) bool {
	if w.now != nil && len(b) <= maxNow && w.ready() && w.busy.CompareAndSwap(0, 1) {
		err := w.now(id, b, func(err error) {
			w.report(id, err)
			w.answered()
		})
		if err == nil {
			return true
		}
		// Not sent: the queue takes it, counted already.
	} else {
		w.busy.Add(1)
	}
	select {
	case w.queue <- writeReq{id, b}:
		return true
	default:
		w.answered()
		return false
	}
}

// answered counts a write off busy, and runs what waited for none.
func (w *inputWriter) answered() {
	if w.busy.Add(-1) != 0 {
		return
	}
	w.mu.Lock()
	idle := w.idle
	w.idle = nil
	w.mu.Unlock()
	for _, f := range idle {
		f()
	}
}

// whenIdle runs f once every write sent so far has been answered: now,
// when none is on its way.
func (w *inputWriter) whenIdle(f func()) {
	w.mu.Lock()
	if w.busy.Load() != 0 {
		w.idle = append(w.idle, f)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	f()
}

func (w *inputWriter) close() { close(w.queue) }

// waitWriteErr delivers the writer's next error.
func (w *inputWriter) waitWriteErr() tea.Cmd {
	return func() tea.Msg { return <-w.errs }
}
