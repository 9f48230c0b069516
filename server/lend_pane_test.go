package server

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// A pane of 40x10 at column 20, row 5 of the test's 80x24 terminal, as a
// TUI lends its focused chat pane.
var testPane = proto.LendPaneParams{X: 20, Y: 5, Cols: 40, Rows: 10, CursorOn: "\x1b[7m", CursorOff: "\x1b[0m", HandBack: []byte{0x1d}}

// lendPaneLine is the call that lends a pane, as the first message.
func lendPaneLine(t *testing.T, p proto.LendPaneParams) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": proto.MethodLendPane, "params": p})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// startedShell is a chat of the echoing fake started at the pane's size,
// as the TUI starts each chat at its pane's.
func startedShell(t *testing.T, r *rig) proto.ChatJSON {
	chat := newShellChat(r)
	r.dial().ok(proto.MethodStart, proto.ChatParams{ID: chat.ID, Cols: testPane.Cols, Rows: testPane.Rows}, nil)
	return chat
}

// lendPaneOf lends the test's pane of chat id and reads the answer.
func lendPaneOf(t *testing.T, r *rig, id string) *lentTerm {
	t.Helper()
	p := testPane
	p.ID = id
	lt := lend(t, r, lendPaneLine(t, p))
	if rep := lt.w.read(); rep.Error != nil || string(rep.Result) != "{}" {
		t.Fatalf("the loan was answered %+v", rep)
	}
	return lt
}

// row is the text of the terminal's row y from column x on, w cells.
func (lt *lentTerm) row(y, x, w int) string {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	line := []rune(lt.scr.PlainLine(y))
	if x >= len(line) {
		return ""
	}
	return string(line[x:min(len(line), x+w)])
}

// waitRow waits until the pane's row i reads want (trailing blanks cut).
func (lt *lentTerm) waitRow(i int, want string) {
	lt.t.Helper()
	wait.UntilShow(lt.t, "the pane's row "+want, func() bool {
		return strings.TrimRight(lt.row(testPane.Y+i, testPane.X, testPane.Cols), " ") == want
	}, lt.sent)
}

// chatShows waits until the chat's screen shows text: what was typed
// into it (its echo, after the loan, is the TUI's to draw).
func chatShows(t *testing.T, r *rig, id, text string) {
	t.Helper()
	w := r.dial()
	var last string
	wait.UntilShow(t, "the chat to show "+text, func() bool {
		var res proto.RenderResult
		w.ok(proto.MethodRender, proto.RenderParams{ID: id}, &res)
		last = res.Text
		return strings.Contains(res.Text, text)
	}, func() string { return last })
}

// paneEnded reads the loan's end.
func (lt *lentTerm) paneEnded() proto.PaneEndedParams {
	lt.t.Helper()
	var e proto.PaneEndedParams
	if err := json.Unmarshal(lt.notification(proto.NotifyPaneEnded), &e); err != nil {
		lt.t.Fatal(err)
	}
	return e
}

// clientReads reads what the lending client's own copy of the terminal
// gets next: after the loan, the keys are its own again.
func (lt *lentTerm) clientReads(want string) {
	lt.t.Helper()
	lt.tty.SetReadDeadline(time.Now().Add(hangDeadline))
	buf := make([]byte, 64)
	n, err := lt.tty.Read(buf)
	if err != nil || string(buf[:n]) != want {
		lt.t.Fatalf("the client read %q, %v; want %q", buf[:n], err, want)
	}
}

