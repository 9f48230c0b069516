package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/screen"
	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// tuiProcess is the real TUI (the acpmux-tui binary, bare) in a 160x45 pty
// this process made. Its output is read and thrown away, as a terminal
// that draws it would take it; the two questions it asks of its terminal
// at start (the background colour, OSC 11, and the cursor position, DSR)
// are answered as xterm answers them, so its start does not wait on their
// timeout.
type tuiProcess struct {
	cmd    *exec.Cmd
	master *os.File
	done   chan struct{} // closed when the reader ends

	read atomic.Int64 // bytes of output read

	mu    sync.Mutex
	want  string        // what the first frame must show
	seen  []byte        // output before the first frame, to look for want in
	ready chan struct{} // closed once want was seen
	start time.Time     // when the process was started
	frame time.Time     // when want was seen

	// scr, when set (startOnScreen), is the emulated 160x45 screen every
	// byte of output is drawn on; awaitScreen's test is tried after each
	// read that changed it.
	scr     *screen.Screen
	scrTest func(*screen.Screen) bool
	scrAt   chan time.Time
}

// The queries a starting TUI sends, and xterm's answers.
var tuiQueries = []struct{ ask, answer string }{
	{"\x1b]11;?", "\x1b]11;rgb:0000/0000/0000\x1b\\"}, // OSC 11: background colour
	{"\x1b[6n", "\x1b[1;1R"},                          // DSR: cursor position
}

// maxSeen bounds the output kept while waiting for the first frame.
const maxSeen = 4 << 20

// startTUI runs `binary` (the TUI, on the agent home and config of this
// process's environment) in a 160x45 pty. want is text its first frame
// must show (the sidebar's "chats N"): waitReady waits for it.
// With BENCH_TUI_CPUPROFILE set, the TUI writes a CPU profile there
// (ACPMUX_CPUPROFILE; the server, started with this process's
// environment, takes that variable as it is).
func startTUI(binary, want string) (*tuiProcess, error) {
	cmd := exec.Command(binary)
	if p := os.Getenv("BENCH_TUI_CPUPROFILE"); p != "" {
		cmd.Env = append(os.Environ(), "ACPMUX_CPUPROFILE="+p)
	}
	return startInPty(cmd, want)
}

// startInPty runs cmd (the TUI, or a tmux client to compare with) in a
// 160x45 pty, with TERM=xterm-256color added to its environment and / as
// its folder; waitReady waits for its output to show want.
func startInPty(cmd *exec.Cmd, want string) (*tuiProcess, error) {
	return startPty(cmd, want, false)
}

// startPty is startInPty; with onScreen, every byte of output is also
// drawn on an emulated screen of the pty's size (startOnScreen).
func startPty(cmd *exec.Cmd, want string, onScreen bool) (*tuiProcess, error) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	cmd.Dir = "/"
	begin := time.Now()
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: benchCols, Rows: benchRows})
	if err != nil {
		return nil, fmt.Errorf("start %s in a pty: %w", cmd, err)
	}
	t := &tuiProcess{cmd: cmd, master: master, done: make(chan struct{}), want: want, ready: make(chan struct{}), start: begin}
	if onScreen {
		t.scr = screen.New(benchCols, benchRows, 0)
	}
	go t.readLoop()
	return t, nil
}

// firstFrame is the time from the process's start to the output that
// showed what it was started to show; zero until then.
func (t *tuiProcess) firstFrame() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.frame.IsZero() {
		return 0
	}
	return t.frame.Sub(t.start)
}

// pid is the TUI's process id.
func (t *tuiProcess) pid() int { return t.cmd.Process.Pid }

// readLoop reads the TUI's output until its pty ends (EIO once it has
// exited and the master is closed), answering its queries.
func (t *tuiProcess) readLoop() {
	defer close(t.done)
	buf := make([]byte, 64<<10)
	var tail []byte // the end of the last read, for a query split across reads
	for {
		n, err := t.master.Read(buf)
		at := time.Now()
		if n > 0 {
			t.read.Add(int64(n))
			chunk := append(tail, buf[:n]...)
			for _, q := range tuiQueries {
				for i := 0; ; {
					j := bytes.Index(chunk[i:], []byte(q.ask))
					if j < 0 {
						break
					}
					// A query wholly inside the tail was answered already.
					if i+j+len(q.ask) > len(tail) {
						t.master.Write([]byte(q.answer))
					}
					i += j + len(q.ask)
				}
			}
			tail = append([]byte(nil), chunk[max(len(chunk)-16, 0):]...)
			t.lookForFrame(buf[:n], at)
			t.drawOnScreen(buf[:n], at)
		}
		if err != nil {
			return
		}
	}
}

// lookForFrame keeps output until the first frame showing want has come;
// at is when p was read, the frame's time if it completes it.
func (t *tuiProcess) lookForFrame(p []byte, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen == nil && t.want == "" {
		return
	}
	t.seen = append(t.seen, p...)
	if strings.Contains(ansi.Strip(string(t.seen)), t.want) {
		t.frame = at
		close(t.ready)
		t.seen, t.want = nil, ""
		return
	}
	if len(t.seen) > maxSeen {
		t.seen = t.seen[len(t.seen)-maxSeen/2:]
	}
}

// waitReady waits until the TUI has drawn a frame showing what startTUI
// was given, or fails once it has ended or the deadline has passed.
func (t *tuiProcess) waitReady() error {
	select {
	case <-t.ready:
		return nil
	case <-t.done:
		return errors.New("the TUI ended before it drew its first frame (see the agent home's log)")
	case <-time.After(serverWait):
		return fmt.Errorf("the TUI drew no frame showing %q in %s", t.want, serverWait)
	}
}

// bytesRead is how much output the TUI has written so far.
func (t *tuiProcess) bytesRead() int64 { return t.read.Load() }

// close hangs the TUI up as a closed terminal does (SIGHUP: it leaves, and
// the chats keep running in the server), kills it if it has not ended in
// 5 s, and reaps it.
func (t *tuiProcess) close() error {
	t.cmd.Process.Signal(syscall.SIGHUP)
	exited := make(chan error, 1)
	go func() { exited <- t.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(5 * time.Second):
		t.cmd.Process.Kill()
		<-exited
		err = errors.New("the TUI did not end within 5 s of SIGHUP; killed")
	}
	t.master.Close()
	<-t.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // ended by the hangup: how it exits does not matter here
	}
	return err
}
