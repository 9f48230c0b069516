package sessions

import (
	"bytes"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelPath is the kernel's name for open file fd: darwin has no
// /proc/self/fd, its fcntl(F_GETPATH) tells the same. "" when it cannot be
// read.
func kernelPath(fd uintptr) string {
	// fcntl is given buf's address as a number (x/sys exports no pointer
	// form of it): nothing moves a goroutine's stack while it is in a
	// system call, and KeepAlive holds buf until the call is done.
	buf := make([]byte, unix.PathMax)
	_, err := unix.FcntlInt(fd, unix.F_GETPATH, int(uintptr(unsafe.Pointer(&buf[0]))))
	runtime.KeepAlive(buf)
	n := bytes.IndexByte(buf, 0)
	if err != nil || n <= 0 || buf[0] != '/' {
		return ""
	}
	return string(buf[:n])
}