// TestLentPaneTypesDrawsAndHandsBack: the server draws the chat's rows at
// the pane's place, with the cursor as the TUI draws it, types what is
// typed on the terminal into the chat, writes the TUI's drawing in turn,
// and at the first key the TUI keeps (here a cursor key) stops: the chat
// got the keys before it, the TUI is told the rest and the drawings
// written, and the terminal is the TUI's again.
func TestLentPaneTypesDrawsAndHandsBack(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := startedShell(t, r)
	lt := lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>")
	if !strings.Contains(lt.sent(), "ready>\x1b[0m\x1b[7m \x1b[0m") {
		t.Errorf("the cursor was not drawn as the TUI draws it, after ready>: %q", lt.sent())
	}
	if got := lt.row(testPane.Y, 0, testPane.X); strings.TrimSpace(got) != "" {
		t.Errorf("the server drew left of the pane: %q", got)
	}
	if !lt.heldByServer() {
		t.Fatal("the server holds no descriptor of the lent terminal")
	}

	lt.typeKeys("hello\r")
	lt.waitRow(2, "echo: hello")

	lt.w.send(`{"jsonrpc":"2.0","method":"` + proto.MethodPaneDraw + `","params":{"seq":7,"data":"` + b64("\x1b[1;1Hthe sidebar") + `"}}`)
	wait.UntilShow(t, "the TUI's drawing on the terminal", func() bool { return lt.row(0, 0, 11) == "the sidebar" }, lt.sent)

	lt.typeKeys("ab\x1b[Acd")
	e := lt.paneEnded()
	if string(e.Rest) != "\x1b[Acd" || e.Why != proto.PaneEndKey || e.Drawn != 7 || e.Lost || e.ID != chat.ID {
		t.Fatalf("the loan ended with %+v (rest %q)", e, e.Rest)
	}
	chatShows(t, r, chat.ID, "ready>ab")
	if lt.heldByServer() {
		t.Fatal("the server still holds the terminal after it gave it back")
	}
	lt.typeKeys("for the TUI")
	lt.clientReads("for the TUI")
	rec := r.waitRecords(1)[0]
	if err := syscall.Kill(rec.Pid, 0); err != nil {
		t.Fatalf("the harness is gone after the loan: %v", err)
	}
}

// b64 is s as JSON carries bytes.
func b64(s string) string {
	b, _ := json.Marshal([]byte(s))
	return strings.Trim(string(b), `"`)
}

// TestLentPaneLeaveKeyAndBack: the TUI's own key (its leave key) ends the
// loan as ESC does; MethodPaneBack ends it with nothing handed back.
func TestLentPaneLeaveKeyAndBack(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := startedShell(t, r)
	lt := lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>")
	lt.typeKeys("x\x1dy")
	if e := lt.paneEnded(); string(e.Rest) != "\x1dy" || e.Why != proto.PaneEndKey {
		t.Fatalf("the leave key ended the loan with %+v", e)
	}
	chatShows(t, r, chat.ID, "ready>x")

	lt = lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>x")
	lt.w.send(`{"jsonrpc":"2.0","method":"` + proto.MethodPaneBack + `"}`)
	if e := lt.paneEnded(); len(e.Rest) != 0 || e.Why != proto.PaneEndBack || e.Lost {
		t.Fatalf("the loan asked back ended with %+v", e)
	}
	if lt.heldByServer() {
		t.Fatal("the server still holds the terminal after it was asked for it back")
	}
	lt.typeKeys("z")
	lt.clientReads("z")
}

// TestLentPaneEndsWithItsChat: the chat's end ends the loan (the TUI
// draws a stopped chat itself), and so does the loan's connection closing,
// which leaves the harness running.
func TestLentPaneEndsWithItsChat(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := startedShell(t, r)
	lt := lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>")
	lt.w.nc.Close()
	wait.UntilShow(t, "the server to let go of the terminal of a loan whose connection closed", func() bool { return !lt.heldByServer() }, lt.sent)
	rec := r.waitRecords(1)[0]
	if err := syscall.Kill(rec.Pid, 0); err != nil {
		t.Fatalf("the harness is gone with the loan's connection: %v", err)
	}

	lt = lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>")
	lt.typeKeys("bye\r\x04")
	if e := lt.paneEnded(); e.Why != proto.PaneEndChat {
		t.Fatalf("the chat's end ended the loan with %+v", e)
	}
	if lt.heldByServer() {
		t.Fatal("the server still holds the terminal of a chat that ended")
	}
}

