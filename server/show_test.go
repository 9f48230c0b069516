package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// showingOne starts two chats, waits for their prompts, and returns a
// watcher that names the first as the one it draws.
func showingOne(r *rig) (a *viewClient, c1, c2 proto.ChatJSON) {
	r.t.Helper()
	a = newViewClient(r)
	chats := a.started(80, 24, "", "")
	c1, c2 = chats[0], chats[1]
	for _, c := range chats {
		a.waitScreen(c.ID, "ready>")
	}
	a.ok(proto.MethodShow, proto.ShowParams{IDs: []string{c1.ID}}, nil)
	return a, c1, c2
}

// TestShowTellsOfOtherChatsOnlyTheirStates: once a watcher names the chat
// it draws, a change of another chat's screen alone is not told, a change
// of its state still is, the chat drawn is told of as before, and a chat
// newly named is told of at once, as it is now.
func TestShowTellsOfOtherChatsOnlyTheirStates(t *testing.T) {
	r := newRig(t, rigOpt{})
	a, c1, c2 := showingOne(r)

	// Every notification from here on that names c2 carries a new state.
	told := a.chats[c2.ID].State
	checkNext := func() {
		t.Helper()
		l := a.next()
		if l.Method != proto.NotifyChanged {
			return
		}
		var n proto.StatesResult
		if err := json.Unmarshal(l.Params, &n); err != nil {
			t.Fatal(err)
		}
		if cv, ok := n.States[c2.ID]; ok {
			if reflect.DeepEqual(cv.State, told) {
				t.Fatalf("told of c2, not drawn, with its state unchanged: %+v", cv)
			}
			told = cv.State
		}
	}
	a.write(c2.ID, "unseen\r")
	waitFor(t, "c2's echo on its screen", func() bool { return strings.Contains(a.render(c2.ID), "echo: unseen") })
	// The chat drawn is told of as before (waitScreen reads a notification
	// between two looks: it would hang if none came).
	a.write(c1.ID, "seen\r")
	a.waitScreen(c1.ID, "echo: seen")
	a.write(c2.ID, "unseen again\r")
	a.write(c1.ID, "seen again\r")
	for !strings.Contains(a.render(c1.ID), "echo: seen again") {
		checkNext()
	}

	// Naming c2 tells of it at once, as it is now: once its output has
	// ended (its prompt after the second echo), so that "now" holds still.
	waitFor(t, "c2's prompt after its second echo", func() bool {
		screen := a.render(c2.ID)
		return strings.Contains(screen, "echo: unseen again") && strings.Count(screen, "ready>") >= 3
	})
	a.ok(proto.MethodShow, proto.ShowParams{IDs: []string{c2.ID}}, nil)
	for {
		l := a.next()
		var n proto.StatesResult
		if l.Method == proto.NotifyChanged && json.Unmarshal(l.Params, &n) == nil {
			if _, ok := n.States[c2.ID]; ok {
				break
			}
		}
	}
	if got, want := a.chats[c2.ID].Terminal, r.srv.opt.Mux.Terminal(c2.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("c2 newly shown was told %+v, the server has %+v", got, want)
	}

	if l := a.call(proto.MethodShow, proto.ShowParams{IDs: make([]string, maxShown+1)}); l.Error == nil || l.Error.Code != proto.CodeInvalidParams {
		t.Fatalf("show with too many ids: %+v, want -32602", l.Error)
	}
}

