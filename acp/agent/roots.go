package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/acpmux/acpmux-tui/sessions"
)

// Roots are the folders an ACP chat's file requests may touch: its own
// folder and its additional folders; and its single files, each alone
// (roots_files.go). Every file is opened through an os.Root
// held on the folder, never by a checked path, so a symlink or a folder
// swapped in between a check and the open cannot lead outside: os.Root walks
// the path one component at a time below the folder's descriptor and refuses
// a step out by ".." or by a symlink.
//
// A Roots value is cheap to copy; the copies share the folders, the open
// handles and the bound on requests in flight. The folders can change while
// the harness runs (setFolders): a folder taken off the chat's list is not
// served from that moment.
type Roots struct {
	state *rootsState
}

// fsRoot is one folder of a chat.
type fsRoot struct {
	// path is the folder's canonical (symlink-resolved, clean) path.
	path string
	// alias is the path as the chat was given it, when it differs: an agent
	// may well spell its working folder the way it was started with.
	alias string
	// id is the folder as it was when the harness started; a folder
	// replaced since (moved away, deleted and made again) is refused rather
	// than silently followed.
	id os.FileInfo
}

// rootsState is what the copies of a roots value share.
type rootsState struct {
	// slots bounds the file requests served at once; waiting counts those
	// queued for a slot.
	slots   chan struct{}
	waiting chan struct{}

	// home is the agent home and own the chat's own folder, both
	// canonical: nothing inside home is served but own's inside it (its
	// homes/<id> or worktree), even when a folder, or own itself, holds the
	// agent home (a chat run in ~): the chat files and the socket are never
	// an agent's to read or write (sessions.OffLimits).
	home, own string

	mu      sync.Mutex
	dirs    []fsRoot   // the chat's own folder, then its additional folders
	files   []string   // the chat's single files, canonical (roots_files.go)
	handles []*os.Root // by index of dirs, opened on first use
	closed  bool
	bound   bool // a close is registered for the end of the process
}

// Limits on one chat's file requests.
const (
	// maxFSInFlight is how many fs/* requests of one chat are served at
	// once. A blocking system call pins an OS thread, so this bounds the
	// threads one agent can hold.
	maxFSInFlight = 8
	// maxFSWaiting is how many more may wait for a turn; beyond that a
	// request is refused at once.
	maxFSWaiting = 256
)

// NewRoots serves cwd and dirs, never what is inside the agent home home
// but outside cwd.
func NewRoots(home, cwd string, dirs []string) Roots {
	r := Roots{state: &rootsState{
		slots:   make(chan struct{}, maxFSInFlight),
		waiting: make(chan struct{}, maxFSWaiting),
		home:    sessions.CanonicalOr(home),
		own:     sessions.CanonicalOr(cwd),
	}}
	r.state.dirs = folderRoots(cwd, dirs)
	r.state.handles = make([]*os.Root, len(r.state.dirs))
	return r
}

// folderRoots is the roots of a chat's folder and its additional folders,
// as they are now; a folder that is not there is left out.
func folderRoots(cwd string, dirs []string) []fsRoot {
	var out []fsRoot
	for _, d := range append([]string{cwd}, dirs...) {
		c, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		root := fsRoot{path: filepath.Clean(c)}
		if given := filepath.Clean(d); filepath.IsAbs(given) && given != root.path {
			root.alias = given
		}
		fi, err := os.Stat(root.path)
		if err != nil || !fi.IsDir() {
			continue
		}
		root.id = fi
		out = append(out, root)
	}
	return out
}

// refuseOffLimits closes f and refuses the request when f lies where no
// chat is ever served (sessions.OffLimitsFile: the agent home but the
// chat's own folder there, /proc, /sys), wherever the path it was opened
// by pointed: the kernel's name for the open file is where it is now.
func (r Roots) refuseOffLimits(f *os.File) error {
	if reason := sessions.OffLimitsFile(r.state.home, r.state.own, f); reason != "" {
		f.Close()
		return outside(errors.New(reason))
	}
	return nil
}

