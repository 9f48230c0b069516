package sessions

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/proto"
)

// ErrNotFound is returned when no chat matches an id or name.
var ErrNotFound = errors.New("no such chat")

// Store keeps chat files under an agent home: chats/<id>.toml and the empty
// homes/<id>/ folders of chats with no project. Writes are atomic and
// serialised between processes with a lock file.
type Store struct {
	home string
	// homes is HomeDir's folder with a slash after it: NoProject compares
	// a chat's cwd with it and the id, building no path (ls asks it of
	// every chat).
	homes string

	// parsed remembers what List parsed, by the bytes parsed (see list.go).
	mu     sync.Mutex
	parsed map[[sha256.Size]byte]parsedChat
	// stamps remembers, by id, the stat of each file the last List read
	// and the bytes it held, so a file unchanged since is not read again.
	stamps map[string]stampedChat
	// trustAfter is how old a file's change time must be for its stamp to
	// be trusted (stampMargin; tests change it), and reads counts the chat
	// files List has read.
	trustAfter time.Duration
	reads      atomic.Int64
}

// Entry is one listed chat: its metadata, or the parse error of a broken file.
type Entry struct {
	ID     string
	Meta   *Meta
	Broken error
	// NoProject is set when the chat has no project: its cwd is its own
	// folder in the agent home (Store.NoProject). List sets it, and a
	// client reads it off the chat JSON.
	NoProject bool
	// Bound is a sandboxed chat's bound as its server computes it
	// (ChatJSON.Sandbox), read off the chat JSON by a client; List leaves
	// it nil: every start computes it.
	Bound *proto.SandboxJSON
}

// Name returns the chat's name, or its id when the file is broken.
func (e Entry) Name() string {
	if e.Meta != nil {
		return e.Meta.Name
	}
	return e.ID
}

// OpenStore opens (creating if needed) the store under the agent home.
func OpenStore(home string) (*Store, error) {
	if home == "" || !filepath.IsAbs(home) {
		return nil, fmt.Errorf("open agent home %q: not an absolute path", home)
	}
	// A home made here is the owner's alone from the start (as the XDG
	// spec asks of a data folder made on the way), so that no command run
	// before the first server, `harnesses` or `ls`, leaves one that
	// `doctor` warns of; the server tightens a home made otherwise.
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("open agent home: %w", err)
	}
	for _, d := range []string{filepath.Join(home, "chats"), filepath.Join(home, "homes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("open agent home: %w", err)
		}
	}
	// Chat folders are stored canonical, so the home is too: a chat's cwd
	// then equals HomeDir(id) even when the agent home is reached by a link.
	home = filepath.Clean(home)
	if c, err := filepath.EvalSymlinks(home); err == nil {
		home = c
	}
	s := &Store{home: home, homes: filepath.Join(home, "homes") + "/", trustAfter: stampMargin}
	if err := s.removeStaleTemps(); err != nil {
		return nil, err
	}
	return s, nil
}

// removeStaleTemps deletes temp files left by a writer that was killed
// between creating and renaming them. Every writer holds the lock while its
// temp file exists, so under the lock any temp file is stale. The folder is
// read once, without the lock; the lock is taken only when it holds such a
// file (a store opened to list, as `ls` does, mostly finds none), and each
// is looked at again under it: one a writer was still renaming is gone.
func (s *Store) removeStaleTemps() error {
	dir := filepath.Join(s.home, "chats")
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open chat store: %w", err)
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	var stale []string
	for _, name := range names {
		if isTempName(name) {
			stale = append(stale, filepath.Join(dir, name))
		}
	}
	if len(stale) == 0 {
		return nil
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	for _, f := range stale {
		// Only what a writer makes: a link or a FIFO of that name is not ours.
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			os.Remove(f)
		}
	}
	return nil
}

// isTempName reports whether a name in chats/ is a writer's temp file: a
// chat's (.ID.toml.tmp-N) or a handoff capsule's (.ID.handoff.md.tmp-N).
func isTempName(name string) bool {
	for _, pattern := range []string{".*.toml.tmp-*", ".*.handoff.md.tmp-*"} {
		if ok, _ := filepath.Match(pattern, name); ok {
			return true
		}
	}
	return false
}

// Home returns the agent home folder.
func (s *Store) Home() string { return s.home }

// ChatPath returns the path of a chat's TOML file.
func (s *Store) ChatPath(id string) string { return filepath.Join(s.home, "chats", id+".toml") }

// HomeDir returns the empty folder a chat with no project runs in.
func (s *Store) HomeDir(id string) string { return filepath.Join(s.home, "homes", id) }

// ScratchDir is chat id's scratch folder under the agent home: a sandboxed
// chat's TMPDIR, the one place outside its folders it may always write.
// Removing the chat removes it.
func ScratchDir(home, id string) string { return filepath.Join(home, "tmp", id) }

