//go:build linux

package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/proto"
	"golang.org/x/sys/unix"
)

// handedSocket is a connection made by one process (the connector,
// `sockhold handoff`) and used by its child (the holder, `sockhold hold`),
// which outlives it.
type handedSocket struct {
	t         *testing.T
	connector *exec.Cmd
	pid       int // the connector's: the connection's peer pid
	holder    int
	holderFd  int      // a pidfd of the holder
	lines     *os.File // the holder's stdin
	answers   *bufio.Reader
	next      int
	ended     bool
}

// handSocket starts a connector on socket and waits for it to hand its
// connection to the holder. The holder is made to exit, and seen to, at the
// end of the test.
func handSocket(t *testing.T, socket string) *handedSocket {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &handedSocket{t: t, lines: inW, answers: bufio.NewReader(outR), holderFd: -1}
	h.connector = exec.Command(buildSockhold(t), "handoff", socket)
	h.connector.Stdin, h.connector.Stdout, h.connector.Stderr = inR, outW, os.Stderr
	if err := h.connector.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	t.Cleanup(func() { h.end(); outR.Close() })
	l := h.line("the connector's handing on")
	if _, err := fmt.Sscanf(l, "handed %d %d", &h.pid, &h.holder); err != nil {
		t.Fatalf("the connector said %q", l)
	}
	if h.pid != h.connector.Process.Pid {
		t.Fatalf("the connector says it is %d, started as %d", h.pid, h.connector.Process.Pid)
	}
	if h.holderFd, err = unix.PidfdOpen(h.holder, 0); err != nil {
		t.Fatalf("the holder %d: pidfd_open: %v", h.holder, err)
	}
	return h
}

// line reads the next line a process of the pair printed.
func (h *handedSocket) line(what string) string {
	h.t.Helper()
	got := make(chan string, 1)
	go func() {
		l, _ := h.answers.ReadString('\n')
		got <- strings.TrimSpace(l)
	}()
	select {
	case l := <-got:
		return l
	case <-time.After(hangDeadline):
		h.t.Fatalf("no line from %s", what)
	}
	return ""
}

// call has the holder make a call on the handed connection.
func (h *handedSocket) call(method string, params any) reply {
	h.t.Helper()
	h.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.next, "method": method, "params": params})
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.lines.Write(append(b, '\n')); err != nil {
		h.t.Fatalf("to the holder: %v", err)
	}
	l := h.line("the holder's answer to " + method)
	var rep reply
	if err := json.Unmarshal([]byte(l), &rep); err != nil {
		h.t.Fatalf("the holder printed %q", l)
	}
	return rep
}

// exitConnector kills the connector; with reap, waits for it, which frees
// its pid, else waits until it is a zombie that holds it.
func (h *handedSocket) exitConnector(reap bool) {
	h.t.Helper()
	h.connector.Process.Kill()
	if reap {
		h.connector.Wait()
		return
	}
	waitFor(h.t, fmt.Sprintf("the connector %d a zombie", h.pid), func() bool {
		f, err := procStatFields(h.pid)
		return err == nil && len(f) > 0 && string(f[0]) == "Z"
	})
}

