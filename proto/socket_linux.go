package proto

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// MaxSunPath is the longest socket path the kernel takes (sun_path is 108
// bytes with its NUL).
const MaxSunPath = 107

// longAddr is ShortAddr of a path longer than MaxSunPath: the socket
// reached through /proc/self/fd and an open descriptor of its folder.
func longAddr(path string) (addr string, release func(), err error) {
	// Opened only to be named (O_PATH), which needs no right to read the
	// folder: a sandboxed chat's harness may not read the agent home, and
	// its hooks still reach the socket in it.
	fd, err := syscall.Open(filepath.Dir(path), OPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, &os.PathError{Op: "open", Path: filepath.Dir(path), Err: err}
	}
	addr = fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(path))
	if len(addr) > MaxSunPath {
		syscall.Close(fd)
		return "", nil, fmt.Errorf("socket path %s is too long", path)
	}
	return addr, func() { syscall.Close(fd) }, nil
}

// OPath is Linux's O_PATH (the syscall package names it on some
// architectures only): the same value on every one Go builds for.
const OPath = 0x200000