// TestKeyEchoIsAScreenUpdate: once a watcher has been told of the chat it
// draws, a key's echo, which moves nothing but the screen and the cursor,
// comes as a NotifyScreen with the one row that changed and the cursor;
// a change of the chat's state comes as a NotifyChanged, whole.
func TestKeyEchoIsAScreenUpdate(t *testing.T) {
	r := newRig(t, rigOpt{})
	a := newViewClient(r)
	c := a.started(80, 24, "")[0]
	a.waitScreen(c.ID, "ready>")
	a.ok(proto.MethodShow, proto.ShowParams{IDs: []string{c.ID}}, nil)
	// Until the state settles (the fake's prompt read as waiting), a key
	// may come with a state change; after it, every echo is an update.
	// A key's echo is told at once, so the change told after a key may
	// still be the last key's (a state change and its screen come as two
	// changes): the echo of this key is the update that shows it.
	var u proto.ScreenUpdate
	for i := 1; u.ID == ""; i++ {
		if i == 100 {
			t.Fatal("100 keys typed and no echo came as a screen update")
		}
		// The echo may come before the write's answer, read with it.
		mark := len(a.told)
		a.write(c.ID, "k")
		typed := "ready>" + strings.Repeat("k", i)
		for shown := false; !shown; mark++ {
			for len(a.told) == mark {
				a.next()
			}
			l := a.told[mark]
			var cand proto.ScreenUpdate
			if l.Method == proto.NotifyScreen && json.Unmarshal(l.Params, &cand) == nil {
				if row, ok := cand.Screen.Rows[0]; ok && strings.TrimRight(row, " ") == typed {
					u, shown = cand, true
				}
			} else if l.Method == proto.NotifyChanged {
				shown = strings.Contains(r.srv.opt.Mux.Render(c.ID, 0), typed) && len(a.told) == mark+1
			}
		}
	}
	want := r.srv.opt.Mux.Terminal(c.ID)
	row := strings.Split(r.srv.opt.Mux.Render(c.ID, 0), "\n")[want.CursorRow]
	if u.ID != c.ID || u.Screen.Full != nil || len(u.Screen.Rows) != 1 || u.Screen.Rows[want.CursorRow] != row {
		t.Fatalf("a key's echo told as %+v; want only row %d, %q", u, want.CursorRow, row)
	}
	if u.Cursor != [2]int{want.CursorCol, want.CursorRow} {
		t.Fatalf("cursor told at %v, the server has it at %d,%d", u.Cursor, want.CursorCol, want.CursorRow)
	}

	// Enter: the fake answers, and the state (running, then waiting) is
	// told with a NotifyChanged carrying the screen.
	told := a.chats[c.ID]
	told.Screen = nil
	a.chats[c.ID] = told
	a.write(c.ID, "\r")
	a.waitChat(c.ID, "the answer's state told, with the screen", func(cv proto.ChatView) bool {
		return cv.Screen != nil && strings.Contains(a.render(c.ID), "echo: k")
	})
}

// TestHiddenChatToldOfItsStateAndUnreadMark: a chat the watcher does not
// draw costs it no screen, line after line, and still tells it of its
// bell (waiting, with the unread mark) and of its end.
func TestHiddenChatToldOfItsStateAndUnreadMark(t *testing.T) {
	r := newRig(t, rigOpt{})
	a, c1, c2 := showingOne(r)
	a.ok(proto.MethodLook, proto.LookParams{ID: c1.ID}, nil)
	mark := len(a.told)
	for i := range 5 {
		a.write(c2.ID, "quiet "+strconv.Itoa(i)+"\r")
	}
	a.write(c2.ID, "ring\a\r")
	a.waitChat(c2.ID, "c2's bell told, unread", func(cv proto.ChatView) bool {
		return cv.State.Unread && cv.State.Status == proto.StatusWaiting
	})
	a.ok(proto.MethodStop, proto.ChatParams{ID: c2.ID}, nil)
	a.waitChat(c2.ID, "c2's end told", func(cv proto.ChatView) bool { return !cv.State.Status.Live() })
	for _, l := range a.told[mark:] {
		switch l.Method {
		case proto.NotifyScreen:
			var u proto.ScreenUpdate
			if json.Unmarshal(l.Params, &u) == nil && u.ID == c2.ID {
				t.Fatalf("told of hidden c2's screen: %s", l.Params)
			}
		case proto.NotifyChanged:
			var n proto.StatesResult
			if json.Unmarshal(l.Params, &n) == nil && n.States[c2.ID].Screen != nil {
				t.Fatalf("told of hidden c2 with its screen: %s", l.Params)
			}
		}
	}
}

