package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// terminalFiles and terminalFolders are written by every harness whatever
// its bound: /dev/null (`cmd > /dev/null` opens it with O_TRUNC), /dev/tty
// (programs that talk to their controlling terminal reopen it by this name),
// /dev/ptmx and /dev/pts (a harness that runs commands in a terminal of
// their own makes a pty pair and opens its far end by name; the harness's
// own pty also lives in /dev/pts). The fds a harness inherits need no rule:
// Landlock checks a file when it is opened. Granting /dev/pts as a whole
// means the harness may also open other terminals of this machine; only a
// mount namespace with its own devpts would narrow that. A missing one
// (a container without /dev/tty) is left out.
var (
	terminalFiles   = []string{"/dev/null", "/dev/tty", "/dev/ptmx"}
	terminalFolders = []string{"/dev/pts"}
)

// Restrict restricts the calling process, all its threads and its future
// children, across exec, to b. It fails closed: without Landlock, with an
// ABI older than MinABI, or when a path cannot be opened, is a symlink or is
// of the wrong kind, it returns an error naming the cause and the process is
// left as it was. After a nil return the restriction cannot be undone.
func (b Bound) Restrict() error {
	rs, err := b.buildRuleset()
	if err != nil {
		return fmt.Errorf("restrict: %w", err)
	}
	defer unix.Close(rs)

	// The one irreversible step, last. no_new_privs is required by
	// Landlock for a process without CAP_SYS_ADMIN and keeps setuid
	// programs from leaving the bound's spirit anyway. Both calls go to
	// every thread of the process (psx), not only the calling one.
	if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("restrict: set no_new_privs: %w", err)
	}
	if err := ll.AllThreadsLandlockRestrictSelf(rs, 0); err != nil {
		return fmt.Errorf("restrict: landlock_restrict_self: %w", err)
	}
	return nil
}

// buildRuleset makes the Landlock ruleset of b, every path opened and every
// rule added, and returns its descriptor, which the caller closes; or why
// it cannot: the bound's shape, no Landlock, an ABI older than MinABI, a
// path that cannot be opened.
func (b Bound) buildRuleset() (int, error) {
	if err := b.validate(); err != nil {
		return -1, err
	}
	abi, err := ABI()
	if err != nil {
		return -1, err
	}
	if abi < MinABI {
		return -1, fmt.Errorf("landlock ABI %d is older than the %d this bound needs (Linux 6.10 or later)", abi, MinABI)
	}
	attr := rulesetAttr(abi)
	rs, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, fmt.Errorf("create landlock ruleset: %w", err)
	}
	r := ruleset{fd: rs, handled: handledRights(abi)}
	if err := r.addBound(b); err != nil {
		unix.Close(rs)
		return -1, err
	}
	return rs, nil
}

// ruleset adds path rules to an open Landlock ruleset.
type ruleset struct {
	fd      int
	handled uint64
}

// addBound adds every rule b needs, plus the fixed terminal part.
func (r ruleset) addBound(b Bound) error {
	if err := r.addReadable(b.Hidden); err != nil {
		return err
	}
	for _, w := range b.Writable {
		if err := r.addPath(w, writeRights, true); err != nil {
			return fmt.Errorf("writable folder %s: %w", w, err)
		}
	}
	for _, f := range b.WritableFiles {
		if err := r.addPath(f, writeFileRights, false); err != nil {
			return fmt.Errorf("writable file %s: %w", f, err)
		}
	}
	for _, f := range terminalFiles {
		if err := r.addDevice(f); err != nil {
			return err
		}
	}
	for _, d := range terminalFolders {
		if err := r.addDevice(d); err != nil {
			return err
		}
	}
	// psx lists /proc/PID/task after it has restricted every thread
	// (go-landlock issue 39); keep that readable even if /proc is cut.
	task := fmt.Sprintf("/proc/%d/task", os.Getpid())
	if fd, err := unix.Open(task, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		err = r.addFD(fd, ll.AccessFSReadDir)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("%s: %w", task, err)
		}
	}
	return nil
}

// addPath opens path without following a symlink in its last component and
// grants rights on it. wantDir says whether it must be a folder or must not.
func (r ruleset) addPath(path string, rights uint64, wantDir bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer unix.Close(fd)
	mode, err := fdMode(fd)
	if err != nil {
		return err
	}
	switch {
	case mode == unix.S_IFLNK:
		return errors.New("is a symlink (pass the resolved path)")
	case wantDir && mode != unix.S_IFDIR:
		return errors.New("is not a folder")
	case !wantDir && mode == unix.S_IFDIR:
		return errors.New("is a folder, not a file")
	}
	return r.addFD(fd, rights)
}

