package mux

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/harness"
)

// boundAttr is how a sandboxed chat's wrapper is started. Giving its
// hooks the hook-only socket and keeping `.git/hooks` read-only need a
// mount namespace of the wrapper's own (sandbox.Bound's BindOver,
// ReadOnly), which takes CAP_SYS_ADMIN: root has it; any
// other user gets it, over that namespace only, by starting the wrapper in
// a user namespace of its own in which it is itself (its uid and gid
// mapped to themselves), so files keep their owners and the harness runs
// as the user. A process that is not root in its namespace loses its
// capabilities at exec, so CAP_SYS_ADMIN is raised as an ambient one for
// the wrapper, which drops it before it execs the harness. nil when
// nothing is needed.
func boundAttr(l harness.Launch) *syscall.SysProcAttr {
	if l.Bound == nil || !l.Bound.NeedsMounts() || os.Geteuid() == 0 {
		return nil
	}
	uid, gid := os.Geteuid(), os.Getegid()
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN},
	}
}
