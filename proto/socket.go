package proto

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// This file says where a home's server is: its socket, how to reach a
// socket whose path is too long for the kernel, and the pid its lock
// records. Both the server and its clients need them.

// SocketPath is the server's socket inside the agent home.
func SocketPath(home string) string { return filepath.Join(home, SocketName) }

// HookSocketName is the server's second socket, which serves only
// MethodHook: a sandboxed chat's harness finds it at SocketPath (a bind
// mount in the harness's own mount namespace), so its hooks report its
// turns and nothing else it runs can make, start or change a chat.
const HookSocketName = "acpmux-hook.sock"

// HookSocketPath is the hook-only socket inside the agent home.
func HookSocketPath(home string) string { return filepath.Join(home, HookSocketName) }

// RunningDir is the folder of the agent home where the server records each
// harness it runs (one file per chat, <id>.json), for the next server
// after a crash.
const RunningDir = "running"

// MaxSunPath is the longest socket path the kernel takes (sun_path is 108
// bytes with its NUL).
const MaxSunPath = 107

// ShortAddr returns an address for the socket file at path that fits in a
// sockaddr_un: path itself when short enough, else the same file reached
// through /proc/self/fd and an open descriptor of its folder. Call release
// once the bind or connect is done.
func ShortAddr(path string) (addr string, release func(), err error) {
	if len(path) <= MaxSunPath {
		return path, func() {}, nil
	}
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

// LockHolder returns the pid recorded in the agent home's lock file, or 0.
// The pid is only meaningful while the lock is held.
func LockHolder(home string) int {
	b, err := os.ReadFile(filepath.Join(home, LockName))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