// addDevice grants deviceRights on a fixed terminal path if it exists.
// These are system paths the harness cannot change, so a symlink
// (/dev/ptmx -> pts/ptmx in many containers) is followed.
func (r ruleset) addDevice(path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("terminal device %s: open: %w", path, err)
	}
	defer unix.Close(fd)
	if err := r.addFD(fd, deviceRights); err != nil {
		return fmt.Errorf("terminal device %s: %w", path, err)
	}
	return nil
}

// addFD adds a path-beneath rule for an open fd, limited to the rights the
// ruleset handles.
func (r ruleset) addFD(fd int, rights uint64) error {
	attr := ll.PathBeneathAttr{AllowedAccess: rights & r.handled, ParentFd: fd}
	if attr.AllowedAccess == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(r.fd, &attr, 0); err != nil {
		return fmt.Errorf("add landlock rule: %w", err)
	}
	return nil
}

// addReadable grants read and execute on "/" minus the hidden folders.
// Landlock only allows, and a rule covers everything beneath its folder, so
// instead of "/" it grants each entry of every folder on the way from "/" to
// a hidden one, skipping the hidden one and descending into the ones on the
// way. The folders on the way get no right of their own: they cannot be
// listed (`ls /` fails when anything is hidden), and entries made in them
// after Restrict are not readable. Symlinks among the entries are skipped:
// their targets are readable where they live, or hidden.
func (r ruleset) addReadable(hidden []string) error {
	hide := map[string]bool{}
	for _, h := range hidden {
		hide[h] = true
	}
	// A hidden folder inside another hidden one adds nothing and must
	// not make its parent a folder on the way.
	onWay := map[string]bool{}
	for h := range hide {
		covered := false
		for o := range hide {
			if o != h && within(h, o) {
				covered = true
			}
		}
		if covered {
			continue
		}
		for d := filepath.Dir(h); ; d = filepath.Dir(d) {
			onWay[d] = true
			if d == "/" {
				break
			}
		}
	}
	root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /: %w", err)
	}
	defer unix.Close(root)
	if len(onWay) == 0 {
		return r.addFD(root, readRights)
	}
	return r.addReadableAround(root, "/", hide, onWay)
}

func (r ruleset) addReadableAround(dirFD int, dir string, hide, onWay map[string]bool) error {
	names, err := readNames(dirFD)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, name := range names {
		child := filepath.Join(dir, name)
		fd, err := unix.Openat(dirFD, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // removed since listed
		}
		if err != nil {
			return fmt.Errorf("open %s: %w", child, err)
		}
		err = r.addReadableEntry(fd, child, hide, onWay)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}

func (r ruleset) addReadableEntry(fd int, path string, hide, onWay map[string]bool) error {
	mode, err := fdMode(fd)
	if err != nil {
		return err
	}
	switch {
	case hide[path]:
		if mode == unix.S_IFLNK {
			return fmt.Errorf("hidden folder %s is a symlink (pass the resolved path)", path)
		}
		return nil
	case onWay[path]:
		if mode != unix.S_IFDIR {
			return fmt.Errorf("%s, on the way to a hidden folder, is not a folder (a symlink?)", path)
		}
		return r.addReadableAround(fd, path, hide, onWay)
	case mode == unix.S_IFLNK:
		return nil
	case mode == unix.S_IFDIR:
		return r.addFD(fd, readRights)
	default:
		return r.addFD(fd, readRights&fileRights)
	}
}

// readNames lists the folder open as dirFD (an O_PATH fd), sorted.
func readNames(dirFD int) ([]string, error) {
	fd, err := unix.Openat(dirFD, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), ".")
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// fdMode returns the file type bits (unix.S_IFMT) of an open fd.
func fdMode(fd int) (uint32, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return st.Mode & unix.S_IFMT, nil
}

// Check does everything Restrict does but the last step: the kernel's
// Landlock and its ABI, every path opened and every rule added to a
// ruleset that is then dropped. The server checks a bound so before it
// starts a harness in it, so that a bound that cannot hold refuses the
// start with the reason instead of failing in the wrapper.
func (b Bound) Check() error {
	rs, err := b.buildRuleset()
	if err != nil {
		return err
	}
	unix.Close(rs)
	paths := append(append([]string{}, b.Pinned...), b.ReadOnly...)
	for _, m := range b.BindOver {
		paths = append(paths, m.From, m.To)
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			return err
		}
	}
	return nil
}