// WorktreesDir is the folder of the chats' git worktrees when the config
// names no other: worktrees/ in the agent home. A project folder inside it
// is allowed (it is a worktree, not the store's own files).
func (s *Store) WorktreesDir() string { return filepath.Join(s.home, "worktrees") }

// NoProject reports whether the chat runs in its own home folder.
func (s *Store) NoProject(m *Meta) bool {
	if !ValidID(m.ID) {
		// An id Join would clean ("..", "a/b"): as HomeDir says.
		return m.Cwd == s.HomeDir(m.ID)
	}
	// HomeDir(id) is homes+id for an id of [a-z0-9-].
	rest, ok := strings.CutPrefix(m.Cwd, s.homes)
	return ok && rest == m.ID
}

// lock takes the store-wide write lock, shared by every acpmux-tui process.
func (s *Store) lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(s.home, "chats", ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock chat store: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock chat store: %w", err)
	}
	return func() { f.Close() }, nil
}

// NewChat is what a caller gives to create a chat.
type NewChat struct {
	// ID is a preset id from ReserveHome (a pooled harness's folder); empty
	// means a fresh one.
	ID      string
	Name    string
	Harness string
	// Cwd is the project folder; empty means no project: the chat runs in
	// its own empty homes/<id> folder.
	Cwd                   string
	AdditionalDirectories []string
	// AdditionalFiles are the single files the chat sees, validated with
	// Store.ValidateFiles.
	AdditionalFiles []string
	Parent          string
	Origin          string
	AgentSessionID  string
	// Capsule, when set, is the chat's first message (see
	// Store.ClaimCapsule), stored beside its file.
	Capsule string
	// Worktree is what a client asks the server of the chat's git
	// worktree: one (true), none (false) or the config's default (nil).
	// The store itself makes none (internal/worktree.Give does).
	Worktree *bool
	// WorktreeBase is the ref the worktree's branch starts from ("" for
	// HEAD), with Worktree.
	WorktreeBase string
	// Sandbox is what a client asks of the chat's sandbox: on (true), off
	// (false) or the config's default (nil); the chat service decides
	// before the store writes it.
	Sandbox *bool
}

// Create validates the new chat's folders with ValidateFolders, then writes
// its file under a fresh id (and creates its home folder when it has no
// project). A refusal writes nothing.
func (s *Store) Create(n NewChat) (*Meta, error) {
	if n.Harness == "" {
		return nil, errors.New("create chat: no harness given")
	}
	if n.Name != "" {
		if err := CheckName(n.Name); err != nil {
			return nil, fmt.Errorf("create chat: %w", err)
		}
	}
	cwd := ""
	if n.Cwd != "" {
		c, err := s.ProjectFolder(n.Cwd)
		if err != nil {
			return nil, fmt.Errorf("create chat: %w", err)
		}
		cwd = c
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	id, home := n.ID, ""
	if id != "" {
		if err := s.checkReserved(id, cwd); err != nil {
			return nil, err
		}
	} else if id, err = s.freshID(); err != nil {
		return nil, err
	}
	if cwd == "" {
		home = s.HomeDir(id)
		if n.ID == "" {
			if err := os.Mkdir(home, 0o755); err != nil {
				return nil, fmt.Errorf("create chat %s: home folder: %w", id, err)
			}
		}
		// The home folder is already canonical only if the agent home is.
		if c, err := filepath.EvalSymlinks(home); err == nil {
			cwd = c
		} else {
			cwd = home
		}
	}
	cleanup := func() {
		if home != "" && n.ID == "" {
			os.Remove(home)
		}
	}
	dirs, files, err := s.ValidateLists(cwd, n.AdditionalDirectories, n.AdditionalFiles)
	if err != nil {
		cleanup()
		return nil, err
	}
	if len(files) == 0 {
		files = nil
	}
	m := &Meta{
		Version: FormatVersion, ID: id, Name: n.Name, Harness: n.Harness,
		Cwd: cwd, AdditionalDirectories: dirs, AdditionalFiles: files, Created: time.Now().UTC().Truncate(time.Second),
		Parent: n.Parent, Origin: n.Origin, AgentSessionID: n.AgentSessionID, Capsule: n.Capsule != "",
		Sandbox: n.Sandbox != nil && *n.Sandbox,
	}
	if m.Name == "" {
		m.Name = defaultName(n, cwd, id)
	}
	if err := m.check(); err != nil {
		cleanup()
		return nil, fmt.Errorf("create chat: %w", err)
	}
	if n.Capsule != "" {
		if err := s.writeCapsule(id, n.Capsule); err != nil {
			cleanup()
			return nil, fmt.Errorf("create chat %s: %w", id, err)
		}
	}
	if err := s.write(m, nil); err != nil {
		cleanup()
		s.removeCapsules(id)
		return nil, err
	}
	return m, nil
}

// ReserveHome makes a fresh id's empty home folder without a chat file, for
// a prewarmed harness that a new chat may later take (Create with NewChat.ID).
func (s *Store) ReserveHome() (id, dir string, err error) {
	unlock, err := s.lock()
	if err != nil {
		return "", "", err
	}
	defer unlock()
	if id, err = s.freshID(); err != nil {
		return "", "", err
	}
	dir = s.HomeDir(id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("reserve home folder: %w", err)
	}
	if c, err := filepath.EvalSymlinks(dir); err == nil {
		dir = c
	}
	return id, dir, nil
}

// ReleaseHome removes a reserved home folder no chat took, and anything a
// prewarmed harness wrote in it. A folder that belongs to a chat is kept.
func (s *Store) ReleaseHome(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("release home: bad id %q", id)
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Lstat(s.ChatPath(id)); err == nil {
		return nil
	}
	return os.RemoveAll(s.HomeDir(id))
}

// checkReserved verifies a preset id: a reserved home folder and no chat file.
func (s *Store) checkReserved(id, cwd string) error {
	if !ValidID(id) {
		return fmt.Errorf("create chat: bad id %q", id)
	}
	if cwd != "" {
		return fmt.Errorf("create chat %s: a reserved home is only for a chat with no project", id)
	}
	if _, err := os.Lstat(s.ChatPath(id)); err == nil {
		return fmt.Errorf("create chat %s: id in use", id)
	}
	if fi, err := os.Stat(s.HomeDir(id)); err != nil || !fi.IsDir() {
		return fmt.Errorf("create chat %s: no reserved home folder", id)
	}
	return nil
}

func defaultName(n NewChat, cwd, id string) string {
	if n.Cwd != "" {
		return filepath.Base(cwd) + " " + id
	}
	return n.Harness + " " + id
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// freshID returns an unused six-character id; called with the lock held.
func (s *Store) freshID() (string, error) {
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		for i := range b {
			b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
		}
		id := string(b[:])
		if _, err := os.Lstat(s.ChatPath(id)); errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Lstat(s.HomeDir(id)); errors.Is(err, fs.ErrNotExist) {
				return id, nil
			}
		}
	}
	return "", errors.New("create chat: no free id after 100 tries")
}