// end makes the holder exit (its stdin ends; it is killed if that is not
// enough) and sees it gone, and reaps the connector.
func (h *handedSocket) end() {
	if h.ended {
		return
	}
	h.ended = true
	h.lines.Close()
	h.connector.Process.Kill()
	h.connector.Wait()
	if h.holderFd < 0 {
		return
	}
	defer unix.Close(h.holderFd)
	gone := func(wait time.Duration) bool {
		fds := []unix.PollFd{{Fd: int32(h.holderFd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(wait.Milliseconds()))
		return err == nil && n > 0
	}
	if !gone(hangDeadline) {
		unix.PidfdSendSignal(h.holderFd, unix.SIGKILL, nil, 0)
		if !gone(hangDeadline) {
			h.t.Errorf("the holder %d is still running", h.holder)
		}
	}
	// In a pid namespace this process leads, the holder, orphaned, is its
	// child: reap it.
	if os.Getpid() == 1 {
		var ws unix.WaitStatus
		unix.Wait4(h.holder, &ws, 0, nil)
	}
}

// chatStatus is what the list says of a chat's status.
func chatStatus(t *testing.T, r *rig, id string) string {
	t.Helper()
	w := r.dial()
	defer w.nc.Close()
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	for _, c := range list.Chats {
		if c.ID == id {
			return c.Status
		}
	}
	t.Fatalf("chat %s is not listed", id)
	return ""
}

const (
	ignoredGone    = "ignored a status report from a connection whose process does not run"
	ignoredOutside = "ignored a status report from outside the chat's harness"
)

// TestHookFromAHandedOnSocket: a status report is taken from a connection
// whose process is, by its pid, the chat's harness's (here: said to be)
// only while the process that connected runs. Once that process has
// exited — a zombie whose pid is not free yet, then reaped and its pid free
// for another — the report its child sends on the socket it was handed is
// ignored and logged, as a report from outside the chat is.
func TestHookFromAHandedOnSocket(t *testing.T) {
	for _, pidfds := range []bool{true, false} {
		t.Run(fmt.Sprintf("pidfds=%v", pidfds), func(t *testing.T) {
			if pidfds && !peerPidfds() {
				t.Skip("the kernel gives no pidfd of a socket's peer (SO_PEERPIDFD): the start time stands for it")
			}
			var log lockedbuf.Buffer
			var connector atomic.Int64
			r := newRig(t, rigOpt{
				opt: func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&log, nil)) },
				server: func(s *Server) {
					s.pidfds = pidfds
					// The connector's pid is the harness's, as a pid that a
					// process of the chat took would be.
					s.hookPeer = func(peer, _ int) bool { return int64(peer) == connector.Load() }
				},
			})
			w := r.dial()
			var chat proto.ChatJSON
			w.ok(proto.MethodNew, proto.NewParams{Name: "spoofed"}, &chat)
			w.ok(proto.MethodStart, proto.ChatParams{ID: chat.ID}, nil)
			w.nc.Close()

			h := handSocket(t, proto.SocketPath(r.home))
			connector.Store(int64(h.pid))
			report := func(event, kind string) {
				t.Helper()
				if rep := h.call(proto.MethodHook, proto.HookParams{ID: chat.ID, Event: event, NotificationType: kind}); rep.Error != nil {
					t.Fatalf("%s: %s", event, rep.Error.Message)
				}
			}

			report("Notification", "permission_prompt")
			if st := chatStatus(t, r, chat.ID); st != "asking" {
				t.Fatalf("while the connector runs, a report from its child: the chat is %s, want asking", st)
			}
			h.exitConnector(false)
			report("Stop", "")
			if st := chatStatus(t, r, chat.ID); st != "asking" {
				t.Fatalf("the connector a zombie, a report from its child was taken: the chat is %s", st)
			}
			h.exitConnector(true)
			report("Stop", "")
			if st := chatStatus(t, r, chat.ID); st != "asking" {
				t.Fatalf("the connector gone, a report from its child was taken: the chat is %s", st)
			}
			if n := strings.Count(log.String(), ignoredGone); n != 2 {
				t.Fatalf("%d reports logged as ignored for their process, want 2; the log:\n%s", n, log.String())
			}
		})
	}
}

// pidNSEnv is set in the copy of the test binary that runs in a private
// pid namespace (TestHookPidReuse).
const pidNSEnv = "ACPMUX_TEST_PIDNS"