// TestHiddenChangesWaitForTheListFrame: a change of a chat the watcher does
// not draw waits for the list frame (an hour here, so nothing else sends
// it), and goes with the next change of the chat it draws, as the server
// has it then.
func TestHiddenChangesWaitForTheListFrame(t *testing.T) {
	r := newRig(t, rigOpt{server: func(s *Server) { s.views.listFrame = time.Hour }})
	a, c1, c2 := showingOne(r)

	// c2 answers a line and settles; the watcher has it marked, not sent.
	a.write(c2.ID, "hidden\r")
	m := r.srv.opt.Mux
	var settled proto.State
	waitFor(t, "c2's answer on its screen, and c2 waiting", func() bool {
		settled = m.State(c2.ID)
		return strings.Contains(m.Render(c2.ID, 0), "echo: hidden") && settled.Status == proto.StatusWaiting
	})
	waitFor(t, "c2's settled state marked for the watcher, on the list frame", func() bool {
		for _, v := range r.srv.views.all() {
			v.mu.Lock()
			_, drawsC1 := v.shown[c1.ID]
			cv, marked := v.dirty[c2.ID]
			held := drawsC1 && marked && cv.State.Equal(settled) && v.flushAt != nil && v.flushSlow
			v.mu.Unlock()
			if held {
				return true
			}
		}
		return false
	})
	// As told over the wire (a state read here still has its monotonic
	// clock reading, which JSON drops).
	same := func(st proto.State) bool {
		got, err1 := json.Marshal(st)
		want, err2 := json.Marshal(settled)
		return err1 == nil && err2 == nil && string(got) == string(want)
	}
	a.render(c1.ID) // reads every line sent before its answer
	if told := a.chats[c2.ID].State; same(told) {
		t.Fatalf("c2, not drawn, told of its change within the list frame: %+v", told)
	}

	// A change of c1 goes at once, and takes c2's with it.
	a.write(c1.ID, "shown\r")
	a.waitScreen(c1.ID, "echo: shown")
	a.waitChat(c2.ID, "c2's settled state, sent with c1's change", func(cv proto.ChatView) bool { return same(cv.State) })
}

// The server tells the mux which chats its watchers draw, so that the
// output of the others is told to it a few times a second (mux.SetDrawn):
// a watcher that names none draws every chat, and one that goes draws
// nothing.
func TestMuxHearsWhichChatsTheWatchersDraw(t *testing.T) {
	r := newRig(t, rigOpt{})
	m := r.srv.opt.Mux
	a, c1, c2 := showingOne(r)
	if !m.Drawn(c1.ID) || m.Drawn(c2.ID) {
		t.Fatalf("one watcher draws c1: drawn c1 %v, c2 %v", m.Drawn(c1.ID), m.Drawn(c2.ID))
	}
	b := newViewClient(r)
	b.watch(80, 24)
	if !m.Drawn(c2.ID) {
		t.Fatal("a watcher that names no chat draws every one, but c2 is not drawn")
	}
	b.ok(proto.MethodShow, proto.ShowParams{IDs: []string{c2.ID}}, nil)
	if !m.Drawn(c1.ID) || !m.Drawn(c2.ID) {
		t.Fatalf("the watchers draw c1 and c2: drawn c1 %v, c2 %v", m.Drawn(c1.ID), m.Drawn(c2.ID))
	}
	b.nc.Close()
	waitFor(t, "c2 not drawn once its watcher went", func() bool { return !m.Drawn(c2.ID) })
	if !m.Drawn(c1.ID) {
		t.Fatal("c1's watcher is still there, but c1 is not drawn")
	}
	a.nc.Close()
	waitFor(t, "c1 not drawn once no one watches", func() bool { return !m.Drawn(c1.ID) })
}

// TestEchoGoesInsideAFrame: the echo of a key a watcher typed into the
// chat it draws is told at once, however long the frame that another
// change opened lasts (an hour here: a change held for the frame's end
// would never come), and so is the next key's.
func TestEchoGoesInsideAFrame(t *testing.T) {
	r := newRig(t, rigOpt{})
	a, c1, c2 := showingOne(r)
	r.srv.views.frame.Store(int64(time.Hour))
	a.write(c2.ID, "hidden\r") // a change of another chat opens the hub's frame
	waitFor(t, "c2's answer on its screen", func() bool { return strings.Contains(r.srv.opt.Mux.Render(c2.ID, 0), "echo: hidden") })
	names := func(l viewLine) bool {
		var u struct {
			ID     string                    `json:"id"`
			States map[string]proto.ChatView `json:"states"`
		}
		if json.Unmarshal(l.Params, &u) != nil {
			return false
		}
		_, changed := u.States[c1.ID]
		return l.Method == proto.NotifyScreen && u.ID == c1.ID || l.Method == proto.NotifyChanged && changed
	}
	for _, key := range []string{"o", "t"} {
		before := len(a.told)
		a.write(c1.ID, key)
		a.waiting = fmt.Sprintf("c1's echo of %q told", key)
		for !slices.ContainsFunc(a.told[before:], names) {
			a.next()
		}
	}
}
