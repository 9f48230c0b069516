package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// ptyFloor times the kernel's part of a throughput run alone: `cat file`
// in a fresh 160x45 pty whose output is read and thrown away as fast as
// it comes, from the start until the read that ends it (EIO once cat has
// exited and the pty is drained) and cat's exit. No emulator, no screen:
// what is left is the line discipline's work (ONLCR makes each "\n" a
// "\r\n" of its own, a tab breaks its block copy) and the wake-ups of
// writer and reader, which every terminal that reads a pty pays, tmux
// too. The reads are blocking read(2)s on the master, into a 64 KiB
// buffer: no poller, no copy, nothing a reader could do with less.
func ptyFloor(file string) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	cmd := exec.Command("cat", file)
	begin := time.Now()
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: benchCols, Rows: benchRows})
	if err != nil {
		return fmt.Errorf("start cat %s in a pty: %w", file, err)
	}
	defer master.Close()
	reader, err := blockingReader(master)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	defer reader.Close()
	buf := make([]byte, 64*1024)
	var total int64
	reads := 0
	for {
		n, err := reader.Read(buf)
		total += int64(n)
		reads++
		if err != nil {
			// EIO once the child side is closed on Linux: the end of output.
			if !errors.Is(err, syscall.EIO) && !errors.Is(err, io.EOF) {
				cmd.Process.Kill()
				cmd.Wait()
				return fmt.Errorf("read the pty: %w", err)
			}
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("cat %s: %w", file, err)
	}
	secs := time.Since(begin).Seconds()
	if total < st.Size() {
		return fmt.Errorf("read %d bytes from the pty, fewer than the file's %d", total, st.Size())
	}
	emit("bench", "pty-floor")
	emit("bytes", st.Size())
	emit("pty_bytes", total)
	emit("reads", reads)
	emit("seconds", secs)
	emit("mb_per_s", float64(st.Size())/1e6/secs)
	return nil
}

// blockingReader returns a duplicate of the pty master whose reads are
// plain blocking read(2)s, out of Go's poller.
func blockingReader(master *os.File) (*os.File, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("pty master: %w", err)
	}
	fd := -1
	var dupErr error
	if err := rc.Control(func(f uintptr) { fd, dupErr = syscall.Dup(int(f)) }); err != nil {
		return nil, fmt.Errorf("pty master: %w", err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("duplicate the pty master: %w", dupErr)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("make the pty master blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "ptmx"), nil
}
