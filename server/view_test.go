package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// viewClient is a raw drawing client: it calls methods and keeps the
// changed notifications that arrive between the answers, as the TUI's
// Remote does.
type viewClient struct {
	*wire
	// chats is each chat as last told (by watch or a notification).
	chats map[string]proto.ChatView
	// notes counts the changed and screen notifications read, and told
	// holds them in order.
	notes int
	told  []viewLine
	// waiting names what the client waits for, for a failure's message.
	waiting string
}

func newViewClient(r *rig) *viewClient {
	return &viewClient{wire: r.dial(), chats: map[string]proto.ChatView{}}
}

// viewLine is any line the server writes.
type viewLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

// next reads one line; a notification is taken in.
func (v *viewClient) next() viewLine {
	v.t.Helper()
	v.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	b, err := v.r.ReadBytes('\n')
	if err != nil {
		v.t.Fatalf("read, waiting for %s: %v", v.waiting, err)
	}
	var l viewLine
	if err := json.Unmarshal(b, &l); err != nil {
		v.t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if l.Method == proto.NotifyChanged && l.ID == nil {
		var n proto.StatesResult
		if err := json.Unmarshal(l.Params, &n); err != nil {
			v.t.Fatalf("changed: %v\n%s", err, l.Params)
		}
		for id, cv := range n.States {
			v.chats[id] = cv
		}
		v.notes++
		v.told = append(v.told, l)
	}
	if l.Method == proto.NotifyScreen && l.ID == nil {
		var u proto.ScreenUpdate
		if err := json.Unmarshal(l.Params, &u); err != nil {
			v.t.Fatalf("screen: %v\n%s", err, l.Params)
		}
		cv := v.chats[u.ID]
		cv.Terminal.CursorCol, cv.Terminal.CursorRow = u.Cursor[0], u.Cursor[1]
		v.chats[u.ID] = cv
		v.notes++
		v.told = append(v.told, l)
	}
	return l
}

// call sends a request and reads up to its answer.
func (v *viewClient) call(method string, params any) viewLine {
	v.t.Helper()
	v.wire.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": v.wire.next, "method": method, "params": params})
	if err != nil {
		v.t.Fatal(err)
	}
	v.send(string(b))
	for {
		l := v.next()
		if l.Method == "" && string(l.ID) == fmt.Sprint(v.wire.next) {
			return l
		}
	}
}

func (v *viewClient) ok(method string, params, result any) {
	v.t.Helper()
	l := v.call(method, params)
	if l.Error != nil {
		v.t.Fatalf("%s: error %d %s %s", method, l.Error.Code, l.Error.Message, l.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(l.Result, result); err != nil {
			v.t.Fatalf("%s: %v\n%s", method, err, l.Result)
		}
	}
}

func (v *viewClient) watch(cols, rows int) {
	v.t.Helper()
	var res proto.StatesResult
	v.ok(proto.MethodWatch, proto.SizeParams{Cols: cols, Rows: rows}, &res)
	for id, cv := range res.States {
		v.chats[id] = cv
	}
}

// waitChat reads notifications until the chat, as told, satisfies cond.
func (v *viewClient) waitChat(id, what string, cond func(proto.ChatView) bool) proto.ChatView {
	v.t.Helper()
	v.waiting = what
	for !cond(v.chats[id]) {
		v.next()
	}
	v.waiting = ""
	return v.chats[id]
}

func (v *viewClient) render(id string) string {
	v.t.Helper()
	var res proto.RenderResult
	v.ok(proto.MethodRender, proto.RenderParams{ID: id}, &res)
	return res.Text
}

// waitScreen renders the chat until its screen shows text, reading a
// notification between two looks: the screen only changes with one.
func (v *viewClient) waitScreen(id, text string) string {
	v.t.Helper()
	for {
		if scr := v.render(id); strings.Contains(scr, text) {
			return scr
		}
		v.waiting = fmt.Sprintf("%q on the screen", text)
		v.next()
	}
}

func (v *viewClient) write(id, s string) {
	v.t.Helper()
	v.ok(proto.MethodWrite, proto.WriteParams{ID: id, Data: []byte(s)}, nil)
}

func liveView(cv proto.ChatView) bool { return cv.State.Status.Live() }

// started makes a chat of each harness ("" for the default), watches at
// cols x rows, starts them all and waits until each runs.
func (v *viewClient) started(cols, rows int, harnesses ...string) []proto.ChatJSON {
	v.t.Helper()
	chats := make([]proto.ChatJSON, len(harnesses))
	for i, h := range harnesses {
		v.ok(proto.MethodNew, proto.NewParams{Harness: h}, &chats[i])
	}
	v.watch(cols, rows)
	for _, c := range chats {
		v.ok(proto.MethodStart, proto.ChatParams{ID: c.ID, Cols: cols, Rows: rows}, nil)
		v.waitChat(c.ID, "the chat running", liveView)
	}
	return chats
}

// TestWatchRenderWriteResize: a watcher hears a chat start, reads its
// screen, types into it; a second watcher sees the same screen, and the
// pty takes the size of the client that last resized or typed.
func TestWatchRenderWriteResize(t *testing.T) {
	r := newRig(t, rigOpt{})
	a := newViewClient(r)
	var c proto.ChatJSON
	a.ok(proto.MethodNew, nil, &c)
	a.watch(100, 30)
	if _, ok := a.chats[c.ID]; ok {
		t.Fatalf("watch told of a chat never started: %+v", a.chats)
	}
	a.ok(proto.MethodStart, proto.ChatParams{ID: c.ID, Cols: 80, Rows: 24}, nil)
	a.waitChat(c.ID, "the chat running", liveView)
	a.waitScreen(c.ID, "ready>")
	if term := a.chats[c.ID].Terminal; term.Cols != 80 || term.Rows != 24 {
		t.Fatalf("started at %dx%d, want 80x24", term.Cols, term.Rows)
	}

	// Typing sizes the pty to the typist first.
	a.write(c.ID, "hello\r")
	a.waitScreen(c.ID, "echo: hello")
	a.waitChat(c.ID, "the chat at the typist's size", func(cv proto.ChatView) bool {
		return cv.Terminal.Cols == 100 && cv.Terminal.Rows == 30
	})

	// A second client opens: the same chat, the same screen.
	b := newViewClient(r)
	b.watch(0, 0)
	got, ok := b.chats[c.ID]
	if !ok || !liveView(got) || got.State.Pid != a.chats[c.ID].State.Pid || got.Terminal.Cols != 100 {
		t.Fatalf("second watcher's snapshot: %+v", got)
	}
	if sa, sb := a.render(c.ID), b.render(c.ID); sa != sb {
		t.Fatalf("two clients see two screens:\n%s\n---\n%s", sa, sb)
	}

	// It resizes every chat and both hear of it, though the harness prints
	// nothing (it waits for input); then it types, and both see the echo.
	a.waitChat(c.ID, "the chat waiting for input", func(cv proto.ChatView) bool { return cv.State.Status == proto.StatusWaiting })
	b.ok(proto.MethodResize, proto.SizeParams{Cols: 90, Rows: 20}, nil)
	a.waitChat(c.ID, "the resize told to the first client", func(cv proto.ChatView) bool { return cv.Terminal.Cols == 90 && cv.Terminal.Rows == 20 })
	b.write(c.ID, "from b\r")
	b.waitScreen(c.ID, "echo: from b")
	a.waitScreen(c.ID, "echo: from b")
	// The first types again: the pty is its size again.
	a.write(c.ID, "from a\r")
	b.waitChat(c.ID, "the pty back at the first client's size", func(cv proto.ChatView) bool { return cv.Terminal.Cols == 100 && cv.Terminal.Rows == 30 })
	b.waitScreen(c.ID, "echo: from a")

	var tr proto.TranscriptResult
	a.ok(proto.MethodTranscript, proto.TranscriptParams{ID: c.ID}, &tr)
	if tr.Entries == nil || len(tr.Entries) != 0 {
		t.Fatalf("a pty chat's transcript: %+v", tr.Entries)
	}

	// Bad params are refused.
	for _, bad := range []struct {
		method string
		params any
	}{
		{proto.MethodResize, proto.SizeParams{Cols: 0, Rows: 10}},
		{proto.MethodResize, proto.SizeParams{Cols: proto.MaxCols + 1, Rows: 10}},
		{proto.MethodWatch, proto.SizeParams{Cols: -1, Rows: 10}},
		{proto.MethodRender, proto.RenderParams{}},
		{proto.MethodWrite, proto.WriteParams{Data: []byte("x")}},
		{proto.MethodWrite, map[string]any{"id": c.ID, "data": "not base64!"}},
		{proto.MethodForget, proto.ForgetParams{}},
	} {
		if l := a.call(bad.method, bad.params); l.Error == nil || l.Error.Code != proto.CodeInvalidParams {
			t.Errorf("%s %+v: %+v, want -32602", bad.method, bad.params, l.Error)
		}
	}

	// Forget stops it; both hear.
	a.ok(proto.MethodForget, proto.ForgetParams{ID: c.ID}, nil)
	b.waitChat(c.ID, "the forgotten chat stopped", func(cv proto.ChatView) bool { return !liveView(cv) })
	if scr := a.render(c.ID); scr != "" {
		t.Fatalf("a forgotten chat's screen: %q", scr)
	}
	// Nothing changes now, and nothing stays scheduled.
	waitFor(t, "no notification left scheduled", func() bool {
		r.srv.views.mu.Lock()
		defer r.srv.views.mu.Unlock()
		for _, v := range r.srv.views.viewers {
			v.mu.Lock()
			due := v.flushAt != nil
			v.mu.Unlock()
			if due {
				return false
			}
		}
		return true
	})
}

// TestCreateAndStart: folders go through the shared validator as for
// _acpmux/new, a refusal makes nothing, and a chat made starts at the size
// asked.
func TestCreateAndStart(t *testing.T) {
	r := newRig(t, rigOpt{})
	v := newViewClient(r)
	v.watch(0, 0)
	dirs := r.folders(2)

	e := v.call(proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{AdditionalDirectories: []string{"rel/dir", dirs[0], "/no/such/folder"}}})
	if e.Error == nil || e.Error.Code != proto.CodeInvalidParams {
		t.Fatalf("relative and missing folders: %+v", e.Error)
	}
	var data folderData
	if err := json.Unmarshal(e.Error.Data, &data); err != nil || len(data.Entries) != 2 ||
		data.Entries[0].Path != "rel/dir" || data.Entries[1].Path != "/no/such/folder" {
		t.Fatalf("refusal names %+v (%v)", data.Entries, err)
	}
	for _, bad := range []proto.CreateAndStartParams{
		{NewParams: proto.NewParams{Harness: "nope"}},
		{NewParams: proto.NewParams{Cwd: "relative"}},
		{NewParams: proto.NewParams{Name: "two\nlines"}},
		{Cols: proto.MaxCols + 1, Rows: 10},
	} {
		if l := v.call(proto.MethodCreateAndStart, bad); l.Error == nil || l.Error.Code != proto.CodeInvalidParams {
			t.Errorf("%+v: %+v, want -32602", bad, l.Error)
		}
	}
	if files := r.chatFiles(); len(files) != 0 {
		t.Fatalf("a refused call made chats: %v", files)
	}

	var c proto.ChatJSON
	v.ok(proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{Name: "made", AdditionalDirectories: dirs}, Cols: 70, Rows: 21}, &c)
	if c.Name != "made" || len(c.AdditionalDirectories) != 2 || !live(c.Status) {
		t.Fatalf("created: %+v", c)
	}
	cv := v.waitChat(c.ID, "the new chat running at 70x21", func(cv proto.ChatView) bool {
		return liveView(cv) && cv.Terminal.Cols == 70 && cv.Terminal.Rows == 21
	})
	rec := r.waitRecords(1)[0]
	if rec.Pid != cv.State.Pid || rec.Cols != 70 || rec.Rows != 21 {
		t.Fatalf("the harness got %+v; the chat says pid %d", rec, cv.State.Pid)
	}
	v.ok(proto.MethodFill, nil, nil) // no pool configured: nothing to do, no error
	v.ok(proto.MethodStop, proto.ChatParams{ID: c.ID}, nil)
}

