package sessions

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// kernelPath is the kernel's name for open file fd (its /proc/self/fd
// link), read without a path built on the heap: this runs at every file
// an agent asks for. "" when it cannot be read.
func kernelPath(fd uintptr) string {
	var link [32]byte
	fdPath := strconv.AppendInt(append(link[:0], "/proc/self/fd/"...), int64(fd), 10)
	var buf [unix.PathMax]byte
	n, err := unix.Readlink(string(fdPath), buf[:])
	if err != nil || n == 0 || n == len(buf) || buf[0] != '/' {
		return ""
	}
	return string(buf[:n])
}
