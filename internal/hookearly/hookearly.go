// Package hookearly runs `acpmux-tui hook EVENT [PAYLOAD]` from its init,
// before the packages whose inits are slow run: go-runewidth's builds a
// 2 MB table (20 to 50 ms), and the hook is waited for by Claude Code at
// every tool call. Go initializes packages in the order of their import
// paths, each as soon as everything it imports is: this one sorts before
// github.com/mattn/go-runewidth and imports only standard packages that
// are initialized before it, so its init runs first, and for a hook it
// exits the process there. It must never import net (initialized late),
// nor any package of this module: TestHookRunsBeforeSlowInits checks.
//
// The hook is what a harness runs to tell the server where its turn is:
// Claude Code runs `acpmux-tui hook EVENT` as a command hook (the event's
// JSON on stdin), Codex `acpmux-tui hook codex-notify JSON` as its notify
// program. It reports to the server of $ACPMUX_HOME for the chat
// $ACPMUX_CHAT_ID with one _acpmux/hook call and waits for the answer, so
// hooks run one after another reach the server in order. It never prints
// (Claude Code would show it) and always exits 0; whatever goes wrong (no
// chat id, no server, a slow one, a stdin that never ends) it gives up
// silently, and within Ceiling of its exec: one deadline bounds all it
// does, read from the process's own start time. A server that did not
// answer one hook is given far less by the hooks that follow it for a
// few seconds (hung.go).
//
// main imports it for this side effect only. Exiting from an init is an
// exception to "nothing below main exits", made for speed.
package hookearly

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The contract, as harness and server have it (e2e/hook_test.go and
// e2e/hook_early_test.go check they agree): these are not imported, as those
// packages' inits are the slow ones.
const (
	hookCommand    = "hook"                // harness.HookCommand
	codexHookEvent = "codex-notify"        // harness.CodexHookEvent
	envChatID      = "ACPMUX_CHAT_ID"      // harness.EnvChatID
	envHome        = "ACPMUX_HOME"         // harness.EnvHome
	envCodexNotify = "ACPMUX_CODEX_NOTIFY" // harness.EnvCodexNotify
	methodHook     = "_acpmux/hook"        // proto.MethodHook
	socketName     = "acpmux.sock"         // proto.SocketName
	envTmpdir      = "TMPDIR"              // where the hung-server marker is (hung.go)
)

const (
	// InputMax is how much of a hook's stdin is kept for parsing: the rest
	// (a PostToolUse's tool output can be megabytes) is read and dropped.
	InputMax = 1 << 20
	// Ceiling is the documented bound on one hook call, from its exec to
	// its exit (docs/cli.md), whatever the server or stdin does. A hook
	// to a healthy server takes 2 ms (p50; 4.5 ms p99) from exec to exit,
	// 5 ms (11 ms p99) with two busy loops on two cores, of which its
	// answer, from the connect, 1 ms and 5 ms (p99), 8 ms at worst
	// (internal/benchtool's hook row, 1000 runs): the budget is some
	// seven times the loaded p99.
	Ceiling = 100 * time.Millisecond
	// Budget is what the hook gives itself from its exec: reading stdin,
	// the connect, the write and the answer all end by then. The rest of
	// Ceiling is for waking at the deadline and exiting, which a loaded
	// machine slows.
	Budget = 80 * time.Millisecond
	// CallReserve is what a Notification keeps of the budget for its call
	// when its stdin does not end: its stdin has the rest.
	CallReserve = 30 * time.Millisecond
	// MessageMax and TypeMax bound what a Notification's message and type
	// (and an event's name, or Codex's type) carry to the server.
	MessageMax = 4 << 10
	TypeMax    = 256
	// answerMax bounds one line read from the server.
	answerMax = 4 << 10
	// minLeft is what the hook keeps for itself when its exec alone took
	// the budget (a machine that slow misses the ceiling anyway): what it
	// gives a server it believes hung, so a server that does not answer
	// within it is judged hung either way.
	minLeft = HungBudget
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == hookCommand {
		Run(os.Args[2:], 0, os.Getenv, time.Now().Add(untilBudget()))
		os.Exit(0)
	}
}

// Params are proto.HookParams.
type Params struct {
	ID               string `json:"id"`
	Event            string `json:"event"`
	NotificationType string `json:"notificationType,omitempty"`
	Message          string `json:"message,omitempty"`
	Payload          string `json:"payload,omitempty"`
}

// Run is the hook subcommand: args are EVENT and, for codex-notify, the
// notification's JSON last; stdin is the file descriptor of the event's
// input. Everything it does ends by deadline: a caller that leaves stdin
// open, a server that does not accept or does not answer, cannot hold it
// longer. It never prints and never fails.
func Run(args []string, stdin int, getenv func(string) string, deadline time.Time) {
	defer func() { _ = recover() }() // a panic's trace would reach the harness's screen
	if len(args) == 0 || args[0] == "" || len(args[0]) > TypeMax {
		return
	}
	p := Params{ID: getenv(envChatID), Event: args[0]}
	home, tmpdir := getenv(envHome), getenv(envTmpdir)
	if p.Event == codexHookEvent {
		// Codex's stdin may be the user's terminal: it is never read.
		if len(args) > 1 {
			p.Payload = ParseCodexNotify(args[len(args)-1])
		}
		reportMarked(home, tmpdir, p, deadline)
		if len(args) > 1 {
			passOn(getenv(envCodexNotify), args[len(args)-1])
		}
		return
	}
	// Claude Code writes the event's JSON on stdin and closes it. Only a
	// Notification's fields are sent on, read until the JSON is whole (or
	// its stdin ends); every other event is reported first. Then stdin is
	// read to its end, so Claude Code's write never fails, until the
	// deadline.
	in := input{fd: stdin}
	if p.Event == "Notification" {
		in.keep = true
		in.read(deadline.Add(-CallReserve), wholeObject)
		p.NotificationType, p.Message = ParseInput(in.kept)
		in.keep, in.kept = false, nil
	}
	reportMarked(home, tmpdir, p, deadline)
	in.read(deadline, nil)
}

// input reads a hook's stdin, a file descriptor, with a deadline: it waits
// for data with select(2), so a stdin left open (a pipe whose writer never
// closes it, a terminal) cannot block it past the deadline.
type input struct {
	fd    int
	keep  bool   // keep the first InputMax bytes in kept
	kept  []byte // what was kept
	ended bool   // its end (or an error) was read
}

// read reads until stdin ends, until enough (if not nil) says what is kept
// is enough, or until deadline. Past the deadline (a start so slow it took
// the time stdin had) it still reads once what is there already: Claude
// Code has written the event before it is waited for.
func (in *input) read(deadline time.Time, enough func([]byte) bool) {
	buf := make([]byte, 64<<10)
	for !in.ended {
		left := max(time.Until(deadline), 0)
		ready, err := waitReadable(in.fd, left)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			in.ended = true // no stdin at all (closed: EBADF)
			return
		}
		if !ready {
			if left == 0 {
				return
			}
			continue // the deadline: the next look is the last
		}
		n, err := syscall.Read(in.fd, buf)
		if err == syscall.EINTR || (err == syscall.EAGAIN && left > 0) {
			continue
		}
		if err == syscall.EAGAIN {
			return
		}
		if err != nil || n <= 0 {
			in.ended = true
			return
		}
		if in.keep && len(in.kept) < InputMax {
			in.kept = append(in.kept, buf[:min(n, InputMax-len(in.kept))]...)
			if enough != nil && enough(in.kept) {
				return
			}
		}
		if left == 0 {
			return
		}
	}
}

