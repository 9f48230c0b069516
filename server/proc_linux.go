package server

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// What the server reads of a process, from /proc/PID/stat: on darwin
// from sysctl (proc_darwin.go).

// procStatFields reads /proc/PID/stat and returns its fields from the
// third (state) on: the second, the command in parentheses, may hold
// anything but ends at the last ')'.
func procStatFields(pid int) ([][]byte, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	return bytes.Fields(b[i+1:]), nil
}

// procStat reads a process's parent, process group and session from
// /proc/PID/stat.
func procStat(pid int) (ppid, pgrp, sid int, err error) {
	f, err := procStatFields(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	// state ppid pgrp session ...
	if len(f) < 4 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	nums := make([]int, 3)
	for k := range nums {
		if nums[k], err = strconv.Atoi(string(f[k+1])); err != nil {
			return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
	}
	return nums[0], nums[1], nums[2], nil
}

// procStartOf reads a process's start time from /proc/PID/stat; a process
// that has exited (a zombie, or one being reaped) has none.
func procStartOf(pid int) (procStart, error) {
	f, err := procStatFields(pid)
	if err != nil {
		return 0, err
	}
	// f[0] is field 3 (state), f[19] field 22 (starttime).
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	if state := string(f[0]); state == "Z" || state == "X" || state == "x" {
		return 0, fmt.Errorf("process %d has exited (state %s)", pid, state)
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil || start == 0 {
		return 0, fmt.Errorf("/proc/%d/stat: start time %q", pid, f[19])
	}
	return procStart(start), nil
}

// exited reports whether process pid has exited (a zombie, or dead), or
// cannot be read at all.
func exited(pid int) bool {
	f, err := procStatFields(pid)
	if err != nil || len(f) == 0 {
		return true
	}
	state := string(f[0])
	return state == "Z" || state == "X" || state == "x"
}