// offLimitsPath refuses a clean request path that the rule forbids as it
// is spelled, before anything is opened (opening some files under /proc
// or /sys is already an act); where it really leads is checked again on
// the open file (refuseOffLimits).
func (r Roots) offLimitsPath(clean string) error {
	if reason := sessions.OffLimits(r.state.home, r.state.own, clean); reason != "" {
		return outside(errors.New(reason))
	}
	return nil
}

// SetFolders makes cwd and dirs the folders served from now on: a folder
// no longer listed is refused at once (its open handle closed, so even a
// request under way fails), one still listed keeps its handle and the
// identity it had, and one added is served as any other.
func (r Roots) SetFolders(cwd string, dirs []string) {
	fresh := folderRoots(cwd, dirs)
	s := r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	handles := make([]*os.Root, len(fresh))
	for j := range fresh {
		for i, old := range s.dirs {
			if old.path == fresh[j].path {
				fresh[j].id = old.id
				handles[j], s.handles[i] = s.handles[i], nil
				break
			}
		}
	}
	for _, h := range s.handles {
		if h != nil {
			h.Close()
		}
	}
	s.dirs, s.handles = fresh, handles
}

// fsRefusal is why a file request was not served, in words that are safe to
// give the agent: never a resolved path, never whether something exists
// outside the chat's folders.
type fsRefusal struct {
	// code is the JSON-RPC error code the answer carries.
	code int
	text string
	// cause is the underlying error, for the log only.
	cause error
}

func (e *fsRefusal) Error() string { return e.text }
func (e *fsRefusal) Unwrap() error { return e.cause }

// JSON-RPC error codes of file refusals (ACP's ErrorCode).
const (
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeResourceNotFound = -32002
)

// RefusalOutside is the one answer for a path outside every root, a path
// that escapes by ".." or a symlink, and one whose existence outside is
// unknown: the three are indistinguishable on purpose.
const RefusalOutside = "path is outside the chat's folders"

func refuse(code int, text string, cause error) *fsRefusal {
	return &fsRefusal{code: code, text: text, cause: cause}
}

func outside(cause error) *fsRefusal { return refuse(codeInvalidParams, RefusalOutside, cause) }

// cleanRequestPath checks a request's path and cleans it: it must be
// absolute and free of NUL bytes.
func cleanRequestPath(p string) (string, error) {
	if p == "" || strings.IndexByte(p, 0) >= 0 || !filepath.IsAbs(p) {
		return "", refuse(codeInvalidParams, "path is not an absolute path", nil)
	}
	return filepath.Clean(p), nil
}

// requestPath is a request's path cleaned (cleanRequestPath) and not off
// limits as spelled (offLimitsPath).
func (r Roots) requestPath(p string) (string, error) {
	clean, err := cleanRequestPath(p)
	if err != nil {
		return "", err
	}
	return clean, r.offLimitsPath(clean)
}

// within returns p relative to root when p is root or below it, compared
// component by component: /a/bc is not inside /a/b.
func within(root, p string) (string, bool) {
	if p == root {
		return ".", true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
		return rest, true
	}
	return "", false
}

// locate reports the path relative to the root that lexically holds a
// clean absolute path.
func (r Roots) locate(p string) (string, bool) {
	r.state.mu.Lock()
	defer r.state.mu.Unlock()
	_, rel, ok := locateIn(r.state.dirs, p)
	return rel, ok
}

// locateIn picks the root that lexically holds a clean absolute path (the
// longest match, under either spelling of the root) and the path relative
// to it.
func locateIn(dirs []fsRoot, p string) (int, string, bool) {
	best, bestLen, rel := -1, -1, ""
	for i, root := range dirs {
		for _, spelling := range [...]string{root.path, root.alias} {
			if spelling == "" || len(spelling) <= bestLen {
				continue
			}
			if rest, ok := within(spelling, p); ok {
				best, bestLen, rel = i, len(spelling), rest
			}
		}
	}
	return best, rel, best >= 0
}

