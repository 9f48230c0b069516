package hookearly

import (
	"hash/fnv"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// A server that accepts and never answers, or never accepts, costs a hook
// its whole budget, and Claude Code waits for a hook at every tool call.
// So a hook that gives up on a server (its whole budget passed while it
// connected, wrote or waited for the answer) leaves a marker, and for
// HungWindow after it the hooks to the same server give it HungBudget
// only: they still connect and report, and a server that answers within
// it (a healthy one answers in about a millisecond) takes the report and
// its answer removes the marker. A hook that meets no marker, or one
// older than HungWindow, waits as long as ever, and leaves a new marker
// if it gives up too: a server that stays hung costs one full wait per
// HungWindow and HungBudget for each hook in between.
//
// The marker is read without the socket and written where every harness
// may write: its TMPDIR (/tmp when unset or not absolute), which for a
// sandboxed chat is its scratch folder, as it may not read the agent home.
// Its name comes from a hash of the agent home and the user's id; it is
// empty, its modification time the time the hook gave up, so one lstat
// tells a hook whose it is, what it is and how old. In a /tmp
// shared with other users, only a regular file of this user's counts: a
// symlink is never followed (it is looked at with lstat and created with
// O_EXCL), and another user's file is neither trusted, removed nor
// written.

const (
	// HungWindow is how long after a hook gave up on the server the hooks
	// that follow give it HungBudget only. While the server stays hung,
	// one hook per window waits its whole budget: a few tool calls' worth
	// of Claude Code's hooks. It is short because a server that is slow,
	// not hung (answering later than HungBudget on a loaded machine), has
	// reports lost while it lasts; a server that answers within
	// HungBudget clears the marker at once, whatever its age.
	HungWindow = 5 * time.Second
	// HungBudget is what a hook gives a server that a marker says is hung,
	// from the connect to the answer: over twice the slowest answer of a
	// healthy server, timed from the connect inside the hook over
	// internal/benchtool's hook row (1 ms p99 unloaded; with two busy
	// loops on two cores 5 ms p99, 8 ms at worst in 1000), and what a hook
	// whose start took its whole budget keeps for the server (minLeft), by
	// which a full wait is judged hung too.
	HungBudget = 20 * time.Millisecond
	// markerPrefix and markerSuffix frame a marker's name.
	markerPrefix = "acpmux-hook-"
	markerSuffix = ".hung"
)

// MarkerPath returns where the hooks of user uid record that the server of
// agent home home did not answer: in tmpdir (a TMPDIR, /tmp when it is not
// an absolute path), named from a hash of the uid and the home.
func MarkerPath(tmpdir, home string, uid int) string {
	if !filepath.IsAbs(tmpdir) {
		tmpdir = "/tmp"
	}
	h := fnv.New64a()
	h.Write([]byte(strconv.Itoa(uid)))
	h.Write([]byte{0})
	h.Write([]byte(home))
	return filepath.Join(tmpdir, markerPrefix+strconv.FormatUint(h.Sum64(), 16)+markerSuffix)
}

// marker is the hung-server marker at path, as user uid reads and writes
// it.
type marker struct {
	path string
	uid  int
}

// state looks at the marker with lstat (one system call, no link
// followed): ours is whether it is a regular file of the user's, fresh
// whether it is and was written less than HungWindow from now (either
// way: a clock set back does not make it last).
func (m marker) state(now time.Time) (ours, fresh bool) {
	var st syscall.Stat_t
	if retry(func() error { return syscall.Lstat(m.path, &st) }) != nil {
		return false, false
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != m.uid {
		return false, false
	}
	age := now.Sub(mtime(&st))
	return true, age < HungWindow && age > -HungWindow
}

// mark records that the server did not answer: it creates the marker anew
// (O_EXCL, mode 0600), having removed it first if it is ours (a stale
// one). Whatever else is at its path (a link, a folder, another user's
// file) stays as it is, and no marker is made.
func (m marker) mark(ours bool) {
	if ours {
		_ = retry(func() error { return syscall.Unlink(m.path) })
	}
	fd, err := syscall.Open(m.path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err == nil {
		syscall.Close(fd)
	}
}

// clear removes the marker, which state found to be ours: the server
// answered.
func (m marker) clear() {
	_ = retry(func() error { return syscall.Unlink(m.path) })
}

// reportMarked is report, told by the marker of tmpdir what budget to give
// the server, and telling it how the report went: a server that did not
// answer within its full budget is marked, one that answered is cleared.
func reportMarked(home, tmpdir string, p Params, deadline time.Time) {
	if home == "" || p.ID == "" {
		return
	}
	m := marker{path: MarkerPath(tmpdir, home, syscall.Getuid())}
	now := time.Now()
	ours, fresh := m.state(now)
	if short := now.Add(HungBudget); fresh && short.Before(deadline) {
		deadline = short
	}
	switch report(home, p, deadline) {
	case answered:
		if ours {
			m.clear()
		}
	case timedOut:
		if !fresh {
			m.mark(ours)
		}
	}
}
