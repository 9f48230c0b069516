package client

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/termmodes"
	"github.com/acpmux/acpmux-tui/internal/ttyreopen"
)

// This file is `attach --host` in a terminal: ssh itself is handed the
// terminal and runs `acpmux-tui attach ID` over there, which lends the far
// server the terminal sshd gave it, as `ssh -t HOST tmux attach` does. No
// process of ours is on a key's way on this side: a key goes from the
// terminal through ssh and sshd to the far server, and its echo comes back
// the same way. This process only waits for ssh; when ssh ends because the
// link dropped, it gives the terminal back, says so, dials the host again
// as AttachFollow does (keys typed meanwhile dropped, ctrl+] gives up) and
// runs ssh again, and the far attach draws the chat as it is now.

// AttachOverSSH shows chat id of host h in this terminal through
// `ssh -t`, again after each drop of the link, until the far attach ends
// or ctrl+] gives up while the link is down: how is "detached" then, and
// "" when the far attach exited 0 (it says itself how it ended, detached
// or the harness's end, on the terminal). It returns ErrNotLent,
// having done nothing, when in or out is not a terminal or the terminal
// cannot be opened again for the waits between links: AttachFollow then
// relays the chat. first, the link the chat was found on, is closed once
// ssh is to run. notice writes a line on the terminal (cooked).
func AttachOverSSH(first *Conn, h Host, id string, in, out *os.File, notice func(string)) (how string, err error) {
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return "", ErrNotLent
	}
	fd := int(in.Fd())
	saved, err := term.GetState(fd)
	if err != nil {
		return "", ErrNotLent
	}
	f, err := ttyreopen.Read(in)
	if err != nil {
		return "", ErrNotLent
	}
	f.Close()
	first.Close() // idle while ssh runs
	// The signals that end an attach reach ssh too (it gives the
	// terminal back); this process then ends by them, as attach does.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	dial := func(ctx context.Context) (*Conn, error) { return DialHost(ctx, h) }
	quick := 0 // links in a row that dropped within sshQuickDrop
	for {
		began := time.Now()
		state, said, sig, err := runSSHAttach(h, id, in, out, sigs)
		_ = term.Restore(fd, saved) // ssh restores it, unless it was killed
		switch {
		case err != nil:
			return "", err
		case sig != nil:
			return "", &SignalError{Signal: sig.(syscall.Signal)}
		case state.ExitCode() == 0:
			return "", nil
		case state.ExitCode() != 255 && sshKilled(state) == 0:
			// The far attach's own failure, which it said on the terminal.
			return "", &FarExitError{Host: h.Name, Code: state.ExitCode()}
		}
		why := sshEnded(h, state, said, "attach")
		if quick++; time.Since(began) >= sshQuickDrop {
			quick = 0
		}
		if quick == sshQuickDrops {
			// The host answers a dial but ssh -t does not last there.
			return "", fmt.Errorf("the link to host %s is down: %w (%d times in a row, each within %v of its start)", h.Name, why, quick, sshQuickDrop)
		}
		_, _ = out.Write(termmodes.New().Reset())
		notice(fmt.Sprintf("the link to host %s is down: %v; reconnecting (ctrl+] gives up, keys typed meanwhile are not sent)", h.Name, why))
		back := waitForHost(dial, in, notice)
		select {
		case sig := <-sigs:
			return "", &SignalError{Signal: sig.(syscall.Signal)}
		default:
		}
		if !back {
			return "detached", nil // ctrl+]
		}
		notice("the link is back: " + id + " as it is now")
	}
}

// A link whose ssh -t ends within sshQuickDrop of its start sshQuickDrops
// times in a row is given up: ssh -t itself fails there.
const (
	sshQuickDrop  = 2 * time.Second
	sshQuickDrops = 3
)

// FarExitError is an attach over there that ended with a failure, which it
// said on the terminal (a chat that speaks ACP exits 2, as here).
type FarExitError struct {
	Host string
	Code int
}

func (e *FarExitError) Error() string {
	return fmt.Sprintf("the attach on host %s ended with exit status %d", e.Host, e.Code)
}

// runSSHAttach runs `ssh -t` with the terminal until it ends, and returns
// how it ended and what it said on its stderr, and the signal that ended
// the wait, if one did (ssh was given it too, and has ended).
func runSSHAttach(h Host, id string, in, out *os.File, sigs <-chan os.Signal) (*os.ProcessState, string, os.Signal, error) {
	// -e none: no escape character, so a ~ after a newline reaches the
	// chat as typed.
	argv := h.sshArgv(append(append([]string{}, linkLogLevel...), "-e", "none"), "-t", h.RemoteLine("attach", id))
	stderr := &boundedBuffer{max: 16 << 10}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, stderr
	if err := cmd.Start(); err != nil {
		return nil, "", nil, fmt.Errorf("attach on host %s: run ssh: %w", h.Name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	var sig os.Signal
	select {
	case <-exited:
	case sig = <-sigs:
		_ = cmd.Process.Signal(sig)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	return cmd.ProcessState, stderr.String(), sig, nil
}

// waitForHost dials the host until it answers (true) or ctrl+] is typed
// (false), reading the terminal meanwhile through a file of its own
// (ttyreopen), and stops reading it before it returns: the next ssh reads
// the keys typed after.
func waitForHost(dial func(context.Context) (*Conn, error), in *os.File, notice func(string)) bool {
	f, err := ttyreopen.Read(in)
	if err != nil {
		notice(fmt.Sprintf("cannot read the terminal while the link is down (%v): giving up", err))
		return false
	}
	defer f.Close()
	keys := pumpKeys(f)
	c := waitForLink(dial, in, keys, notice)
	// The pump stops: its read ends at the deadline, and ch closes.
	_ = f.SetReadDeadline(time.Now())
	for range keys.ch {
	}
	if c == nil {
		return false
	}
	c.Close() // the link answers: the attach runs on a link of its own
	return true
}
