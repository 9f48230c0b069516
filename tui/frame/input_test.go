package frame

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// The terminal opened again reads what is typed on it, through its own
// open file (standard input's stays blocking, as the shell left it), and
// Close ends a read under way; what is not a terminal is left alone.
func TestInputReadsTheTerminalAgain(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the terminal is opened again through /proc")
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	// Raw, as the Renderer makes it: a key is read as it is typed.
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	in := OpenInput(tty)
	if in == nil {
		t.Fatal("a terminal was not opened again")
	}
	if _, err := master.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "k" {
		t.Fatalf("read %q, %v; want the key typed", buf[:n], err)
	}
	if nb, err := isNonblocking(tty); err != nil || nb {
		t.Fatalf("the terminal's own file is non-blocking (%v, %v): the shell after us would read it so", nb, err)
	}

	ended := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		ended <- err
	}()
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("a read under way returned no error at Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a read under way did not end within 10 s of Close")
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if OpenInput(r) != nil {
		t.Fatal("a pipe was taken for a terminal")
	}
}

// isNonblocking reports whether f's open file is non-blocking.
func isNonblocking(f *os.File) (bool, error) {
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	return flags&unix.O_NONBLOCK != 0, err
}
