package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/creack/pty"
)

// This file holds the two paths the server's keystroke round trip is set
// beside: a bare pty, and a tmux pane driven through a control-mode client
// (one long-lived `tmux -C` connection, so no tmux process is started per
// key or per look at the pane).

// ptyKeys types n keys into `cat` in a bare 160x45 pty: each is a write to
// the master, and it has shown once its echo is read back.
func ptyKeys(n int, gap time.Duration) error {
	return keysAlone("pty-keys", n, gap, newPtyTyper)
}

// newPtyTyper starts `cat` in a bare 160x45 pty and returns the typer into
// it and what ends it.
func newPtyTyper() (keyTyper, func(), error) {
	cmd := exec.Command("/bin/cat")
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: benchCols, Rows: benchRows})
	if err != nil {
		return nil, nil, fmt.Errorf("start cat in a pty: %w", err)
	}
	done := func() {
		cmd.Process.Kill()
		cmd.Wait()
		master.Close()
	}
	return &ptyTyper{master: master, buf: make([]byte, 4096)}, done, nil
}

// ptyTyper types into a pty's master and reads the echo.
type ptyTyper struct {
	master *os.File
	buf    []byte
}

func (t *ptyTyper) typeKey(key byte, _ string) error {
	if _, err := t.master.Write([]byte{key}); err != nil {
		return err
	}
	return t.readUntil(func(p []byte) bool { return bytes.IndexByte(p, key) >= 0 })
}

// enter sends Enter and reads until two line ends have come: the echo's
// and cat's, after the line it printed back.
func (t *ptyTyper) enter(string) error {
	if _, err := t.master.Write([]byte{'\r'}); err != nil {
		return err
	}
	ends := 0
	return t.readUntil(func(p []byte) bool {
		ends += bytes.Count(p, []byte{'\n'})
		return ends >= 2
	})
}

// readUntil reads the master until done holds for what was read last.
func (t *ptyTyper) readUntil(done func(p []byte) bool) error {
	// Deadlines work on the master (creack/pty opens it non-blocking);
	// where they do not, the read simply blocks.
	_ = t.master.SetReadDeadline(time.Now().Add(keyWait))
	for {
		n, err := t.master.Read(t.buf)
		if n > 0 && done(t.buf[:n]) {
			return nil
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("no echo after %s", keyWait)
			}
			return fmt.Errorf("%w: %v", errNoEcho, err)
		}
	}
}

// tmuxKeys types n keys into `cat` in a 160x45 tmux pane of a server on
// socket name sock (tmux -L), through a control-mode client: each key is a
// send-keys command, and it has shown once capture-pane, asked when tmux
// reports the pane's output, ends with it. The tmux server is killed at
// the end.
func tmuxKeys(tmuxBin, sock string, n int, gap time.Duration) error {
	return keysAlone("tmux-keys", n, gap, func() (keyTyper, func(), error) { return newTmuxTyper(tmuxBin, sock) })
}

// newTmuxTyper starts a tmux server on socket name sock with a 160x45
// pane running `cat`, attaches a control-mode client, and returns the
// typer into the pane and what ends the client and the server.
func newTmuxTyper(tmuxBin, sock string) (keyTyper, func(), error) {
	const session = "bench-keys"
	start := exec.Command(tmuxBin, "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", session,
		"-x", fmt.Sprint(benchCols), "-y", fmt.Sprint(benchRows), "exec cat")
	if out, err := start.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("tmux new-session: %v: %s", err, bytes.TrimSpace(out))
	}
	killServer := func() { exec.Command(tmuxBin, "-L", sock, "kill-server").Run() }
	tc, err := newTmuxControl(tmuxBin, sock, session)
	if err != nil {
		killServer()
		return nil, nil, err
	}
	done := func() {
		tc.close()
		killServer()
	}
	size, err := tc.command("display-message -p -t " + session + " '#{pane_width}x#{pane_height}'")
	if err != nil {
		done()
		return nil, nil, err
	}
	if want := fmt.Sprintf("%dx%d", benchCols, benchRows); len(size) != 1 || size[0] != want {
		done()
		return nil, nil, fmt.Errorf("tmux pane is %q, want %s", size, want)
	}
	return &tmuxTyper{tc: tc, target: session}, done, nil
}

// tmuxControl is a tmux control-mode client (tmux -C): commands go in on
// its stdin one a line, and each one's output comes back between %begin
// and %end (or %error); notifications such as %output come between them.
type tmuxControl struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	blocks chan tmuxBlock
	output chan struct{} // a pane printed something (%output); one waits at most
	done   chan struct{}
}

// tmuxBlock is one command's output.
type tmuxBlock struct {
	lines   []string
	err     bool // it ended with %error
	notOurs bool // not the answer to a command this client sent
}

