package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

func TestNoticeLimit(t *testing.T) {
	l := noticeLimit{every: 10 * time.Second}
	t0 := time.Unix(1000, 0)
	for _, tt := range []struct {
		id   string
		at   time.Duration
		want bool
	}{
		{"a", 0, true}, {"a", 9 * time.Second, false}, {"b", 9 * time.Second, true},
		{"a", 10 * time.Second, true}, {"a", 19 * time.Second, false}, {"b", 18 * time.Second, false},
		{"b", 19 * time.Second, true},
	} {
		if got := l.allow(tt.id, t0.Add(tt.at)); got != tt.want {
			t.Errorf("allow(%s at %v) = %v, want %v", tt.id, tt.at, got, tt.want)
		}
	}
}

// A report the server would not announce is dropped where it is made,
// with nothing queued for the announcing goroutine to wake for; one made
// before the server chose is queued for it to choose.
func TestNeedsHeardChoosesWhereReported(t *testing.T) {
	n := NewNeeds()
	n.Heard("early", proto.StatusWaiting)
	pass := func(id string, _ proto.Status) bool { return id == "wanted" }
	n.pass.Store(&pass)
	n.Heard("unwanted", proto.StatusWaiting)
	n.Heard("wanted", proto.StatusAsking)
	var got []need
	for len(n.ch) > 0 {
		got = append(got, <-n.ch)
	}
	want := []need{{id: "early", status: proto.StatusWaiting}, {id: "wanted", status: proto.StatusAsking, passed: true}}
	if !slices.Equal(got, want) {
		t.Fatalf("queued %+v, want %+v", got, want)
	}
}

// noticeReader reads a watcher's lines and keeps the notices.
func (w *wire) nextNotice() proto.Notice {
	w.t.Helper()
	for {
		w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
		line, err := w.r.ReadBytes('\n')
		if err != nil {
			w.t.Fatalf("read: %v", err)
		}
		var n struct {
			Method string       `json:"method"`
			Params proto.Notice `json:"params"`
		}
		if json.Unmarshal(line, &n) == nil && n.Method == proto.NotifyNotice {
			return n.Params
		}
	}
}

// reportsFromTheTest lets the test itself send the status reports that a
// chat's harness sends: these tests are about what a report does. Who may
// send one is TestProcessOfHarness's and, with the real hook run inside and
// outside chats, e2e's TestHookFromOutsideTheChatIsIgnored.
func reportsFromTheTest(s *Server) { s.hookPeer = func(int, int) bool { return true } }

// TestNoticesForChatsNobodyLooksAt drives chats' statuses through the hook
// method and checks what is announced, to a watching client and through a
// [notify] command that records its arguments: a question; nothing more for
// that chat within the interval; nothing for a chat a client looks at;
// nothing for a finished turn when [notify] on names only "asking".
func TestNoticesForChatsNobodyLooksAt(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "notices")
	r := newRig(t, rigOpt{needs: true, server: reportsFromTheTest, config: func(c *config.Config) {
		c.Notify.Command = []string{"sh", "-c", `printf '%s|%s|%s|%s\n' "$ACPMUX_CHAT_ID" "$ACPMUX_STATUS" "$1" "$2" >> ` + rec, "sh"}
		c.Notify.On = []string{"asking"}
	}})
	w, watcher, looker := r.dial(), r.dial(), r.dial()
	watcher.ok(proto.MethodWatch, proto.SizeParams{}, nil)
	chats := map[string]string{}
	for _, name := range []string{"A", "B", "C", "D"} {
		var c proto.ChatJSON
		w.ok(proto.MethodNew, proto.NewParams{Name: "chat " + name}, &c)
		w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, nil)
		chats[name] = c.ID
	}
	hook := func(name, event, kind string) {
		t.Helper()
		w.ok(proto.MethodHook, proto.HookParams{ID: chats[name], Event: event, NotificationType: kind}, nil)
	}
	hook("A", "Notification", "permission_prompt")
	if n := watcher.nextNotice(); n.ID != chats["A"] || n.Status != "asking" || n.Title != "chat A" || n.Body != "asks for you" {
		t.Fatalf("first notice %+v", n)
	}
	hook("A", "PostToolUse", "")
	hook("A", "Notification", "permission_prompt") // within the interval
	looker.ok(proto.MethodLook, proto.LookParams{ID: chats["B"]}, nil)
	hook("B", "Notification", "elicitation_dialog") // looked at
	hook("C", "UserPromptSubmit", "")
	hook("C", "Stop", "") // a finished turn: not in [notify] on
	hook("D", "Notification", "permission_prompt")
	if n := watcher.nextNotice(); n.ID != chats["D"] || n.Status != "asking" {
		t.Fatalf("the notice after A's was %+v, want D asking (names %v)", n, chats)
	}

	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	got := map[string]proto.ChatJSON{}
	for _, c := range list.Chats {
		got[c.Name] = c
	}
	for name, want := range map[string]string{"chat A": "asking", "chat B": "asking", "chat C": "waiting", "chat D": "asking"} {
		if c := got[name]; c.Status != want || c.StatusFrom != "hooks" || c.Unread != (name != "chat B") {
			t.Errorf("%s: %s from %q, unread %v; want %s from hooks, unread unless looked at", name, c.Status, c.StatusFrom, c.Unread, want)
		}
	}

	var lines []string
	waitFor(t, "the notify command's two runs", func() bool {
		b, _ := os.ReadFile(rec)
		lines = strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
		return len(lines) >= 2
	})
	slices.Sort(lines)
	want := []string{
		chats["A"] + "|asking|acpmux_·_chat_A|asks_for_you",
		chats["D"] + "|asking|acpmux_·_chat_D|asks_for_you",
	}
	slices.Sort(want)
	if !slices.Equal(lines, want) {
		t.Errorf("the notify command ran with\n%q\nwant\n%q", lines, want)
	}
}

// TestHookMethod: what the hook method refuses and what it ignores.
func TestHookMethod(t *testing.T) {
	r := newRig(t, rigOpt{server: reportsFromTheTest})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{}, &c)
	w.fails(proto.CodeInvalidParams, proto.MethodHook, proto.HookParams{Event: "Stop"})
	w.fails(proto.CodeInvalidParams, proto.MethodHook, proto.HookParams{ID: c.ID, Event: "Stop"}) // not running
	w.ok(proto.MethodHook, proto.HookParams{ID: c.ID, Event: "SessionEnd"}, nil)                  // says nothing of the turn
	w.ok(proto.MethodHook, proto.HookParams{ID: "nosuch", Event: "PreCompact"}, nil)
	w.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, nil)
	w.ok(proto.MethodHook, proto.HookParams{ID: c.ID, Event: "codex-notify", Payload: "agent-turn-complete"}, nil)
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	if st := list.Chats[0]; st.Status != "waiting" || st.StatusFrom != "hooks" {
		t.Fatalf("after a turn's end: %s from %q", st.Status, st.StatusFrom)
	}
}