// TestLentPaneRefusals: a loan with no terminal, of a chat of another size,
// of a chat not running, an ACP chat's, with a cursor that is not SGR or
// too much to hand back; the terminal of a refused loan is let go of.
func TestLentPaneRefusals(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := startedShell(t, r)
	p := testPane
	p.ID = chat.ID
	r.dial().fails(proto.CodeInvalidParams, proto.MethodLendPane, p)

	stopped := newShellChat(r)
	var acp proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Harness: "opencode"}, &acp)
	for name, mod := range map[string]func(*proto.LendPaneParams){
		"another size":         func(p *proto.LendPaneParams) { p.Cols = 41 },
		"not running":          func(p *proto.LendPaneParams) { p.ID = stopped.ID },
		"an ACP chat":          func(p *proto.LendPaneParams) { p.ID = acp.ID },
		"a cursor not SGR":     func(p *proto.LendPaneParams) { p.CursorOn = "\x1b]2;title\a" },
		"a cursor too long":    func(p *proto.LendPaneParams) { p.CursorOn = strings.Repeat("\x1b[7m", 20) },
		"too much handed back": func(p *proto.LendPaneParams) { p.HandBack = make([]byte, proto.MaxHandBack+1) },
		"a place off screen":   func(p *proto.LendPaneParams) { p.X = -1 },
	} {
		q := p
		mod(&q)
		lt := lend(t, r, lendPaneLine(t, q))
		if rep := lt.w.read(); rep.Error == nil || rep.Error.Code != proto.CodeInvalidParams {
			t.Errorf("%s: the loan was answered %+v", name, rep)
		}
		if lt.heldByServer() {
			t.Errorf("%s: the server holds the terminal of a refused loan", name)
		}
	}
}

// TestLentPaneKeysReadAsItEndsGoBack: keys the reader reads as another
// end of the loan begins (the chat's, the TUI's) are not lost: they go
// back with that end, which waits for the reader before it tells.
func TestLentPaneKeysReadAsItEndsGoBack(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := startedShell(t, r)
	lt := lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>")
	lp := r.srv.views.lentPanes()[0]
	// Another end has begun, as the reader meets the leave key.
	lp.mu.Lock()
	lp.ending = true
	lp.mu.Unlock()
	lp.end([]byte("\x1dj"), proto.PaneEndKey, true)
	lp.mu.Lock()
	got := string(lp.rest)
	lp.mu.Unlock()
	if got != "\x1dj" {
		t.Errorf("the keys read as the loan ended were dropped: rest %q", got)
	}
	// The end begun above, carried out: the keys go back with it.
	lp.mu.Lock()
	lp.ending = false
	lp.mu.Unlock()
	lp.end(nil, proto.PaneEndBack, false)
	if e := lt.paneEnded(); string(e.Rest) != "\x1dj" {
		t.Errorf("the end handed back %q", e.Rest)
	}
}

// TestLentPaneEndSendsTheTUIsCopyFirst: while a pane is lent, the TUI's
// own copy of the chat waits for the frame; as the loan ends it is sent at
// once, before the end is told, so a TUI that makes a call after the end
// has the screen the server drew last before the answer.
func TestLentPaneEndSendsTheTUIsCopyFirst(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := startedShell(t, r)
	chatShows(t, r, chat.ID, "ready>")
	// From here a frame long enough that only the end's flush can bring
	// the echo before the answer below.
	r.srv.views.frame.Store(int64(time.Hour))
	tui := r.dial()
	tui.ok(proto.MethodWatch, proto.SizeParams{Cols: testPane.Cols, Rows: testPane.Rows}, nil)
	tui.ok(proto.MethodShow, proto.ShowParams{IDs: []string{chat.ID}}, nil)
	lt := lendPaneOf(t, r, chat.ID)
	lt.waitRow(0, "ready>")
	lt.typeKeys("z")
	lt.waitRow(0, "ready>z")
	lt.w.send(`{"jsonrpc":"2.0","method":"` + proto.MethodPaneBack + `"}`)
	lt.paneEnded()

	tui.send(`{"jsonrpc":"2.0","id":99,"method":"` + proto.MethodHello + `"}`)
	var before strings.Builder
	for {
		tui.nc.SetReadDeadline(time.Now().Add(hangDeadline))
		line, err := tui.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer to hello: %v", err)
		}
		if strings.Contains(string(line), `"id":99`) {
			break
		}
		before.Write(line)
	}
	if !strings.Contains(before.String(), "ready>z") {
		t.Fatalf("the TUI's copy of the chat did not come before the answer after the end:\n%s", before.String())
	}
}
