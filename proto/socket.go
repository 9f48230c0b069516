package proto

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// ShortAddr returns an address for the socket file at path that fits in a
// sockaddr_un: path itself when short enough (MaxSunPath), else, on
// Linux, the same file reached through /proc/self/fd and an open
// descriptor of its folder (longAddr). Call release once the bind or
// connect is done.
func ShortAddr(path string) (addr string, release func(), err error) {
	if len(path) <= MaxSunPath {
		return path, func() {}, nil
	}
	return longAddr(path)
}

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
