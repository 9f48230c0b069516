package mux

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// tapScreen is a sink that draws what it hears on a terminal emulator of
// the chat's size, as an attached terminal would show it.
type tapScreen struct {
	cols, rows int

	mu      sync.Mutex
	scr     *screen.Screen
	redraws int
	ended   []proto.State
}

func (s *tapScreen) Output(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scr.Write(p)
}

func (s *tapScreen) Redraw(snapshot []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redraws++
	s.scr = screen.New(s.cols, s.rows, 0)
	s.scr.Write(snapshot)
}

func (s *tapScreen) Ended(st proto.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = append(s.ended, st)
}

func (s *tapScreen) render() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scr.Render(0)
}

// TestTapMidFloodLosesNothing taps a chat in the middle of a flood: its
// redraw and the output after it draw exactly the chat's screen, so not a
// byte was lost or heard twice between the two.
func TestTapMidFloodLosesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "flood.txt")
	writeFlood(t, file, floodBytes()/5)
	r := newRig(t, "cat:"+file, nil)
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the flood to begin", func() bool { return r.mux.Render(m.ID, 0) != "" && r.mux.PlainLines(m.ID)[0] != "" })
	sink := &tapScreen{cols: 100, rows: 30}
	untap, err := r.mux.Tap(m.ID, 100, 30, sink)
	if err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "FLOOD-DONE")
	untap()
	if got, want := sink.render(), r.mux.Render(m.ID, 0); got != want {
		t.Fatalf("the tapped screen differs from the chat's:\n got %q\nwant %q", got, want)
	}
	if sink.redraws != 1 || len(sink.ended) != 0 {
		t.Fatalf("heard %d redraws and ends %v", sink.redraws, sink.ended)
	}
}

// TestTapHearsRespawnsAndTheEnd: a tap made before the first start hears a
// redraw for every respawn (the screen is reset with a divider), and one
// end, when crashes pass the limit; a crash that is respawned is no end.
func TestTapHearsRespawnsAndTheEnd(t *testing.T) {
	r := newRig(t, "exit:3", func(_ *config.Config, o *Options) { o.MaxRespawns = 2 })
	m := r.create("shell", nil)
	sink := &tapScreen{cols: 80, rows: 24}
	untap, err := r.mux.Tap(m.ID, 80, 24, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer untap()
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the end", func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return len(sink.ended) > 0
	})
	r.waitRecords(3)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.ended) != 1 || sink.ended[0].Status != proto.StatusFailed {
		t.Fatalf("ends heard: %+v", sink.ended)
	}
	// The first redraw is the tap's; each respawn drew on a used screen.
	if sink.redraws != 3 {
		t.Fatalf("heard %d redraws, want 3", sink.redraws)
	}
	if got, want := sink.scr.Render(0), r.mux.Render(m.ID, 0); got != want {
		t.Fatalf("the tapped screen differs from the chat's:\n got %q\nwant %q", got, want)
	}
}
