package frame

import (
	"os"

	"golang.org/x/sys/unix"
)

// isNonblocking reports whether f's open file is non-blocking.
func isNonblocking(f *os.File) (bool, error) {
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	return flags&unix.O_NONBLOCK != 0, err
}
