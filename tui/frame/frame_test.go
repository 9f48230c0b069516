package frame

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// screenOut is a terminal's output, safe to read while a Renderer writes.
type screenOut struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screenOut) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// take returns what was written since the last take.
func (s *screenOut) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.buf.String()
	s.buf.Reset()
	return out
}

// clock is a clock a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// textModel shows its text; a string message replaces it, anything else
// changes nothing.
type textModel struct{ text string }

func (m *textModel) Init() tea.Cmd { return nil }
func (m *textModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(string); ok {
		m.text = s
	}
	return m, nil
}
func (m *textModel) View() string { return m.text }

// running returns a started Renderer of a w x h window (its size read as
// that) writing to out; what Start wrote is taken already.
func running(t *testing.T, w, h int, c *clock) (*Renderer, *screenOut) {
	t.Helper()
	out := &screenOut{}
	r := New(Options{Out: out, Size: func() (int, int, error) { return w, h, nil }, Now: c.now})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	if got := out.take(); got != enterModes {
		t.Fatalf("Start wrote %q, want %q", got, enterModes)
	}
	return r, out
}

// started returns a running Renderer of a w x h window writing to out, and
// the model it draws; what Start wrote is taken already.
func started(t *testing.T, w, h int, c *clock) (*Renderer, *drawn, *screenOut) {
	t.Helper()
	r, out := running(t, w, h, c)
	d := r.Wrap(&textModel{}).(*drawn)
	d.Update(sizeMsg{w: w, h: h})
	out.take()
	return r, d, out
}

func TestFrameWritesOnlyChangedLines(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	_, d, out := started(t, 10, 3, c)
	c.advance(time.Second)
	d.Update("one\ntwo\nthree")
	if got := out.take(); !strings.Contains(got, "one") || !strings.Contains(got, "two") || !strings.Contains(got, "three") {
		t.Fatalf("first frame %q does not draw every line", got)
	}
	c.advance(time.Second)
	d.Update("one\nTWO\nthree")
	want := ansi.CursorPosition(1, 2) + "TWO" + ansi.EraseLineRight
	if got := out.take(); got != want {
		t.Fatalf("second frame wrote %q, want only the changed line %q", got, want)
	}
	c.advance(time.Second)
	d.Update("nothing visible") // replaced below before any draw
	out.take()
	c.advance(time.Second)
	d.Update(struct{}{}) // a message that changes nothing on the screen
	if got := out.take(); got != "" {
		t.Fatalf("an unchanged view wrote %q", got)
	}
}

func TestFrameCutsLinesAndClearsBelow(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	_, d, out := started(t, 4, 5, c)
	c.advance(time.Second)
	d.Update("abcdefgh\nxy\nz")
	got := out.take()
	if strings.Contains(got, "abcde") || !strings.Contains(got, "abcd") {
		t.Fatalf("a line wider than the window was not cut to it: %q", got)
	}
	c.advance(time.Second)
	d.Update("abcdefgh")
	want := ansi.ResetStyle + ansi.CursorPosition(1, 2) + ansi.EraseScreenBelow
	if got := out.take(); got != want {
		t.Fatalf("a shorter frame wrote %q, want the rest cleared: %q", got, want)
	}
}

func TestFrameRepaintsAfterResize(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	_, d, out := started(t, 10, 3, c)
	c.advance(time.Second)
	d.Update("one\ntwo")
	out.take()
	c.advance(time.Second)
	d.Update(sizeMsg{w: 12, h: 3})
	got := out.take()
	if !strings.HasPrefix(got, ansi.ResetStyle+ansi.EraseEntireScreen) || !strings.Contains(got, "one") || !strings.Contains(got, "two") {
		t.Fatalf("after a resize the frame %q is not a clear screen with every line", got)
	}
	if d.m.(*textModel).text != "one\ntwo" {
		t.Fatal("the resize did not reach the model")
	}
}