// floodFile writes n bytes of coloured lines and returns the file.
func floodFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flood.txt")
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %d of the flood, ü ✓\x1b[0m\r\n", i%8, i)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFloodWatchersCoalesce: while a harness floods its pty, a watcher that
// reads nothing never has more than one notification waiting in its
// queue; one that also piles up calls it never reads is dropped; and a
// watcher that reads keeps up all along: it sees the flood's end and its
// calls are answered.
func TestFloodWatchersCoalesce(t *testing.T) {
	r := newRig(t, rigOpt{flood: floodFile(t, 8<<20), opt: func(o *Options) { o.QueueLen = 8 }})
	keeper := newViewClient(r)
	keeper.watch(80, 24)
	var c proto.ChatJSON
	keeper.ok(proto.MethodNew, proto.NewParams{Harness: "flood"}, &c)

	before := r.srv.viewerConns()
	silent := newViewClient(r) // watches, then reads nothing at all
	silent.watch(80, 24)
	var silentConn *conn
	for c := range r.srv.viewerConns() {
		if !before[c] {
			silentConn = c
		}
	}
	if silentConn == nil {
		t.Fatal("the silent watcher's connection is not found")
	}
	sleeper := newViewClient(r) // watches, then calls and never reads
	sleeper.watch(80, 24)

	stopSending := make(chan struct{})
	sent := make(chan int, 1)
	go func() {
		n := 0
		defer func() { sent <- n }()
		for {
			select {
			case <-stopSending:
				return
			default:
			}
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_acpmux/render","params":{"id":%q}}`+"\n", n, c.ID)
			sleeper.nc.SetWriteDeadline(time.Now().Add(hangDeadline))
			if _, err := sleeper.nc.Write([]byte(line)); err != nil {
				return // dropped
			}
			n++
		}
	}()

	keeper.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, nil)
	// The keeper draws as the TUI does: a render after each notification.
	maxQueued := 0
	for !strings.Contains(keeper.render(c.ID), "FLOOD-DONE") {
		keeper.next()
		maxQueued = max(maxQueued, len(silentConn.out))
	}
	keeper.ok(proto.MethodHello, nil, nil)
	if err := sleeper.closedByServer(); err != nil {
		t.Fatal(err)
	}
	close(stopSending)
	t.Logf("the non-reader sent %d calls before it was dropped; the keeper had %d notifications", <-sent, keeper.notes)
	if maxQueued > 1 {
		t.Fatalf("the silent watcher's queue held %d lines at once", maxQueued)
	}
	keeper.ok(proto.MethodStop, proto.ChatParams{ID: c.ID}, nil)
	keeper.waitChat(c.ID, "the flood chat stopped", func(cv proto.ChatView) bool { return cv.State.Status == proto.StatusStopped })
}