// bindTo closes the roots' folders when ctx ends (the harness process's
// context). It may be called on every request; only the first counts.
func (r Roots) bindTo(ctx context.Context) {
	s := r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bound || s.closed {
		return
	}
	s.bound = true
	context.AfterFunc(ctx, r.close)
}

// close closes the folders held open; later requests are refused.
func (r Roots) close() {
	s := r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for i, h := range s.handles {
		if h != nil {
			h.Close()
			s.handles[i] = nil
		}
	}
}

// rootFor returns the open folder that lexically holds a clean absolute
// path, and the path relative to it. The folder is opened on first use and
// must still be the one the harness started with.
func (r Roots) rootFor(p string) (*os.Root, string, error) {
	s := r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	i, rel, ok := locateIn(s.dirs, p)
	if !ok {
		return nil, "", outside(nil)
	}
	if s.closed {
		return nil, "", refuse(codeInternalError, "the agent's connection is closing", nil)
	}
	if h := s.handles[i]; h != nil {
		return h, rel, nil
	}
	h, err := s.open(i)
	return h, rel, err
}

// open opens root i's folder and keeps it; called with mu held.
func (s *rootsState) open(i int) (*os.Root, error) {
	root := s.dirs[i]
	h, err := os.OpenRoot(root.path)
	if err != nil {
		return nil, refuse(codeResourceNotFound, "the chat's folder "+root.path+" is gone", err)
	}
	fi, err := h.Stat(".")
	if err != nil || !os.SameFile(fi, root.id) {
		h.Close()
		return nil, refuse(codeResourceNotFound, "the chat's folder "+root.path+" was replaced since the agent started; restart the chat", err)
	}
	s.handles[i] = h
	return h, nil
}

// acquire waits for a turn to serve one file request; release gives it back.
// Waiting is a channel receive, which parks a goroutine, not an OS thread.
func (r Roots) acquire(ctx context.Context) error {
	s := r.state
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.waiting <- struct{}{}:
	default:
		return refuse(codeInternalError, fmt.Sprintf("too many file requests in flight (at most %d at once, %d waiting); retry", maxFSInFlight, maxFSWaiting), nil)
	}
	defer func() { <-s.waiting }()
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return refuse(codeInternalError, "request cancelled", ctx.Err())
	}
}

func (r Roots) release() { <-r.state.slots }

// escaped reports whether an error may mean that the path left its root (by
// "..", an absolute symlink or a symlink out) rather than a plain error
// inside it. os.Root reports an escape without an errno; too many symlinks
// count as leaving too.
func escaped(err error) bool {
	var r *fsRefusal
	if errors.As(err, &r) {
		return r.text == RefusalOutside
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno == syscall.ELOOP
	}
	return !notDir(err)
}

// notDir reports an os.Root.OpenRoot of something that is not a folder,
// which os.Root reports without an errno.
func notDir(err error) bool {
	return errors.Is(err, syscall.ENOTDIR) || strings.HasSuffix(err.Error(), "not a directory")
}

// inRootError turns an error of an operation inside a root into a refusal.
// It never passes the error's text on: that names paths.
func inRootError(err error) *fsRefusal {
	var r *fsRefusal
	switch {
	case errors.As(err, &r):
		return r
	case escaped(err):
		return outside(err)
	case errors.Is(err, fs.ErrNotExist), notDir(err):
		return refuse(codeResourceNotFound, "no such file", err)
	case errors.Is(err, fs.ErrPermission):
		return refuse(codeInvalidParams, "permission denied", err)
	case errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.ENODEV):
		return refuse(codeInvalidParams, RefusalNotRegular, err)
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return refuse(codeInternalError, errno.Error(), err)
	}
	return outside(err)
}

// RefusalNotRegular answers a FIFO, a device, a socket or a folder.
const RefusalNotRegular = "not a regular file"