func TestFrameGathersChangesWithinAFrame(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	_, d, out := started(t, 10, 3, c)
	c.advance(time.Second)
	// The first change after a quiet spell is drawn at once.
	if _, cmd := d.Update("a"); cmd != nil {
		t.Fatal("a change after a quiet spell scheduled a frame instead of drawing")
	}
	if got := out.take(); !strings.Contains(got, "a") {
		t.Fatalf("the first change was not drawn at once: %q", got)
	}
	// Changes within the frame wait for its end, and are drawn once.
	c.advance(time.Millisecond)
	_, cmd := d.Update("b")
	if cmd == nil {
		t.Fatal("a change within the frame scheduled nothing")
	}
	c.advance(time.Millisecond)
	if _, again := d.Update("c"); again != nil {
		t.Fatal("a second change within the frame scheduled a second frame")
	}
	if got := out.take(); got != "" {
		t.Fatalf("changes within the frame were drawn before its end: %q", got)
	}
	c.advance(DefaultFrame)
	d.Update(frameDueMsg{})
	if got := out.take(); got != ansi.CursorPosition(1, 1)+"c"+ansi.EraseLineRight {
		t.Fatalf("the frame's end drew %q, want the last view once", got)
	}
	// With nothing changed since, a frame's end draws nothing.
	d.Update(frameDueMsg{})
	if got := out.take(); got != "" {
		t.Fatalf("a frame's end with no change drew %q", got)
	}
	// A message that leaves the view as it is (a key sent on to a chat)
	// writes nothing and starts no frame: the change after it (the key's
	// echo) is drawn at once.
	c.advance(DefaultFrame)
	if _, cmd := d.Update("c"); cmd != nil || out.take() != "" {
		t.Fatal("an unchanged view wrote something or scheduled a frame")
	}
	c.advance(time.Millisecond)
	if _, cmd := d.Update("d"); cmd != nil {
		t.Fatal("the change after an unchanged view waited for a frame")
	}
	if got := out.take(); !strings.Contains(got, "d") {
		t.Fatalf("the change after an unchanged view was not drawn at once: %q", got)
	}
}

func TestEmitWritesBetweenFrames(t *testing.T) {
	out := &screenOut{}
	r := New(Options{Out: out, Size: func() (int, int, error) { return 10, 2, nil }})
	r.Emit("\a")
	if got := out.take(); got != "" {
		t.Fatalf("Emit before Start wrote %q", got)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	out.take()
	const title = "\x1b]2;acpmux\a"
	const notify = "\x1b]777;notify;done;chat x\a"
	r.Emit(title)
	if got := out.take(); got != title {
		t.Fatalf("Emit wrote %q, want %q", got, title)
	}
	// Many emitters while frames are drawn: each sequence and each frame
	// is written whole, never one inside the other.
	d := r.Wrap(&textModel{}).(*drawn)
	d.Update(sizeMsg{w: 10, h: 2})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				r.Emit(notify)
			}
		})
	}
	for i := range 200 {
		d.draw()
		d.m.Update(strings.Repeat(string(rune('a'+i%26)), 10))
	}
	wg.Wait()
	got := out.take()
	if n := strings.Count(got, notify); n != 200 {
		t.Fatalf("%d notifications written whole, want 200", n)
	}
	// Take every notification out: what is left must be whole frames.
	for _, frame := range strings.Split(strings.ReplaceAll(got, notify, "\x00"), "\x00") {
		if frame != "" && !strings.HasPrefix(frame, ansi.CursorPosition(1, 1)) && !strings.HasPrefix(frame, ansi.ResetStyle) {
			t.Fatalf("a notification was written inside a frame: %q", frame)
		}
	}
	r.Stop()
	out.take()
	r.Emit("\a")
	if got := out.take(); got != "" {
		t.Fatalf("Emit after Stop wrote %q", got)
	}
}

func TestStopRestoresOnceAndDrawsNothingAfter(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	r, d, out := started(t, 10, 3, c)
	r.Stop()
	r.Stop()
	if got := out.take(); got != leaveModes {
		t.Fatalf("Stop twice wrote %q, want %q once", got, leaveModes)
	}
	c.advance(time.Second)
	d.Update("late")
	if got := out.take(); got != "" {
		t.Fatalf("a frame after Stop wrote %q", got)
	}
}

// panicModel panics on any string message.
type panicModel struct{ textModel }

func (m *panicModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(string); ok {
		panic("boom")
	}
	return m, nil
}

func TestPanicGivesTheTerminalBack(t *testing.T) {
	out := &screenOut{}
	r := New(Options{Out: out, Size: func() (int, int, error) { return 10, 3, nil }})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	out.take()
	d := r.Wrap(&panicModel{})
	defer func() {
		if v := recover(); v != "boom" {
			t.Fatalf("recovered %v, want the model's panic to go on", v)
		}
		if got := out.take(); got != leaveModes {
			t.Fatalf("a panic wrote %q, want the terminal given back: %q", got, leaveModes)
		}
	}()
	d.Update("x")
}

func TestModeCommandsReachTheTerminal(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	_, d, out := started(t, 10, 3, c)
	d.Update(tea.EnableReportFocus())
	if got := out.take(); !strings.HasPrefix(got, "\x1b[?1004h") {
		t.Fatalf("EnableReportFocus wrote %q", got)
	}
	// A message of a type that cannot be a map key or be compared passes
	// like any other.
	type unhashable struct{ ids []string }
	c.advance(time.Second)
	d.Update(unhashable{ids: []string{"x"}})
	if got := out.take(); got != "" {
		t.Fatalf("a message that changes nothing wrote %q", got)
	}
}

// stillModel is a textModel that says which messages changed nothing.
type stillModel struct {
	textModel
	still bool
}

func (m *stillModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.still = msg == "still"
	if !m.still {
		m.textModel.Update(msg)
	}
	return m, nil
}
func (m *stillModel) Unchanged() bool { return m.still }

func TestNoDrawForAMessageThatChangedNothing(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	r, out := running(t, 10, 3, c)
	m := &stillModel{}
	d := r.Wrap(m).(*drawn)
	d.Update(sizeMsg{w: 10, h: 3})
	c.advance(time.Second)
	d.Update("a")
	out.take()
	c.advance(time.Second)
	// The model is not asked for its view at all: a view that changed
	// behind its back (which a real model would not do) stays undrawn.
	m.text = "b"
	if _, cmd := d.Update("still"); cmd != nil {
		t.Fatal("a message that changed nothing scheduled a frame")
	}
	if got := out.take(); got != "" {
		t.Fatalf("a message that changed nothing drew %q", got)
	}
	d.Update("c")
	if got := out.take(); !strings.Contains(got, "c") {
		t.Fatalf("a change after it was not drawn: %q", got)
	}
}

// TestNoFrameBeforeTheSize: a message that reaches the model before the
// window's size was read draws nothing and starts no frame; the size then
// draws the view at once, not at the end of a frame begun without it. A
// window whose size cannot be read is drawn as it comes.
func TestNoFrameBeforeTheSize(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	r, out := running(t, 10, 3, c)
	d := r.Wrap(&textModel{}).(*drawn)
	if _, cmd := d.Update("early"); cmd != nil {
		t.Fatal("a message before the size scheduled a frame")
	}
	if got := out.take(); got != "" {
		t.Fatalf("a message before the size drew %q", got)
	}
	c.advance(time.Millisecond)
	if _, cmd := d.Update(sizeMsg{w: 10, h: 3}); cmd != nil {
		t.Fatal("the size scheduled a frame instead of drawing")
	}
	if got := out.take(); !strings.Contains(got, "early") {
		t.Fatalf("the size did not draw the view at once: %q", got)
	}

	unsized, out := running(t, 0, 0, c)
	u := unsized.Wrap(&textModel{}).(*drawn)
	u.Update("text")
	u.Update(sizeMsg{})
	if got := out.take(); !strings.Contains(got, "text") {
		t.Fatalf("with no size to be had the view was not drawn: %q", got)
	}
}

// urgentModel is a textModel whose messages of type echo are urgent.
type urgentModel struct {
	textModel
	urgent bool
}

type echo string

func (m *urgentModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.urgent = false
	if e, ok := msg.(echo); ok {
		m.text, m.urgent = string(e), true
		return m, nil
	}
	m.textModel.Update(msg)
	return m, nil
}
func (m *urgentModel) Urgent() bool { return m.urgent }

// TestUrgentChangeIsDrawnInsideAFrame: a change the model calls urgent (a
// key's echo) is drawn at once even inside a frame of gathered changes,
// with them; the frame's end then has nothing left to draw.
func TestUrgentChangeIsDrawnInsideAFrame(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	r, out := running(t, 10, 3, c)
	d := r.Wrap(&urgentModel{}).(*drawn)
	d.Update(sizeMsg{w: 10, h: 3})
	out.take()
	c.advance(time.Second)
	d.Update("a") // drawn at once: a frame starts
	out.take()
	c.advance(time.Millisecond)
	if _, cmd := d.Update("b"); cmd == nil || out.take() != "" {
		t.Fatal("a change within the frame was not held for its end")
	}
	c.advance(time.Millisecond)
	d.Update(echo("e"))
	if got := out.take(); !strings.Contains(got, "e") {
		t.Fatalf("the urgent change was held for the frame's end: %q", got)
	}
	c.advance(DefaultFrame)
	d.Update(frameDueMsg{})
	if got := out.take(); got != "" {
		t.Fatalf("the frame's end drew again what the urgent draw drew: %q", got)
	}
}
