package client

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processStart returns the start time of a live process (field 22 of
// /proc/PID/stat), so that a pid reused by another process is told apart;
// "" when no live process has the pid (a zombie counts as gone).
func processStart(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || syscall.Kill(pid, 0) != nil {
			return ""
		}
		return "unknown"
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return ""
	}
	return fields[19]
}
