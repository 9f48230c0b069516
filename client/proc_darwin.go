package client

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// processStart returns the start time of a live process (sysctl's, as
// darwin has no /proc), so that a pid reused by another process is told
// apart; "" when no live process has the pid (a zombie counts as gone).
func processStart(pid int) string {
	if pid <= 0 {
		return ""
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(k.Proc.P_pid) != pid {
		if syscall.Kill(pid, 0) != nil {
			return ""
		}
		return "unknown"
	}
	if k.Proc.P_stat == 5 { // SZOMB
		return ""
	}
	t := k.Proc.P_starttime
	return strconv.FormatInt(t.Sec, 10) + "." + strconv.FormatInt(int64(t.Usec), 10)
}