// Load reads one chat by id. A file that does not parse is returned as an
// error that names the chat; so is a chat file that is a symbolic link (never
// followed), not a regular file, or over MaxChatFileBytes.
func (s *Store) Load(id string) (*Meta, error) {
	m, _, err := s.load(id)
	return m, err
}

// load reads one chat and says which file it came from, so a writer can
// check that it replaces or deletes that file and no other.
func (s *Store) load(id string) (*Meta, fileIdentity, error) {
	if !ValidID(id) {
		return nil, fileIdentity{}, fmt.Errorf("load chat %q: %w", clip(id), ErrNotFound)
	}
	data, fid, err := readChatFile(s.ChatPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fid, fmt.Errorf("load chat %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fid, fmt.Errorf("load chat %s: %w", id, err)
	}
	m, err := ParseMeta(data)
	if err == nil {
		err = checkFileID(id, m)
	}
	if err != nil {
		return nil, fid, fmt.Errorf("load chat %s: %w", id, err)
	}
	return m, fid, nil
}

// checkFileID refuses a chat whose file is named for another id.
func checkFileID(id string, m *Meta) error {
	if m.ID != id {
		return fmt.Errorf("file names id %q", m.ID)
	}
	return nil
}

// Update applies change to the chat's stored metadata under the store lock and
// writes the result atomically. The file is read again under the lock, so two
// processes never lose each other's writes. A broken file is never rewritten.
func (s *Store) Update(id string, change func(*Meta) error) (*Meta, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	m, fid, err := s.load(id)
	if err != nil {
		return nil, fmt.Errorf("update chat: %w", err)
	}
	next := m.Clone()
	if err := change(next); err != nil {
		return nil, err
	}
	next.ID, next.Version = m.ID, FormatVersion
	if err := next.check(); err != nil {
		return nil, fmt.Errorf("update chat %s: %w", id, err)
	}
	if err := s.write(next, &fid); err != nil {
		return nil, err
	}
	return next, nil
}

// AddFolders validates dirs and appends them to the chat's folders; folders it
// already has are kept in place. The whole new list goes through the
// validator, so a refusal changes nothing. On a chat that has started, each
// new folder's baseline (its HEAD, and the time it was added) is recorded
// with it; git runs before the store lock is taken.
func (s *Store) AddFolders(id string, dirs []string) (*Meta, error) {
	at := time.Now()
	heads := map[string]string{}
	for _, d := range dirs {
		if c, err := Canonical(d); err == nil {
			heads[c] = GitHead(c)
		}
	}
	return s.Update(id, func(m *Meta) error {
		if _, err := s.ValidateFolders(m.Cwd, dirs); err != nil {
			return err
		}
		if gone := CheckStoredFolders(m.Cwd, m.AdditionalDirectories); len(gone) > 0 {
			return fmt.Errorf("chat %s: stored folder %s %s; remove it first (rm-dir)", m.ID, quotePath(gone[0].Path), gone[0].Reason)
		}
		all, err := s.ValidateFolders(m.Cwd, append(append([]string(nil), m.AdditionalDirectories...), dirs...))
		if err != nil {
			return err
		}
		var added []string
		for _, f := range all {
			if !slices.Contains(m.AdditionalDirectories, f) {
				added = append(added, f)
			}
		}
		addFolderBaselines(m, added, heads, at)
		m.AdditionalDirectories = all
		return nil
	})
}

// RemoveFolders drops the named folders from the chat's list. A folder is
// matched as given, cleaned, or canonical, so a folder that has gone can still
// be removed; a name that matches nothing is an error and changes nothing.
func (s *Store) RemoveFolders(id string, dirs []string) (*Meta, error) {
	return s.Update(id, func(m *Meta) error {
		drop := map[int]bool{}
		var missing []string
		for _, d := range dirs {
			found := false
			for i, have := range m.AdditionalDirectories {
				if sameFolder(have, d) {
					drop[i], found = true, true
				}
			}
			if !found {
				missing = append(missing, d)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("chat %s has no folder %s", m.ID, strings.Join(quoteAll(missing), ", "))
		}
		kept := m.AdditionalDirectories[:0:0]
		for i, have := range m.AdditionalDirectories {
			if !drop[i] {
				kept = append(kept, have)
			}
		}
		m.AdditionalDirectories = kept
		return nil
	})
}

// RemoveMissingFolders drops every stored folder that no longer passes the
// validator (the one-key fix for a refused start) and returns what it dropped.
func (s *Store) RemoveMissingFolders(id string) (*Meta, []proto.FolderProblem, error) {
	var dropped []proto.FolderProblem
	m, err := s.Update(id, func(m *Meta) error {
		dropped = CheckStoredFolders(m.Cwd, m.AdditionalDirectories)
		bad := map[int]bool{}
		for _, p := range dropped {
			bad[p.Index] = true
		}
		kept := []string{}
		for i, d := range m.AdditionalDirectories {
			if !bad[i] {
				kept = append(kept, d)
			}
		}
		m.AdditionalDirectories = kept
		return nil
	})
	return m, dropped, err
}

func sameFolder(stored, given string) bool {
	if stored == given || (filepath.IsAbs(given) && stored == filepath.Clean(given)) {
		return true
	}
	c, err := Canonical(given)
	return err == nil && c == stored
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quotePath(s)
	}
	return out
}

// Remove deletes a chat's file and its own home folder. It never touches a
// project folder; a home folder with files in it is kept unless force is set.
// A broken file is never deleted.
func (s *Store) Remove(id string, force bool) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	_, fid, err := s.load(id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return err
		}
		return fmt.Errorf("remove chat %s: refusing to delete a file that does not parse (%w); fix or move %s by hand", id, err, s.ChatPath(id))
	}
	home := s.HomeDir(id)
	if des, err := os.ReadDir(home); err == nil && len(des) > 0 && !force {
		entries := "1 entry"
		if len(des) != 1 {
			entries = fmt.Sprintf("%d entries", len(des))
		}
		return fmt.Errorf("remove chat %s: its home folder %s is not empty (%s); use --force to delete it too", id, home, entries)
	}
	if err := sameFile(s.ChatPath(id), fid); err != nil {
		return fmt.Errorf("remove chat %s: %w", id, err)
	}
	if err := os.Remove(s.ChatPath(id)); err != nil {
		return fmt.Errorf("remove chat %s: %w", id, err)
	}
	s.removeCapsules(id)
	// A sandboxed chat's TMPDIR: what its harness left there goes with
	// it. The chat is gone already; a scratch file that cannot be removed
	// is temporary data, not a reason to say the removal failed.
	_ = os.RemoveAll(ScratchDir(s.home, id))
	if err := syncDir(filepath.Join(s.home, "chats")); err != nil {
		return fmt.Errorf("remove chat %s: %w", id, err)
	}
	if force {
		err = os.RemoveAll(home)
	} else {
		err = os.Remove(home)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove chat %s: home folder: %w", id, err)
	}
	return nil
}