// wholeObject reports whether b is a whole JSON object (with blanks
// around it): Claude Code's event, all there even if stdin stays open.
func wholeObject(b []byte) bool {
	i := len(b)
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\n' || b[i-1] == '\r' || b[i-1] == '\t') {
		i--
	}
	return i > 0 && b[i-1] == '}' && json.Valid(b)
}

// passOn runs the notify program of the user's own Codex config (own, a
// JSON array), which `-c notify=` replaced, with the notification as Codex
// gives it: the JSON as the last argument. It is started, not waited for
// (its reaper is init once the hook has exited), with no terminal.
func passOn(own, notification string) {
	var argv []string
	if own == "" || json.Unmarshal([]byte(own), &argv) != nil || len(argv) == 0 || argv[0] == "" {
		return
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer null.Close()
	attr := &os.ProcAttr{Env: os.Environ(), Files: []*os.File{null, null, null}, Sys: &syscall.SysProcAttr{Setsid: true}}
	if p, err := os.StartProcess(path, append(argv, notification), attr); err == nil {
		_ = p.Release()
	}
}

// ParseInput reads a Claude Code hook event's JSON and returns what a
// Notification carries: its type ("permission_prompt", "idle_prompt"...;
// older versions send none) and its message, each cut to a bound. Input
// that is not a JSON object gives empty strings.
func ParseInput(b []byte) (notificationType, message string) {
	var in struct {
		NotificationType string `json:"notification_type"`
		Message          string `json:"message"`
	}
	if json.Unmarshal(b, &in) != nil {
		return "", ""
	}
	return CutUTF8(in.NotificationType, TypeMax), CutUTF8(in.Message, MessageMax)
}

// ParseCodexNotify returns the type of a Codex notification
// (`{"type":"agent-turn-complete",...}`), or "".
func ParseCodexNotify(arg string) string {
	var n struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(arg), &n) != nil {
		return ""
	}
	return CutUTF8(n.Type, TypeMax)
}

