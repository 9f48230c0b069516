package server

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// What the server reads of a process: Linux reads /proc/PID/stat
// (proc_linux.go), darwin has no /proc and tells the same through
// sysctl(kern.proc.pid) and getsid(2).

// szomb is a zombie's p_stat (sys/proc.h).
const szomb = 5

// kinfo is process pid's kernel record.
func kinfo(pid int) (*unix.KinfoProc, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	if int(k.Proc.P_pid) != pid {
		return nil, fmt.Errorf("process %d: not found", pid)
	}
	return k, nil
}

// procStat reads a process's parent, process group and session.
func procStat(pid int) (ppid, pgrp, sid int, err error) {
	k, err := kinfo(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	if sid, err = unix.Getsid(pid); err != nil {
		return 0, 0, 0, fmt.Errorf("process %d: its session: %w", pid, err)
	}
	return int(k.Eproc.Ppid), int(k.Eproc.Pgid), sid, nil
}

// procStartOf reads a process's start time, in microseconds since the
// epoch; a process that has exited (a zombie) has none.
func procStartOf(pid int) (procStart, error) {
	k, err := kinfo(pid)
	if err != nil {
		return 0, err
	}
	if k.Proc.P_stat == szomb {
		return 0, fmt.Errorf("process %d has exited (a zombie)", pid)
	}
	t := k.Proc.P_starttime
	start := uint64(t.Sec)*1e6 + uint64(t.Usec)
	if start == 0 {
		return 0, fmt.Errorf("process %d: no start time", pid)
	}
	return procStart(start), nil
}

// exited reports whether process pid has exited (a zombie, or dead), or
// cannot be read at all.
func exited(pid int) bool {
	k, err := kinfo(pid)
	return err != nil || k.Proc.P_stat == szomb
}
