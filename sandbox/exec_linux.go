package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// powers are the capabilities a harness run as root would have that go
// around a bound on files, or past the kernel itself: loading a module,
// raw devices and I/O ports, another process's memory, mounts and
// namespaces, BPF and perf, opening files by handle (no path to judge),
// the immutable flag, the clock and a reboot. Root keeps the rest (it
// may still read and write what the bound allows, whoever owns it).
var powers = []uintptr{
	unix.CAP_SYS_MODULE, unix.CAP_SYS_RAWIO, unix.CAP_SYS_PTRACE, unix.CAP_SYS_ADMIN,
	unix.CAP_BPF, unix.CAP_PERFMON, unix.CAP_DAC_READ_SEARCH, unix.CAP_LINUX_IMMUTABLE,
	unix.CAP_MAC_ADMIN, unix.CAP_MAC_OVERRIDE, unix.CAP_SYS_TIME, unix.CAP_SYS_BOOT, unix.CAP_MKNOD,
}

// dropPowers takes powers out of the calling thread's bounding set, so
// the harness it execs never has them, root or not. Without CAP_SETPCAP
// (a user who is not root) there is nothing to drop: a process that is
// not root in its namespace has no capability after exec anyway.
func dropPowers() error {
	for _, c := range powers {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL): // dropped, or unknown to this kernel
		case errors.Is(err, unix.EPERM):
			return nil // no CAP_SETPCAP: no capability survives exec to drop
		default:
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}

func run(args []string) error {
	if len(args) != 1 {
		return errors.New("want one argument, the launch in JSON")
	}
	var l Launch
	if err := json.Unmarshal([]byte(args[0]), &l); err != nil {
		return fmt.Errorf("read the launch: %w", err)
	}
	if l.Path == "" || len(l.Argv) == 0 {
		return errors.New("the launch names no program")
	}
	// The mounts are made, and exec is called, from this one thread: a
	// mount namespace unshared here is this thread's, and the thread that
	// calls execve is the one the harness becomes.
	runtime.LockOSThread()
	if err := l.Bound.mount(); err != nil {
		return err
	}
	// A wrapper started in a user namespace of its own holds CAP_SYS_ADMIN
	// there as an ambient capability, for the mounts only: the harness,
	// exec'd from this thread, must not inherit it.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("drop the ambient capabilities: %w", err)
	}
	if err := dropPowers(); err != nil {
		return err
	}
	if err := l.Bound.Restrict(); err != nil {
		return err
	}
	if err := l.Bound.Prove(); err != nil {
		return err
	}
	err := unix.Exec(l.Path, l.Argv, os.Environ())
	return fmt.Errorf("exec %s: %w", l.Path, err)
}