// newTmuxControl attaches a control-mode client to session, and returns
// once it answers commands.
func newTmuxControl(tmuxBin, sock, session string) (*tmuxControl, error) {
	cmd := exec.Command(tmuxBin, "-L", sock, "-C", "attach-session", "-t", session)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tmux -C attach: %w", err)
	}
	tc := &tmuxControl{cmd: cmd, stdin: stdin, blocks: make(chan tmuxBlock, 16), output: make(chan struct{}, 1), done: make(chan struct{})}
	go tc.readLoop(stdout)
	// The attach's own block, if any, may come before or after the answer
	// to a first command: read up to the answer to a second one, so the
	// next block read is the next command's.
	for _, marker := range []string{"acpmux-bench-attached", "acpmux-bench-ready"} {
		if _, err := io.WriteString(stdin, "display-message -p "+marker+"\n"); err != nil {
			tc.close()
			return nil, err
		}
		for {
			b, err := tc.next()
			if err != nil {
				tc.close()
				return nil, err
			}
			if len(b.lines) == 1 && b.lines[0] == marker {
				break
			}
		}
	}
	return tc, nil
}

// readLoop parses the client's output until it ends.
func (tc *tmuxControl) readLoop(stdout io.Reader) {
	defer close(tc.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var block *tmuxBlock
	for sc.Scan() {
		line := sc.Text()
		switch {
		case block != nil && (strings.HasPrefix(line, "%end ") || strings.HasPrefix(line, "%error ")):
			block.err = strings.HasPrefix(line, "%error ")
			if !block.notOurs {
				tc.blocks <- *block
			}
			block = nil
		case block != nil:
			block.lines = append(block.lines, line)
		case strings.HasPrefix(line, "%begin "):
			// "%begin TIME NUMBER FLAGS": flags 0 is output of a command
			// this client did not send (the attach itself).
			block = &tmuxBlock{notOurs: strings.HasSuffix(line, " 0")}
		case strings.HasPrefix(line, "%output "):
			select {
			case tc.output <- struct{}{}:
			default:
			}
		}
	}
}

// next returns the next command's output.
func (tc *tmuxControl) next() (tmuxBlock, error) {
	select {
	case b := <-tc.blocks:
		return b, nil
	case <-tc.done:
		// Blocks read before the end come first.
		select {
		case b := <-tc.blocks:
			return b, nil
		default:
		}
		return tmuxBlock{}, errors.New("the tmux control client ended")
	case <-time.After(keyWait):
		return tmuxBlock{}, fmt.Errorf("tmux did not answer in %s", keyWait)
	}
}

// command runs one tmux command and returns its output lines.
func (tc *tmuxControl) command(c string) ([]string, error) {
	if _, err := io.WriteString(tc.stdin, c+"\n"); err != nil {
		return nil, fmt.Errorf("tmux %s: %w", c, err)
	}
	b, err := tc.next()
	if err != nil {
		return nil, fmt.Errorf("tmux %s: %w", c, err)
	}
	if b.err {
		return nil, fmt.Errorf("tmux %s: %s", c, strings.Join(b.lines, "; "))
	}
	return b.lines, nil
}

// close ends the client (the session stays) and reaps it.
func (tc *tmuxControl) close() {
	tc.stdin.Close()
	select {
	case <-tc.done:
	case <-time.After(5 * time.Second):
		tc.cmd.Process.Kill()
	}
	tc.cmd.Wait()
}

// tmuxTyper types into a tmux pane through a control-mode client.
type tmuxTyper struct {
	tc     *tmuxControl
	target string
}

func (t *tmuxTyper) typeKey(key byte, line string) error {
	return t.send("-l "+string(key), func(rows []string) bool { return lastRow(strings.Join(rows, "\n")) == line })
}

func (t *tmuxTyper) enter(line string) error {
	return t.send("Enter", func(rows []string) bool { return lineEchoed(plainRows(strings.Join(rows, "\n")), line) })
}

// send sends keys to the pane, and on each report of its output captures
// it until shown holds for its rows.
func (t *tmuxTyper) send(keys string, shown func(rows []string) bool) error {
	select {
	case <-t.tc.output: // from before: not this key's
	default:
	}
	if _, err := t.tc.command("send-keys -t " + t.target + " " + keys); err != nil {
		return err
	}
	deadline := time.NewTimer(keyWait)
	defer deadline.Stop()
	// tmux may report the output before its screen has it: with no further
	// report, the pane is captured again after a while.
	again := time.NewTicker(50 * time.Millisecond)
	defer again.Stop()
	var rows []string
	for {
		select {
		case <-t.tc.output:
		case <-again.C:
		case <-deadline.C:
			return fmt.Errorf("not shown after %s; the pane ends with %q", keyWait, lastRow(strings.Join(rows, "\n")))
		}
		var err error
		if rows, err = t.tc.command("capture-pane -p -t " + t.target); err != nil {
			return err
		}
		if shown(rows) {
			return nil
		}
	}
}