// CutUTF8 cuts s to at most max bytes, on a character boundary.
func CutUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// request is the one call the hook makes.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  Params `json:"params"`
}

// outcome is how a report ended.
type outcome int

const (
	// unreached: no server to wait for (no socket, nobody listening) or
	// nothing to report.
	unreached outcome = iota
	// answered: the server answered, or hung up: it is not hung.
	answered
	// timedOut: the deadline came while the hook connected (the server's
	// queue full), wrote (its buffer full) or waited for the answer.
	timedOut
)

// report sends p to the server of the agent home and waits for its answer,
// whatever it is (an error answer, as from a server that does not know the
// method, ends the call too), until deadline at most, and says how it
// ended. Without a home or a chat id, or with no server, it does nothing.
// The socket is a raw one with kernel timeouts: package net is initialized
// too late to be used.
func report(home string, p Params, deadline time.Time) outcome {
	if home == "" || p.ID == "" {
		return unreached
	}
	line, err := json.Marshal(request{JSONRPC: "2.0", ID: 1, Method: methodHook, Params: p})
	if err != nil {
		return unreached
	}
	addr := filepath.Join(home, socketName)
	if len(addr) > maxSunPath {
		var release func()
		if addr, release = longAddr(home); addr == "" {
			return unreached
		}
		defer release()
	}
	fd, err := unixSocket()
	if err != nil {
		return unreached
	}
	defer syscall.Close(fd)
	// timeout sets the socket's send and receive timeouts to what is left
	// of the deadline (a unix socket's connect waits as a send does); it
	// is false once the deadline has passed.
	timeout := func() bool {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		tv := syscall.NsecToTimeval(int64(left))
		return syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv) == nil &&
			syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv) == nil
	}
	// failed tells a kernel timeout (EAGAIN) from any other failure.
	failed := func(err error, otherwise outcome) outcome {
		if err == syscall.EAGAIN {
			return timedOut
		}
		return otherwise
	}
	if !timeout() {
		return timedOut
	}
	if err := retry(func() error { return syscall.Connect(fd, &syscall.SockaddrUnix{Name: addr}) }); err != nil {
		return failed(err, unreached)
	}
	for b := append(line, '\n'); len(b) > 0; {
		if !timeout() {
			return timedOut
		}
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return failed(err, answered) // EPIPE: the server hung up
		}
		b = b[n:]
	}
	// Read lines until the answer: a notification (a method, no id) is not.
	buf := make([]byte, 0, answerMax)
	for {
		if !timeout() {
			return timedOut
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return failed(err, answered) // the server closed, or the timeout
		}
		buf = buf[:len(buf)+n]
		for {
			i := indexNewline(buf)
			if i < 0 {
				break
			}
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(buf[:i], &msg) != nil || msg.Method == "" {
				return answered
			}
			buf = append(buf[:0], buf[i+1:]...)
		}
		if len(buf) == cap(buf) {
			return answered // a line too long: an answer of some kind
		}
	}
}

// retry runs a system call again while a signal interrupts it.
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}