// TestHookPidReuse is the attack for real: a process connects, hands its
// socket to a child and exits; the chat's harness then takes its pid; the
// child reports for the chat. The report is ignored and logged. It runs
// in a private pid namespace, where this process is the first (pid 1) and
// can set the pid the next process gets (ns_last_pid), so the harness takes
// the pid at once; it is skipped, saying why, where no such namespace can
// be had.
func TestHookPidReuse(t *testing.T) {
	if os.Getenv(pidNSEnv) == "1" {
		hookPidReuseInNamespace(t)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("no private pid namespace: %v", err)
	}
	// --kill-child: when unshare ends, so does everything in the
	// namespace.
	ns := []string{"--pid", "--fork", "--kill-child", "--mount-proc"}
	if os.Getuid() != 0 {
		ns = append([]string{"--user", "--map-root-user"}, ns...)
	}
	inner := 2 * hangDeadline
	ctx, cancel := context.WithTimeout(context.Background(), inner+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, unshare, append(ns, os.Args[0], "-test.run=^TestHookPidReuse$", "-test.v", "-test.count=1", "-test.timeout="+inner.String())...)
	cmd.Env = append(os.Environ(), pidNSEnv+"=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	switch {
	case strings.Contains(text, "--- PASS: TestHookPidReuse"):
		t.Logf("in a private pid namespace:\n%s", text)
	case strings.Contains(text, "--- SKIP: TestHookPidReuse"):
		t.Skipf("in a private pid namespace, skipped:\n%s", text)
	case strings.Contains(text, "--- FAIL: TestHookPidReuse") || ctx.Err() != nil:
		t.Fatalf("in a private pid namespace (%v):\n%s", err, text)
	default:
		t.Skipf("no private pid namespace (unshare %s): %v\n%s", strings.Join(ns, " "), err, text)
	}
}

// maxPidTries bounds the tries at having the harness take the pid: one
// fails when the server's own runtime takes a thread first.
const maxPidTries = 10

func hookPidReuseInNamespace(t *testing.T) {
	if os.Getpid() != 1 {
		t.Fatalf("in the namespace this process is %d, not 1", os.Getpid())
	}
	const lastPid = "/proc/sys/kernel/ns_last_pid"
	if b, err := os.ReadFile(lastPid); err != nil {
		t.Skipf("cannot read %s: %v", lastPid, err)
	} else if err := os.WriteFile(lastPid, b, 0); err != nil {
		t.Skipf("cannot set the next pid (%s): %v", lastPid, err)
	}
	var log lockedbuf.Buffer
	r := newRig(t, rigOpt{opt: func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&log, nil)) }})
	w := r.dial()
	var chat proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "target"}, &chat)

	for try := 1; try <= maxPidTries; try++ {
		h := handSocket(t, proto.SocketPath(r.home))
		h.exitConnector(true) // its pid is free
		if err := os.WriteFile(lastPid, []byte(strconv.Itoa(h.pid-1)), 0); err != nil {
			t.Fatalf("set %s: %v", lastPid, err)
		}
		w.ok(proto.MethodStart, proto.ChatParams{ID: chat.ID}, nil)
		var harnessPid int
		waitFor(t, "the harness's pid", func() bool { harnessPid = r.srv.opt.Mux.State(chat.ID).Pid; return harnessPid != 0 })
		if harnessPid != h.pid {
			t.Logf("try %d: the harness took pid %d, not %d", try, harnessPid, h.pid)
			w.ok(proto.MethodStop, proto.ChatParams{ID: chat.ID}, nil)
			waitFor(t, "the harness stopped", func() bool { return !r.srv.opt.Mux.State(chat.ID).Status.Live() })
			h.end()
			continue
		}
		t.Logf("try %d: the chat's harness took pid %d, the pid of the process that connected", try, h.pid)
		if !processOfHarness(h.pid, harnessPid) {
			t.Fatalf("the connector's old pid %d is not the harness's %d", h.pid, harnessPid)
		}
		if rep := h.call(proto.MethodHook, proto.HookParams{ID: chat.ID, Event: "Notification", NotificationType: "permission_prompt"}); rep.Error != nil {
			t.Fatalf("the report: %s", rep.Error.Message)
		}
		if st := chatStatus(t, r, chat.ID); st == "asking" {
			t.Fatalf("the report of the handed socket's holder was taken for the chat whose harness took the connector's pid")
		}
		if !strings.Contains(log.String(), ignoredGone) {
			t.Fatalf("the ignored report was not logged; the log:\n%s", log.String())
		}
		return
	}
	t.Skipf("in %d tries the harness never took the pid freed for it", maxPidTries)
}
