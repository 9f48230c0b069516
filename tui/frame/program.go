package frame

import (
	"reflect"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// This file is the model a Renderer gives the program: it passes every
// message to the app's model and decides when its view is drawn. Bubble
// Tea calls Update and View on its one event loop, so the drawing needs no
// lock of its own beyond the Renderer's.

// frameDueMsg ends a frame in which changes were gathered.
type frameDueMsg struct{}

// sizeMsg is the window's size, read at start (rearm false) or after a
// SIGWINCH (rearm true: wait for the next one).
type sizeMsg struct {
	w, h  int
	rearm bool
}

// modeSeqs are Bubble Tea's terminal-mode commands (their messages reach
// the model, as the renderer they were meant for is not there), and what
// each writes. Their messages are empty structs of unexported types: a
// message is one of them when its type is. The alternate screen is always
// on while the Renderer runs.
var modeSeqs = []struct {
	msg reflect.Type
	seq string
}{
	{reflect.TypeOf(tea.EnableReportFocus()), "\x1b[?1004h"},
	{reflect.TypeOf(tea.DisableReportFocus()), "\x1b[?1004l"},
	{reflect.TypeOf(tea.EnableBracketedPaste()), "\x1b[?2004h"},
	{reflect.TypeOf(tea.DisableBracketedPaste()), "\x1b[?2004l"},
	{reflect.TypeOf(tea.EnableMouseCellMotion()), "\x1b[?1002h\x1b[?1006h"},
	{reflect.TypeOf(tea.EnableMouseAllMotion()), "\x1b[?1003h\x1b[?1006h"},
	{reflect.TypeOf(tea.DisableMouse()), "\x1b[?1002l\x1b[?1003l\x1b[?1006l"},
}

// modeSeq is what a terminal-mode message writes ("" for any other).
func modeSeq(msg tea.Msg) string {
	t := reflect.TypeOf(msg)
	for _, m := range modeSeqs {
		if t == m.msg {
			return m.seq
		}
	}
	return ""
}

// Wrap returns the model to give tea.NewProgram (with tea.WithoutRenderer):
// m, drawn by r.
func (r *Renderer) Wrap(m tea.Model) tea.Model { return &drawn{r: r, m: m} }

// drawn is an app's model, drawn by a Renderer when it changes.
type drawn struct {
	r        *Renderer
	m        tea.Model
	dirty    bool      // a message reached m since the last draw
	due      bool      // a frameDueMsg is on its way
	lastDraw time.Time // when the view was last drawn
	// sized is set once the window's size was read at start: no frame is
	// drawn before it. A frame drawn without it (a message that came
	// first) made the first true frame wait for the end of its frame.
	sized bool
}

// Init starts the app's model, reads the window's size and waits for its
// changes.
func (d *drawn) Init() tea.Cmd {
	r := d.r
	first := func() tea.Msg {
		w, h := r.size()
		return sizeMsg{w: w, h: h}
	}
	return tea.Batch(d.m.Init(), first, r.waitResize())
}

// waitResize waits for the next window size change, until Stop.
func (r *Renderer) waitResize() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-r.winch:
			w, h := r.size()
			return sizeMsg{w: w, h: h, rearm: true}
		case <-r.done:
			return nil
		}
	}
}

// Update passes msg to the app's model and draws, or schedules a draw at
// the frame's end. A panic gives the terminal back before it goes on, so
// Bubble Tea's report of it lands on the user's screen.
func (d *drawn) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer d.r.stopOnPanic()
	var own tea.Cmd
	switch msg := msg.(type) {
	case frameDueMsg:
		d.due = false
		if d.dirty {
			d.draw()
		}
		return d, nil
	case sizeMsg:
		if msg.rearm {
			own = d.r.waitResize()
		}
		if msg.w <= 0 || msg.h <= 0 {
			if !d.sized {
				// No size to be had: the frames go as they are.
				d.sized = true
				return d, tea.Batch(own, d.schedule())
			}
			return d, own
		}
		d.sized = true
		d.r.setSize(msg.w, msg.h)
		return d.update(tea.WindowSizeMsg{Width: msg.w, Height: msg.h}, own)
	}
	if seq := modeSeq(msg); seq != "" {
		d.r.Emit(seq)
	}
	return d.update(msg, own)
}

// Unchanging is a model that can tell that the message it was given last
// changed nothing its View draws: the Renderer then draws nothing for it.
// A model that is not sure says false.
type Unchanging interface {
	Unchanged() bool
}

// Urgent is a model that can tell that the message it was given last must
// be drawn at once, even inside a frame of changes being gathered: the
// echo of a key the user waits for. The draw takes the frame's gathered
// changes with it; the frame's end then has nothing left to draw.
type Urgent interface {
	Urgent() bool
}

// Lined is a model that gives its view as lines (View split at its
// newlines), which the Renderer keeps as they are: a model that keeps the
// strings of rows that did not change saves their copies and compares.
type Lined interface {
	ViewLines() []string
}

// update gives msg to the app's model and has the change drawn.
func (d *drawn) update(msg tea.Msg, own tea.Cmd) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	d.m, cmd = d.m.Update(msg)
	if u, ok := d.m.(Unchanging); ok && u.Unchanged() {
		return d, tea.Batch(cmd, own)
	}
	d.dirty = true
	if u, ok := d.m.(Urgent); ok && u.Urgent() && d.sized {
		d.draw()
		return d, tea.Batch(cmd, own)
	}
	return d, tea.Batch(cmd, own, d.schedule())
}

// schedule draws now when the last draw is a frame old (the first change
// after a quiet spell shows at once); within a frame it has one frameDueMsg
// come at the frame's end, and the changes until then are drawn together.
func (d *drawn) schedule() tea.Cmd {
	if d.due || !d.sized {
		return nil
	}
	since := d.r.opt.Now().Sub(d.lastDraw)
	if since >= d.r.opt.Frame {
		d.draw()
		return nil
	}
	d.due = true
	return tea.Tick(d.r.opt.Frame-since, func(time.Time) tea.Msg { return frameDueMsg{} })
}

// draw draws the app's view. A view that came out as the screen shows it
// already wrote nothing, and starts no frame: a key typed into a chat
// changes nothing until its echo comes, which is then drawn at once.
func (d *drawn) draw() {
	var wrote bool
	if l, ok := d.m.(Lined); ok {
		wrote = d.r.drawLines(l.ViewLines())
	} else {
		wrote = d.r.draw(d.m.View())
	}
	d.dirty = false
	if wrote {
		d.lastDraw = d.r.opt.Now()
	}
}

// View is empty: the Renderer has drawn the app's view already, and Bubble
// Tea, which calls this after every message, has no renderer to give it to.
func (d *drawn) View() string { return "" }

// stopOnPanic gives the terminal back when the app's model panics, and
// lets the panic go on.
func (r *Renderer) stopOnPanic() {
	if v := recover(); v != nil {
		r.Stop()
		panic(v)
	}
}
