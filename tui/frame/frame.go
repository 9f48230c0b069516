// Package frame draws a Bubble Tea program's view on a terminal only when
// the model changed, in place of Bubble Tea's standard renderer, which
// wakes at its frame rate forever even when nothing changed (most of what
// an idle TUI costs).
//
// A Renderer owns the terminal while it runs: Start puts the input in raw
// mode, enters the alternate screen, hides the cursor and turns on mouse
// cell motion (SGR) and bracketed paste; Stop undoes all of it and is safe
// to call on every exit path, more than once. Wrap gives the program a
// model that draws: the first change after a quiet spell is drawn at once,
// later changes within a frame are gathered into one draw at the frame's
// end (but a change the model calls Urgent, a key's echo, is drawn at
// once with them), and nothing runs when nothing changes. A frame writes only the
// lines that differ from the last one; a new window size repaints them all.
// Emit writes escape sequences of the caller's (a title, a notification,
// the bell) between frames, never inside one.
//
// The program must run with tea.WithoutRenderer(): Bubble Tea then leaves
// the terminal to the Renderer, and sends no window sizes of its own.
package frame

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"
)

// DefaultFrame is how long changes are gathered after a draw.
const DefaultFrame = 16 * time.Millisecond

// The modes a running Renderer holds, and how each is left.
const (
	enterModes = ansi.SetModeAltScreenSaveCursor + ansi.EraseEntireScreen + ansi.CursorHomePosition +
		ansi.HideCursor + "\x1b[?1002h" + "\x1b[?1006h" + "\x1b[?2004h" // mouse cell motion, SGR mouse, bracketed paste
	leaveModes = "\x1b[?1002l" + "\x1b[?1003l" + "\x1b[?1006l" + "\x1b[?2004l" + "\x1b[?1004l" + // mouse, paste, focus
		ansi.ResetStyle + ansi.ShowCursor + ansi.ResetModeAltScreenSaveCursor
)

// Options configure a Renderer.
type Options struct {
	// In is the terminal's input, put in raw mode while the Renderer runs
	// (nil, or not a terminal: left as it is).
	In *os.File
	// Out is where frames go.
	Out io.Writer
	// Size reads the window's size; nil reads Out's, when Out is a
	// terminal.
	Size func() (width, height int, err error)
	// Frame is how long changes are gathered after a draw (DefaultFrame
	// when 0).
	Frame time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Renderer draws frames on a terminal; see the package comment.
type Renderer struct {
	opt Options

	winch chan os.Signal // window size changes, while running
	done  chan struct{}  // closed by Stop

	// mu orders everything written to Out: a frame is one write under it,
	// and so is each Emit.
	mu       sync.Mutex
	started  bool
	stopped  bool
	rawState *term.State
	width    int
	height   int
	last     []string // the lines on the screen
	repaint  bool     // the next frame draws every line
	buf      bytes.Buffer
	// lent is set while a rectangle of the screen is lent (Hold, LendTo).
	lent *loanOut
	// first is closed once a frame was written (FirstFrame).
	first     chan struct{}
	firstOnce sync.Once
}

// New makes a Renderer; nothing is written until Start.
func New(opt Options) *Renderer {
	if opt.Frame <= 0 {
		opt.Frame = DefaultFrame
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Size == nil {
		f, ok := opt.Out.(*os.File)
		opt.Size = func() (int, int, error) {
			if !ok {
				return 0, 0, nil
			}
			return term.GetSize(int(f.Fd()))
		}
	}
	return &Renderer{opt: opt, winch: make(chan os.Signal, 1), done: make(chan struct{}), repaint: true, first: make(chan struct{})}
}

// FirstFrame is closed once the first frame has been written.
func (r *Renderer) FirstFrame() <-chan struct{} { return r.first }

// Start takes the terminal: raw input, the alternate screen, no cursor,
// mouse cell motion and bracketed paste. Window size changes are watched
// from here on.
func (r *Renderer) Start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return nil
	}
	if in := r.opt.In; in != nil && term.IsTerminal(int(in.Fd())) {
		st, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return err
		}
		r.rawState = st
	}
	r.started = true
	signal.Notify(r.winch, syscall.SIGWINCH)
	_, err := io.WriteString(r.opt.Out, enterModes)
	return err
}

