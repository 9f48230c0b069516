package e2e

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// No command but the TUI asks the terminal anything: bubbletea's init asked
// for the background colour (OSC 11, then a cursor report) in every
// process, so `ls` in a terminal waited for the answer, or for five seconds
// in one that gives none. internal/quietterm stops it; this runs the real
// binary in a pty that never answers, as an xterm.
func TestNoCommandAsksTheTerminal(t *testing.T) {
	c := newCLI(t)
	c.ok("new", "--name", "quiet")
	for _, args := range [][]string{{"ls"}, {"show", "quiet"}, {"--version"}} {
		cmd := exec.Command(binary, args...)
		cmd.Dir = c.root
		cmd.Env = append(c.env(), "TERM=xterm-256color", "COLORTERM=truecolor")
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		read := make(chan error, 1)
		go func() {
			_, err := io.Copy(&out, tty)
			read <- err
		}()
		// The pty's reader ends (EIO) once the command has exited and its
		// output is read; a command waiting for an answer never does.
		select {
		case err := <-read:
			if err != nil && !errors.Is(err, syscall.EIO) {
				t.Fatalf("%q: reading the pty: %v", args, err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%q: still running after 30 s in a terminal that does not answer; printed %q", args, out.String())
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%q: %v; printed %q", args, err, out.String())
		}
		tty.Close()
		if text := out.String(); strings.Contains(text, "\x1b]11;?") || strings.Contains(text, "\x1b[6n") {
			t.Fatalf("%q asked the terminal: printed %q", args, text)
		}
		if !strings.Contains(out.String(), "quiet") && args[0] != "--version" {
			t.Fatalf("%q printed %q, without the chat", args, out.String())
		}
	}
}
