package server

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// A status report (MethodHook) is taken only from a process of the chat's
// own harness: the connecting process (SO_PEERCRED) must be the harness,
// in its session or process group (a pty harness leads a session of its
// own, an ACP agent a process group), or a descendant of it. Anything else
// — a shell in another chat naming this one, any other program of the
// user's — is ignored and counted in the log.

// maxAncestry bounds the walk up a reporting process's parents.
const maxAncestry = 64

// procStat reads a process's parent, process group and session from
// /proc/PID/stat.
func procStat(pid int) (ppid, pgrp, sid int, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, err
	}
	// pid (comm) state ppid pgrp session ...; comm may hold anything but
	// ends at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := bytes.Fields(b[i+1:])
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

// processOfHarness reports whether process peer is the harness process
// harnessPid, in its session or process group, or descends from it.
func processOfHarness(peer, harnessPid int) bool {
	if peer <= 0 || harnessPid <= 1 {
		return false
	}
	pid := peer
	for range maxAncestry {
		if pid == harnessPid {
			return true
		}
		ppid, pgrp, sid, err := procStat(pid)
		if err != nil {
			return false
		}
		if pgrp == harnessPid || sid == harnessPid {
			return true
		}
		if ppid <= 1 {
			return false
		}
		pid = ppid
	}
	return false
}