// viewerConns returns the connections the view hub knows.
func (s *Server) viewerConns() map[*conn]bool {
	s.views.mu.Lock()
	defer s.views.mu.Unlock()
	out := map[*conn]bool{}
	for c := range s.views.viewers {
		out[c] = true
	}
	return out
}

// TestKeysToAHarnessNotReading: a harness that never reads its input
// stalls nothing: keys sent to it are taken until a megabyte waits, then
// refused with a message saying why, and meanwhile the same connection's
// other calls are answered, and so are its keys to other chats.
func TestKeysToAHarnessNotReading(t *testing.T) {
	r := newRig(t, rigOpt{config: func(c *config.Config) {
		// Raw mode: the terminal keeps what is typed for a read that
		// never comes (a canonical one drops a line that outgrows it).
		c.Harness["deaf"] = config.HarnessConfig{Command: "/bin/sh", Args: []string{"-c", "stty raw -echo; echo deaf; exec sleep 3600"}}
	}})
	a := newViewClient(r)
	chats := a.started(80, 24, "deaf", "")
	deaf, shell := chats[0], chats[1]
	a.waitScreen(shell.ID, "ready>")
	a.waitScreen(deaf.ID, "deaf")
	chunk := strings.Repeat("x", 32<<10)
	for sent := 0; ; sent += len(chunk) {
		if sent > 4<<20 {
			t.Fatal("4 MiB typed to a harness that reads nothing, and none refused")
		}
		l := a.call(proto.MethodWrite, proto.WriteParams{ID: deaf.ID, Data: []byte(chunk)})
		if l.Error != nil {
			if !strings.Contains(l.Error.Message, "not reading its input") {
				t.Fatalf("refused with %q", l.Error.Message)
			}
			break
		}
		// Every other call still answers at once.
		var h proto.HelloResult
		a.ok(proto.MethodHello, nil, &h)
	}
	a.write(shell.ID, "still typing\r")
	a.waitScreen(shell.ID, "echo: still typing")
}
