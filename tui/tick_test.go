package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

func TestFormatUptimeTurnsOnItsLastDigit(t *testing.T) {
	for _, c := range []struct {
		d     time.Duration
		shown string
		turns time.Duration
	}{
		{0, "<1m", time.Minute},
		{-time.Second, "<1m", time.Minute}, // a clock that stepped back
		{59 * time.Second, "<1m", time.Second},
		{time.Minute, "1m", time.Minute},
		{12*time.Minute + 30*time.Second, "12m", 30 * time.Second},
		{2*time.Hour + 5*time.Minute + 1*time.Second, "2h05m", 59 * time.Second},
		{24*time.Hour - time.Second, "23h59m", time.Second},
		{24 * time.Hour, "1d00h", time.Hour},
		{3*24*time.Hour + 4*time.Hour + 20*time.Minute, "3d04h", 40 * time.Minute},
	} {
		if got := formatUptime(c.d); got != c.shown {
			t.Errorf("formatUptime(%v) = %q, want %q", c.d, got, c.shown)
		}
		if got := untilUptimeTurns(c.d); got != c.turns {
			t.Errorf("untilUptimeTurns(%v) = %v, want %v", c.d, got, c.turns)
		}
		// What is shown holds until then, and changes at it.
		if c.d >= 0 && formatUptime(c.d+untilUptimeTurns(c.d)-time.Nanosecond) != c.shown {
			t.Errorf("uptime %v: the text changes before %v", c.d, untilUptimeTurns(c.d))
		}
		if c.d >= 0 && formatUptime(c.d+untilUptimeTurns(c.d)) == c.shown {
			t.Errorf("uptime %v: the text does not change at %v", c.d, untilUptimeTurns(c.d))
		}
	}
}

// An idle running chat wakes the TUI when its uptime turns, not every
// second; a running turn (whose quiet spell is counted in seconds) ticks
// each second, and a tick wanted sooner replaces the pending one.
func TestIdleChatTicksWhenItsUptimeTurns(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "idle"})
	r.open(Options{})
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := start.Add(10 * time.Second)
	r.m.opt.Now = func() time.Time { return clock }
	r.m.opt.Tick = 0 // the rig turns ticks off; here they are driven by hand
	set := func(st proto.State) {
		t.Helper()
		r.fake.set(a.ID, st, "")
		r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	}
	fire := func() {
		t.Helper()
		r.m.Update(tickMsg{at: clock, seq: r.m.tickSeq})
	}
	wantTickAt := func(what string, at time.Time) {
		t.Helper()
		if !r.m.tickAt.Equal(at) {
			t.Fatalf("%s: the next tick is at %v, want %v (%v after the start)", what, r.m.tickAt, at, at.Sub(start))
		}
	}
	idle := proto.State{Status: proto.StatusRunning, Pid: 4242, Started: start}
	set(idle)
	wantTickAt("idle, 10 s up", start.Add(time.Minute))
	if v := r.m.View(); !strings.Contains(v, "up <1m") {
		t.Fatalf("the summary does not show the uptime:\n%s", v)
	}

	busy := idle
	busy.TurnActive = true
	set(busy)
	wantTickAt("a turn starts", clock.Add(time.Second))
	stale := r.m.tickSeq - 1
	r.m.Update(tickMsg{at: start.Add(time.Minute), seq: stale})
	wantTickAt("the replaced tick fires", clock.Add(time.Second))
	if !r.m.now.Equal(clock) {
		t.Fatalf("the replaced tick moved the clock to %v", r.m.now)
	}
	clock = clock.Add(time.Second)
	fire()
	wantTickAt("a second into the turn", clock.Add(time.Second))

	set(idle) // the turn ends: the pending 1 s tick is sooner, and kept
	wantTickAt("the turn ended", clock.Add(time.Second))
	clock = clock.Add(time.Second)
	fire()
	wantTickAt("the last 1 s tick fired", start.Add(time.Minute))
	clock = start.Add(time.Minute)
	fire()
	wantTickAt("a minute up", start.Add(2*time.Minute))
	if v := r.m.View(); !strings.Contains(v, "up 1m") {
		t.Fatalf("a minute in, the summary does not say so:\n%s", v)
	}

	set(proto.State{Status: proto.StatusStopped})
	clock = start.Add(2 * time.Minute)
	fire()
	if !r.m.tickAt.IsZero() {
		t.Fatalf("a stopped chat still ticks, at %v", r.m.tickAt)
	}
}

// The selected chat's folders are looked at each CheckFoldersEvery only
// while it has folders (or files, or a worktree) to look at: a chat with
// none sets no tick, so an idle TUI showing it sleeps.
func TestFolderTickOnlyForChatsWithFolders(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	r.create(sessions.NewChat{Name: "a plain"})
	r.create(sessions.NewChat{Name: "b with lib", AdditionalDirectories: []string{lib}})
	r.open(Options{}) // no timer; the rig's commands are not run below
	r.m.opt.CheckFoldersEvery = time.Second
	selected := func() string {
		e, _ := r.m.sidebar.Selected()
		return e.Meta.Name
	}
	// The list's order of two chats made in the same moment is not
	// fixed: walk down, then up.
	walk := func(want string) {
		t.Helper()
		for _, k := range []tea.KeyMsg{keyJ, keyJ, keyK, keyK, keyK} {
			if selected() == want {
				return
			}
			r.m.Update(k)
		}
		t.Fatalf("could not select %q (at %q)", want, selected())
	}
	walk("a plain")
	r.m.Update(folderTickMsg{})
	if r.m.folderTicking {
		t.Fatal("a chat with no folders sets a folder tick")
	}
	walk("b with lib")
	if !r.m.folderTicking {
		t.Fatal("selecting a chat with a folder sets no folder tick")
	}
	// The tick chain goes on while it is selected, and ends with it.
	r.m.Update(folderTickMsg{})
	if !r.m.folderTicking {
		t.Fatal("the folder tick stopped while the chat with a folder is selected")
	}
	walk("a plain")
	r.m.Update(folderTickMsg{})
	if r.m.folderTicking {
		t.Fatal("the folder tick goes on with a chat with no folders selected")
	}
}
