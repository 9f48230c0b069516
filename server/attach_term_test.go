package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/termmodes"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// lentTerm is a real terminal (a pty) whose terminal side a test client
// lends the server with MethodAttachTerminal, as `acpmux-tui attach` does:
// the test types on the pty's master side and reads what the terminal
// was sent, and reads the connection's lines on w.
type lentTerm struct {
	t    *testing.T
	ptmx *os.File // the terminal's far side: keys in, output out
	tty  *os.File // the client's own copy of the terminal side
	w    *wire

	mu   sync.Mutex
	got  bytes.Buffer // everything the terminal was sent
	scr  *screen.Screen
	done chan struct{} // closed when the master side's reader ends
}

// lend opens a raw pty, dials the rig's server and sends first with the
// terminal side's descriptor as both input and output.
func lend(t *testing.T, r *rig, first string) *lentTerm {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	lt := &lentTerm{t: t, ptmx: ptmx, tty: tty, scr: screen.New(80, 24, 0), done: make(chan struct{})}
	t.Cleanup(func() { ptmx.Close(); tty.Close(); <-lt.done })
	go func() {
		defer close(lt.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			lt.mu.Lock()
			lt.got.Write(buf[:max(n, 0)])
			lt.scr.Write(buf[:max(n, 0)])
			lt.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: proto.SocketPath(r.home), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fd := int(tty.Fd())
	if _, _, err := nc.WriteMsgUnix([]byte(first), unix.UnixRights(fd, fd), nil); err != nil {
		t.Fatal(err)
	}
	lt.w = &wire{t: t, nc: nc, r: bufio.NewReader(nc)}
	return lt
}

// attachTerminalLine is the call that lends the terminal, as the first
// message.
func attachTerminalLine(t *testing.T, p proto.AttachParams) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": proto.MethodAttachTerminal, "params": p})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func (lt *lentTerm) sent() string {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.got.String()
}

func (lt *lentTerm) waitScreen(text string) {
	lt.t.Helper()
	wait.UntilShow(lt.t, "the lent terminal to show "+text, func() bool {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		return strings.Contains(strings.Join(plain(lt.scr), "\n"), text)
	}, func() string { return lt.sent() })
}

// waitReset waits until the terminal's last bytes are the reset that
// gives it back (the server writes it before it tells the end, and
// nothing after it; the test's reader of the pty may come later).
func (lt *lentTerm) waitReset() {
	lt.t.Helper()
	wait.UntilShow(lt.t, "the reset to reach the terminal, last", func() bool {
		return strings.HasSuffix(lt.sent(), termmodes.RestoreTitles+"\x1b[m")
	}, lt.sent)
}

func (lt *lentTerm) typeKeys(s string) {
	lt.t.Helper()
	if _, err := lt.ptmx.WriteString(s); err != nil {
		lt.t.Fatal(err)
	}
}

// notification reads the connection up to the next notification of method.
func (lt *lentTerm) notification(method string) json.RawMessage {
	lt.t.Helper()
	for {
		var l struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		lt.w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
		line, err := lt.w.r.ReadBytes('\n')
		if err != nil {
			lt.t.Fatalf("no %s within %s: %v", method, hangDeadline, err)
		}
		if json.Unmarshal(line, &l) == nil && l.Method == method {
			return l.Params
		}
	}
}

// heldByServer reports whether this process (the server's) holds a
// descriptor of the lent terminal other than the test's own.
func (lt *lentTerm) heldByServer() bool {
	lt.t.Helper()
	var own unix.Stat_t
	fd, err := fdOf(lt.tty) // not Fd, which would make the terminal blocking under the server
	if err != nil {
		lt.t.Fatal(err)
	}
	if err := unix.Fstat(fd, &own); err != nil {
		lt.t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		lt.t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		var st unix.Stat_t
		if unix.Stat("/proc/self/fd/"+e.Name(), &st) == nil && st.Rdev == own.Rdev && st.Mode&unix.S_IFMT == unix.S_IFCHR {
			n++
		}
	}
	return n > 1
}

// TestLentTerminalTypesDrawsAndDetaches: the server draws the chat on a
// terminal handed over to it and reads its keys itself; ctrl+] ends it:
// the client is told after the modes were reset and the server let go of
// the terminal (what is typed then stays for the shell), and the harness
// keeps running.
func TestLentTerminalTypesDrawsAndDetaches(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	lt := lend(t, r, attachTerminalLine(t, proto.AttachParams{ID: chat.ID, Cols: 80, Rows: 24}))
	if rep := lt.w.read(); rep.Error != nil || string(rep.Result) != "{}" {
		t.Fatalf("the hand-over was answered %+v", rep)
	}
	lt.waitScreen("ready>")
	rec := r.waitRecords(1)[0]
	if rec.Cols != 80 || rec.Rows != 24 {
		t.Errorf("the harness started at %dx%d, want the terminal's 80x24", rec.Cols, rec.Rows)
	}
	if !strings.HasPrefix(lt.sent(), termmodes.SaveTitles) {
		t.Errorf("the titles were not pushed first: %q", lt.sent())
	}
	lt.typeKeys("typed on the terminal\r")
	lt.waitScreen("echo: typed on the terminal")
	if !lt.heldByServer() {
		t.Fatal("the server holds no descriptor of the terminal while attached")
	}

	lt.typeKeys("\x1d")
	var p proto.DetachParams
	if err := json.Unmarshal(lt.notification(proto.NotifyDetached), &p); err != nil || p.ID != chat.ID {
		t.Fatalf("detached: %+v %v", p, err)
	}
	if lt.heldByServer() {
		t.Fatal("the server still holds the terminal after it said detached")
	}
	lt.waitReset()
	lt.typeKeys("for the shell")
	lt.tty.SetReadDeadline(time.Now().Add(hangDeadline))
	buf := make([]byte, 64)
	if n, err := lt.tty.Read(buf); err != nil || string(buf[:n]) != "for the shell" {
		t.Fatalf("after the detach the terminal's client read %q, %v", buf[:n], err)
	}
	if err := syscall.Kill(rec.Pid, 0); err != nil {
		t.Fatalf("the harness is gone after a detach: %v", err)
	}
}

// TestLentTerminalHarnessEnds: the harness's end is told after its last
// output and the reset, once the terminal is let go of.
func TestLentTerminalHarnessEnds(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	lt := lend(t, r, attachTerminalLine(t, proto.AttachParams{ID: chat.ID, Cols: 80, Rows: 24}))
	lt.w.read()
	lt.waitScreen("ready>")
	lt.typeKeys("last words\r\x04")
	var e proto.ExitedParams
	if err := json.Unmarshal(lt.notification(proto.NotifyExited), &e); err != nil || e.How != "exit status 0" {
		t.Fatalf("exited: %+v %v", e, err)
	}
	if lt.heldByServer() {
		t.Fatal("the server still holds the terminal after the end")
	}
	lt.waitReset()
	sent := lt.sent()
	if i, j := strings.LastIndex(sent, "echo: last words"), strings.LastIndex(sent, termmodes.RestoreTitles); i < 0 || j < i {
		t.Fatalf("the terminal was not sent the last output, then the reset: %q", sent)
	}
}

// TestLentTerminalClientGone: a client that dies under a lent terminal
// (its connection ends) leaves the server holding nothing of it, and the
// terminal reset and blocking again.
func TestLentTerminalClientGone(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	lt := lend(t, r, attachTerminalLine(t, proto.AttachParams{ID: chat.ID, Cols: 80, Rows: 24}))
	lt.w.read()
	lt.waitScreen("ready>")
	lt.w.nc.Close()
	wait.UntilShow(t, "the server to let go of the terminal of a client gone", func() bool { return !lt.heldByServer() }, lt.sent)
	lt.waitReset()
	// Blocking again, for the shell the dead client leaves it to.
	fd, err := fdOf(lt.tty) // not Fd, which would make it blocking itself
	if err != nil {
		t.Fatal(err)
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Fatalf("the terminal is left non-blocking (%v)", err)
	}
}

// TestLentTerminalRefusals: the call without a terminal, or not as the
// first message; a chat that speaks ACP (the terminal is let go of at
// once); input or a resync on the stream of a lent terminal.
func TestLentTerminalRefusals(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	w := r.dial()
	w.fails(proto.CodeInvalidParams, proto.MethodAttachTerminal, proto.AttachParams{ID: chat.ID, Cols: 80, Rows: 24})

	var acp proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "opencode"}, &acp)
	lt := lend(t, r, attachTerminalLine(t, proto.AttachParams{ID: acp.ID, Cols: 80, Rows: 24}))
	if rep := lt.w.read(); rep.Error == nil || rep.Error.Code != proto.CodeInvalidParams {
		t.Fatalf("an ACP chat lent a terminal: %+v", rep)
	}
	if lt.heldByServer() {
		t.Fatal("the server holds the terminal of a refused call")
	}

	lt = lend(t, r, attachTerminalLine(t, proto.AttachParams{ID: chat.ID, Cols: 80, Rows: 24}))
	lt.w.read()
	lt.waitScreen("ready>")
	lt.w.next = 1
	lt.w.fails(proto.CodeFailed, proto.MethodAttachInput, proto.AttachInputParams{ID: chat.ID, Data: []byte("x")})
	lt.w.fails(proto.CodeFailed, proto.MethodAttach, proto.AttachParams{ID: chat.ID, Resync: true})
	lt.w.fails(proto.CodeInvalidParams, proto.MethodAttachTerminal, proto.AttachParams{ID: chat.ID, Cols: 80, Rows: 24})
}
