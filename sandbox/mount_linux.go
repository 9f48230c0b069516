package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// mount makes, in a mount namespace of the calling thread's own, the
// bound's BindOver files appear at their paths, its Pinned folders mount points (bind mounts on themselves, so that
// they cannot be renamed or removed) and its ReadOnly paths read-only bind
// mounts. Landlock alone cannot take writing away beneath a writable
// folder (a rule only adds), so `.git/hooks` inside a chat's folder is
// kept read-only this way; and pinning `.git` keeps an agent from moving it
// aside and making a new one with hooks of its own. A restricted process
// cannot change its mounts (Landlock denies mount, umount and move to any
// sandboxed thread), so these hold for the harness and its children.
//
// It needs CAP_SYS_ADMIN in the thread's user namespace: root, or a
// process started in a user namespace of its own (the mux starts the
// wrapper so when it is not root). Without it, it fails closed.
func (b Bound) mount() error {
	if !b.NeedsMounts() {
		return nil
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("a mount namespace of its own (for its hooks' socket and .git's guard): %w", err)
	}
	// Nothing mounted here may reach the namespace it came from.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	for _, m := range b.BindOver {
		if err := unix.Mount(m.From, m.To, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s at %s: %w", m.From, m.To, err)
		}
	}
	for _, p := range b.Pinned {
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s: %w", p, err)
		}
	}
	for _, p := range b.ReadOnly {
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("read-only %s: %w", p, err)
		}
		// A bind mount takes the flags of the remount that follows; the
		// source's nosuid, nodev, noexec are kept (a remount may not drop
		// flags the mount was locked with in a user namespace).
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return fmt.Errorf("read-only %s: %w", p, err)
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		flags |= uintptr(st.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
		if err := unix.Mount("", p, "", flags, ""); err != nil {
			return fmt.Errorf("read-only %s: %w", p, err)
		}
	}
	return nil
}

// proveReadOnly checks that no ReadOnly path can be written.
func (b Bound) proveReadOnly() error {
	for _, p := range b.ReadOnly {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			return fmt.Errorf("prove: read-only %s: %w", p, err)
		}
		var err error
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			err = canary(p)
		} else {
			var fd int
			fd, err = unix.Open(p, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
			if err == nil {
				unix.Close(fd)
			}
		}
		switch {
		case err == nil:
			return fmt.Errorf("prove: %s, read-only, could be written", p)
		case !errors.Is(err, unix.EROFS) && !errors.Is(err, unix.EACCES):
			return fmt.Errorf("prove: write %s: want EROFS, got %w", p, err)
		}
	}
	return nil
}
