package hookearly

import (
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const (
	maxSunPath = 107      // as proto.ShortAddr
	oPath      = 0x200000 // proto.OPath
)

// untilBudget returns how long is left of Budget since the process was
// executed, as /proc/self/stat and the boot-time clock tell (the start
// time is in clock ticks, 1/100 s, rounded down: what is left is rounded
// down too); Budget itself when they cannot be read. The file is read
// with plain system calls: an os.File would set up the runtime's poller,
// which costs a hook system calls and a thread's wake-ups for nothing.
func untilBudget() time.Duration {
	fd, err := syscall.Open("/proc/self/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Budget
	}
	buf := make([]byte, 1024)
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return Budget
	}
	b := buf[:n]
	end := strings.LastIndexByte(string(b), ')')
	if end < 0 {
		return Budget
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return Budget
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64) // field 22, starttime
	if err != nil {
		return Budget
	}
	var now syscall.Timespec
	const clockBoottime = 7
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&now)), 0); e != 0 {
		return Budget
	}
	since := time.Duration(now.Nano()) - time.Duration(ticks)*10*time.Millisecond
	if since < 0 || since > time.Minute {
		return Budget // a clock that does not agree with the start time
	}
	return max(Budget-since, minLeft)
}

// waitReadable waits with select(2), up to left, for fd to be readable.
func waitReadable(fd int, left time.Duration) (bool, error) {
	var set syscall.FdSet
	word := int(unsafe.Sizeof(set.Bits[0])) * 8
	set.Bits[fd/word] |= 1 << (fd % word)
	tv := syscall.NsecToTimeval(int64(left))
	n, err := syscall.Select(fd+1, &set, nil, nil, &tv)
	return n > 0, err
}

// unixSocket makes the hook's socket, closed on exec.
func unixSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}

// longAddr is, as proto.ShortAddr, the socket of a home whose path is too
// long for a sockaddr_un reached through its folder's fd, opened only to
// be named (O_PATH: a sandboxed harness may not read the agent home); ""
// when the folder cannot be opened. Call release once connected.
func longAddr(home string) (addr string, release func()) {
	dir, err := syscall.Open(home, oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil
	}
	return "/proc/self/fd/" + strconv.Itoa(dir) + "/" + socketName, func() { syscall.Close(dir) }
}

// mtime is a stat's modification time.
func mtime(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }
