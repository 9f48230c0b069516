package client

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/termmodes"
)

// borrowTestTerminal borrows a pty's terminal side, whose termios were
// before; read returns what the terminal has been sent up to and including
// the first "END" written to it afterwards.
func borrowTestTerminal(t *testing.T) (bt *borrowedTerminal, tty *os.File, before *term.State, read func() string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if before, err = term.GetState(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil || bytes.Contains(all, []byte("END")) {
				got <- all
				return
			}
		}
	}()
	bt, err = borrowTerminal(tty, tty)
	if err != nil {
		t.Fatal(err)
	}
	return bt, tty, before, func() string {
		if _, err := tty.WriteString("END"); err != nil {
			t.Fatal(err)
		}
		return string(<-got)
	}
}

// TestAttachTerminalRestore borrows a real terminal (a pty), lets harness
// output through, restores it, and reads what the terminal got: the output,
// then the reset, and nothing after. The terminal is in cooked mode again.
func TestAttachTerminalRestore(t *testing.T) {
	bt, tty, before, read := borrowTestTerminal(t)
	if raw, err := term.GetState(int(tty.Fd())); err != nil || *raw == *before {
		t.Fatalf("the terminal is not raw while borrowed (%v)", err)
	}
	if _, err := bt.Write([]byte("\x1b[?1049h\x1b[?1003hhello")); err != nil {
		t.Fatal(err)
	}
	bt.restore()
	bt.restore() // a second restore does nothing
	if _, err := bt.Write([]byte("\x1b[?1000hlate")); err != nil {
		t.Fatal(err)
	}
	out := read()
	want := termmodes.SaveTitles + "\x1b[?1049h\x1b[?1003hhello"
	reset := strings.TrimSuffix(strings.TrimPrefix(out, want), "END")
	if !strings.HasPrefix(out, want) || reset != string(bt.modes.Reset()) {
		t.Fatalf("the terminal got %q", out)
	}
	if !strings.Contains(reset, "\x1b[?1003l") || !strings.Contains(reset, "\x1b[?1049l") || !strings.Contains(reset, termmodes.RestoreTitles) {
		t.Fatalf("the reset is %q", reset)
	}
	after, err := term.GetState(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if *after != *before {
		t.Fatal("the terminal's termios was not restored")
	}
}

// TestAttachTerminalRestoreOnPanic panics in a goroutine that holds the
// terminal: the terminal is given back before the panic goes on.
func TestAttachTerminalRestoreOnPanic(t *testing.T) {
	bt, _, _, read := borrowTestTerminal(t)
	if _, err := bt.Write([]byte("\x1b[?1003h")); err != nil {
		t.Fatal(err)
	}
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		defer bt.restoreIfPanicking()
		panic("boom")
	}()
	if recovered != "boom" {
		t.Fatalf("the panic became %v", recovered)
	}
	if out := read(); !strings.Contains(out, "\x1b[?1003l") {
		t.Fatalf("the terminal got %q", out)
	}

}
