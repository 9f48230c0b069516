package frame

import (
	"bytes"

	"github.com/charmbracelet/x/ansi"
)

// This file is the Renderer's side of a rectangle of the screen lent to
// another writer (a chat pane the server draws itself: Input.Want). While
// it is lent, the frames leave its cells alone, and everything the
// Renderer writes goes through the loan, so that the terminal has one
// writer and no sequence of one cuts into another's.

// Hole is a rectangle of the screen, in cells from the top left (0-based).
type Hole struct{ X, Y, W, H int }

// rows reports whether screen row i crosses the hole.
func (h Hole) rows(i int) bool { return i >= h.Y && i < h.Y+h.H }

// loanOut is where a lent Renderer writes: held until the loan is made
// (Hold), then the loan's draw (LendTo).
type loanOut struct {
	hole Hole
	draw func([]byte) // nil while held
	held []byte
}

// write writes b through the loan, or holds it until the loan is made.
func (l *loanOut) write(b []byte) {
	if l.draw == nil {
		l.held = append(l.held, b...)
		return
	}
	l.draw(b)
}

// around appends line i's cells left and right of the hole, each only when
// it differs from old's.
func (l *loanOut) around(b *bytes.Buffer, i int, line, old string, width int) {
	h := l.hole
	if left := ansi.Cut(line, 0, h.X); h.X > 0 && (old == "" || left != ansi.Cut(old, 0, h.X)) {
		b.WriteString(ansi.CursorPosition(1, i+1) + ansi.ResetStyle)
		b.WriteString(left)
		b.WriteString(ansi.ResetStyle)
	}
	end := h.X + h.W
	if width > 0 && end >= width {
		return
	}
	w := width
	if w <= 0 {
		w = end + max(ansi.StringWidth(line), ansi.StringWidth(old))
	}
	right := ansi.Cut(line, end, w)
	if old != "" && right == ansi.Cut(old, end, w) {
		return
	}
	b.WriteString(ansi.CursorPosition(end+1, i+1) + ansi.ResetStyle)
	b.WriteString(right)
	if width <= 0 || end+ansi.StringWidth(right) < width {
		b.WriteString(ansi.EraseLineRight)
	}
	b.WriteString(ansi.ResetStyle)
}

// Hold lends the hole: from now on the frames leave its cells alone, and
// what the Renderer writes is held until LendTo or Unlend.
func (r *Renderer) Hold(hole Hole) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lent = &loanOut{hole: hole}
}

// LendTo has what the Renderer writes, and what it held, go to draw, the
// loan's writer.
func (r *Renderer) LendTo(draw func([]byte)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lent
	if l == nil {
		return
	}
	l.draw = draw
	if len(l.held) > 0 {
		draw(l.held)
		l.held = nil
	}
}

// Unlend takes the hole back, its writer having stopped: the hole's rows
// are drawn again at once from the last frame (frames drawn while lent
// left them alone, so the screen may hold rows the model has changed
// since), and every row when lost reports that something of the
// Renderer's may not have been written. lost is asked under the
// Renderer's lock, after the last frame that went to the loan: a frame
// drawn while Unlend waits for the lock is counted.
func (r *Renderer) Unlend(lost func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lent
	if l == nil {
		return
	}
	r.lent = nil
	whole := lost != nil && lost()
	if !r.started || r.stopped {
		return
	}
	lines := r.last
	r.last = make([]string, len(lines))
	for i := range lines {
		if whole || l.hole.rows(i) {
			r.last[i] = "\x00" // no line is this: drawn again
		} else {
			r.last[i] = lines[i]
		}
	}
	r.drawLinesLocked(lines)
}
