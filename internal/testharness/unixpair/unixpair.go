// Package unixpair gives tests the two ends of a connected unix socket,
// with no file on disk: a server's connection on one end, a client's on
// the other.
package unixpair

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// New returns the two ends of a connected unix socket, closed when the
// test ends.
func New(t testing.TB) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	ends := make([]*net.UnixConn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		ends[i] = c.(*net.UnixConn)
		t.Cleanup(func() { c.Close() })
	}
	return ends[0], ends[1]
}
