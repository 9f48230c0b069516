package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/harness"
)

// This file is attach, which runs one pty chat of the server in this
// terminal; prompt, one ACP turn streamed as plain text, is in
// prompt_cmd.go.

// attach shows a pty chat in this terminal through the server (started in
// the background when none runs): ctrl+] detaches and leaves it running.
func (a *app) attach(ref string) error {
	// Keys typed while attach starts (the server may be starting) wait,
	// undrawn, for the chat. Not over ssh (hostLink.attach), which may ask
	// for a password or a host key on this terminal.
	release := client.HoldKeys(os.Stdin)
	defer release()
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return e.Broken
	}
	if spec, ok := a.table.Get(e.Meta.Harness); ok && spec.Transport == harness.TransportACP {
		return usagef("chat %s runs %s, which speaks ACP: use acpmux-tui prompt, or the TUI", e.ID, e.Meta.Harness)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find acpmux-tui's own binary to start the server: %w", err)
	}
	conn, err := client.EnsureServer(a.store.Home(), exe)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Attach gives the terminal back on every way out, a panic or a fatal
	// signal included; the harness keeps running in the server unless it
	// ended by itself. The server is lent the terminal itself, unless it
	// is older than that, or this is not a terminal.
	how, err := client.AttachTerminal(a.store.Home(), e.ID, os.Stdin, os.Stdout)
	if errors.Is(err, client.ErrNotLent) {
		how, err = client.Attach(conn, e.ID, os.Stdin, os.Stdout)
	}
	if se, ok := err.(*client.SignalError); ok {
		conn.Close()
		release()
		fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s: %v]\r\n", e.ID, se.Signal)
		endBySignal(se.Signal)
		return err
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s %s]\r\n", e.ID, how)
	return nil
}

// endBySignal ends the process by sig, as it would have ended had attach not
// caught it, now that the terminal is restored: the shell sees the
// conventional status (128 + the signal's number) and a parent sees the
// signal. (SIGQUIT ends a Go program with its goroutine dump and status 2.)
// The signal reaches some thread of the process a moment after Kill; should
// it not end the process within seconds, the caller's error exit follows.
func endBySignal(sig syscall.Signal) {
	signal.Reset(sig)
	if syscall.Kill(os.Getpid(), sig) == nil {
		time.Sleep(5 * time.Second)
	}
}
