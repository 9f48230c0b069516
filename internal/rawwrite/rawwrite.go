// Package rawwrite writes to a polled descriptor without ever waiting: the
// server writes a line to a client's socket, and a key to a harness's pty,
// from the goroutine that has it, and leaves what does not fit at once to
// a goroutine that may wait.
package rawwrite

import "syscall"

// Now writes what the descriptor behind raw takes of b at once and returns
// the rest (all of b when it takes nothing). err is the write's error, a
// syscall.Errno, or raw's own when the descriptor is closed.
func Now(raw syscall.RawConn, b []byte) (rest []byte, err error) {
	var werr error
	err = raw.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, err := syscall.Write(int(fd), b)
			if err == syscall.EINTR {
				continue
			}
			if err != nil && err != syscall.EAGAIN {
				werr = err
			}
			if n <= 0 {
				break
			}
			b = b[n:]
		}
		return true // done: never wait for the descriptor here
	})
	if werr != nil {
		return b, werr
	}
	return b, err
}