// openIn opens a clean absolute path through the root that lexically holds
// it.
func (r Roots) openIn(p string, flag int, perm os.FileMode) (*os.File, error) {
	h, rel, err := r.rootFor(p)
	if err != nil {
		return nil, err
	}
	return h.OpenFile(rel, flag, perm)
}

// openFile opens a request's path through a root. A path whose symlinks
// lead out of the root it is spelled in (an absolute symlink, or one into
// another of the chat's folders) is resolved once more and opened through
// the root that holds the result, again race-free; anything else that
// leaves the roots is refused with refusalOutside.
func (r Roots) openFile(p string, flag int, perm os.FileMode) (*os.File, error) {
	clean, err := r.requestPath(p)
	if err != nil {
		return nil, err
	}
	if shared, ok := r.sharedFile(clean); ok {
		return r.openShared(shared, flag, perm)
	}
	f, err := r.openIn(clean, flag, perm)
	if err == nil || !escaped(err) {
		if err != nil {
			return nil, inRootError(err)
		}
		if err := r.refuseOffLimits(f); err != nil {
			return nil, err
		}
		return f, nil
	}
	// Only chooses where to look: the open below is through a root again.
	real, rerr := filepath.EvalSymlinks(clean)
	if rerr != nil {
		// A missing file: where its folder really is.
		dir, derr := filepath.EvalSymlinks(filepath.Dir(clean))
		if derr != nil {
			return nil, outside(err)
		}
		real = filepath.Join(dir, filepath.Base(clean))
	}
	f, err = r.openIn(filepath.Clean(real), flag, perm)
	if err != nil {
		return nil, inRootError(err)
	}
	if err := r.refuseOffLimits(f); err != nil {
		return nil, err
	}
	return f, nil
}

// openParent opens the folder that holds a request's path, as an os.Root of
// its own, and returns the last name in it. A write works inside that one
// folder only, so nothing swapped above it later can move the write.
func (r Roots) openParent(p string) (*os.Root, string, error) {
	clean, err := r.requestPath(p)
	if err != nil {
		return nil, "", err
	}
	if rel, ok := r.locate(clean); ok && rel == "." {
		return nil, "", refuse(codeInvalidParams, RefusalNotRegular, nil)
	}
	dir, base := filepath.Split(clean)
	if base == "" {
		return nil, "", outside(nil)
	}
	dir = filepath.Clean(dir)
	open := func(dir string) (*os.Root, error) {
		h, rel, err := r.rootFor(dir)
		if err != nil {
			return nil, err
		}
		return h.OpenRoot(rel)
	}
	sub, err := open(dir)
	if err != nil && escaped(err) {
		var rerr error
		var real string
		if real, rerr = filepath.EvalSymlinks(dir); rerr != nil {
			return nil, "", outside(err)
		}
		sub, err = open(filepath.Clean(real))
	}
	if err != nil {
		return nil, "", inRootError(err)
	}
	dirFile, err := sub.Open(".")
	if err != nil {
		sub.Close()
		return nil, "", inRootError(err)
	}
	err = r.refuseOffLimits(dirFile)
	if err == nil {
		dirFile.Close()
	}
	if err != nil {
		sub.Close()
		return nil, "", err
	}
	return sub, base, nil
}

// resolve reports where a request's path lands, opening it (or, for a
// write, its folder) through the roots as the handlers do, or refuses it.
func (r Roots) resolve(p string, forWrite bool) (string, error) {
	if forWrite {
		if clean, err := cleanRequestPath(p); err == nil {
			if shared, ok := r.sharedFile(clean); ok {
				dir, err := r.openSharedParent(shared)
				if err != nil {
					return "", err
				}
				defer dir.Close()
				return filepath.Join(dir.Name(), filepath.Base(shared)), nil
			}
		}
		sub, base, err := r.openParent(p)
		if err != nil {
			return "", err
		}
		defer sub.Close()
		return filepath.Join(sub.Name(), base), nil
	}
	f, err := r.openFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return f.Name(), nil
}