// Stop gives the terminal back as Start found it. It may be called on any
// path out, more than once; nothing is drawn or emitted after it.
func (r *Renderer) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.stopped {
		r.stopped = true
		return
	}
	r.stopped = true
	signal.Stop(r.winch)
	close(r.done)
	_, _ = io.WriteString(r.opt.Out, leaveModes)
	if r.rawState != nil && r.opt.In != nil {
		_ = term.Restore(int(r.opt.In.Fd()), r.rawState)
	}
}

// Emit writes seq to the terminal between two frames (never inside one):
// a window title, a desktop notification (OSC 777 or OSC 9), the bell. It
// may be called from any goroutine; before Start and after Stop it writes
// nothing.
func (r *Renderer) Emit(seq string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.stopped || seq == "" {
		return
	}
	r.writeLocked([]byte(seq))
}

// writeLocked writes b to the terminal, or to the loan while a rectangle
// is lent; r.mu is held.
func (r *Renderer) writeLocked(b []byte) {
	if r.lent != nil {
		r.lent.write(b)
		return
	}
	_, _ = r.opt.Out.Write(b)
}

// setSize takes a new window size; the next frame repaints every line.
func (r *Renderer) setSize(w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w != r.width || h != r.height {
		r.width, r.height = w, h
		r.repaint = true
	}
}

// size reads the window's size now.
func (r *Renderer) size() (int, int) {
	w, h, err := r.opt.Size()
	if err != nil {
		return 0, 0
	}
	return w, h
}

// draw writes the lines of view that differ from the screen's, each cut to
// the window's width, and clears what is left below a shorter frame. It
// reports whether it wrote anything.
func (r *Renderer) draw(view string) bool {
	return r.drawLines(strings.Split(view, "\n"))
}

// drawLines is draw of a view given as its lines, which it keeps.
func (r *Renderer) drawLines(lines []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.stopped {
		return false
	}
	return r.drawLinesLocked(lines)
}

// drawLinesLocked is drawLines with r.mu held.
func (r *Renderer) drawLinesLocked(lines []string) bool {
	if r.height > 0 && len(lines) > r.height {
		// Lines past the window's foot would scroll the screen: the top
		// ones go, as Bubble Tea's standard renderer drops them.
		lines = lines[len(lines)-r.height:]
	}
	b := &r.buf
	b.Reset()
	if r.repaint {
		if r.lent == nil {
			b.WriteString(ansi.ResetStyle + ansi.EraseEntireScreen)
		} // else every line is drawn whole, and the lent rectangle kept
		r.last, r.repaint = nil, false
	}
	for i, line := range lines {
		if i < len(r.last) && r.last[i] == line {
			continue
		}
		if r.lent != nil && r.lent.hole.rows(i) {
			old := ""
			if i < len(r.last) {
				old = r.last[i]
			}
			r.lent.around(b, i, line, old, r.width)
			continue
		}
		b.WriteString(ansi.CursorPosition(1, i+1))
		if r.width > 0 {
			line = ansi.Truncate(line, r.width, "")
			if ansi.StringWidth(line) < r.width {
				// Past the text, the old line's rest is cleared; a line as
				// wide as the window has no rest (and an erase at its last
				// cell would take that cell).
				line += ansi.EraseLineRight
			}
		} else {
			line += ansi.EraseLineRight
		}
		b.WriteString(line)
	}
	if len(lines) < len(r.last) {
		b.WriteString(ansi.ResetStyle + ansi.CursorPosition(1, len(lines)+1) + ansi.EraseScreenBelow)
	}
	r.last = lines
	if b.Len() == 0 {
		return false
	}
	r.writeLocked(b.Bytes())
	r.firstOnce.Do(func() { close(r.first) })
	return true
}
