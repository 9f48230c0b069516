package hookearly

import (
	"syscall"
	"time"
	"unsafe"
)

// maxSunPath is the longest socket path darwin takes (sun_path is 104
// bytes with its NUL).
const maxSunPath = 103

// untilBudget is Budget: darwin has no /proc/self/stat to tell when the
// process was executed, so the hook counts its budget from its init, and
// the time its exec took is not taken off.
func untilBudget() time.Duration { return Budget }

// waitReadable waits with select(2), up to left, for fd to be readable:
// darwin's select returns no count, the set tells.
func waitReadable(fd int, left time.Duration) (bool, error) {
	var set syscall.FdSet
	word := int(unsafe.Sizeof(set.Bits[0])) * 8
	set.Bits[fd/word] |= 1 << (fd % word)
	tv := syscall.NsecToTimeval(int64(left))
	if err := syscall.Select(fd+1, &set, nil, nil, &tv); err != nil {
		return false, err
	}
	return set.Bits[fd/word]&(1<<(fd%word)) != 0, nil
}

// unixSocket makes the hook's socket, closed on exec (darwin's socket(2)
// takes no SOCK_CLOEXEC; nothing is started between the two calls).
func unixSocket() (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	return fd, err
}

// longAddr is "": darwin has no /proc/self/fd to reach a socket by its
// folder's fd, so a home whose socket path is too long is not reached.
func longAddr(string) (string, func()) { return "", nil }

// mtime is a stat's modification time.
func mtime(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtimespec.Unix()) }
