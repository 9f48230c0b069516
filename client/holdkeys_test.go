package client

import (
	"io"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestHoldKeysNeitherEchoesNorWaitsForANewline: keys typed into a held
// terminal are not echoed and are read at once, with no newline, as typed
// (enter stays a CR), and release gives the terminal back its settings.
func TestHoldKeysNeitherEchoesNorWaitsForANewline(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if before.Lflag&(unix.ECHO|unix.ICANON) != unix.ECHO|unix.ICANON {
		t.Fatalf("a new pty is not cooked (lflag %#x): nothing to hold", before.Lflag)
	}
	release := HoldKeys(tty)

	// Typed while held: the chat reads it at once, as typed.
	typed := "ab\rc"
	if _, err := ptmx.Write([]byte(typed)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(typed))
	tty.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := io.ReadFull(tty, got); err != nil || string(got) != typed {
		t.Fatalf("read %q, %v from the held terminal; want %q at once", got, err, typed)
	}
	// Nothing was echoed: the terminal shows only what is written to it.
	if _, err := tty.Write([]byte("X")); err != nil {
		t.Fatal(err)
	}
	ptmx.SetReadDeadline(time.Now().Add(time.Minute))
	shown := make([]byte, 1)
	if _, err := io.ReadFull(ptmx, shown); err != nil || string(shown) != "X" {
		t.Fatalf("the terminal showed %q, %v first; want only what was written, no echo of the keys", shown, err)
	}

	release()
	release()
	after, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if *after != *before {
		t.Fatalf("after release: %+v; want the settings as before, %+v", *after, *before)
	}
}
