package ttyreopen

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// The terminal opened again reads what is typed, and a read under way ends
// at a deadline, while the terminal's own file stays blocking.
func TestReadEndsAtADeadline(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("through /proc")
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	f, err := Read(tty)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := master.WriteString("k\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "k\n" {
		t.Fatalf("read %q, %v; want the line typed", buf[:n], err)
	}
	ended := make(chan error, 1)
	go func() { _, err := f.Read(buf); ended <- err }()
	if err := f.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the read ended with %v, want the deadline", err)
		}
	case <-time.After(wait.Hang):
		t.Fatal("a read under way did not end at its deadline")
	}
	if Path(tty) == Path(f) {
		t.Fatal("the file opened again is the terminal's own")
	}
}
