package proto

import "fmt"

// MaxSunPath is the longest socket path darwin takes (sun_path is 104
// bytes with its NUL).
const MaxSunPath = 103

// longAddr refuses: darwin has no /proc/self/fd to reach a socket through
// its folder's descriptor, so the agent home must be short enough.
func longAddr(path string) (string, func(), error) {
	return "", nil, fmt.Errorf("socket path %s is too long (%d bytes at most on darwin): choose a shorter ACPMUX_HOME", path, MaxSunPath)
}
