package sessions

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// parsedChat is what ParseMeta made of one chat file's bytes.
type parsedChat struct {
	meta *Meta
	err  error
}

// List returns every chat, sorted by creation time then id. Every
// chats/<name>.toml is listed: a file that does not parse, is over
// MaxChatFileBytes, is a symbolic link (never followed) or is not a regular
// file (a FIFO, a device, a folder) is listed as broken with the reason, and
// left as it is.
//
// The store remembers what the last List parsed, by the SHA-256 of the bytes
// parsed, so listing again parses only what changed: a megabyte-sized chat
// costs its parse once, not at every refresh. It remembers each file's stat
// too, and does not read again a file whose stat has not changed (see
// listOne). The files are decoded without the TOML parser when they are in
// the plain form the store writes (ParseMeta).
func (s *Store) List() ([]Entry, error) { return s.list(false) }

// ListOnce is List for a caller that lists once and exits (ls): nothing is
// kept for a next List, so no file's bytes are hashed and no chat is
// copied for the caller.
func (s *Store) ListOnce() ([]Entry, error) { return s.list(true) }

func (s *Store) list(once bool) ([]Entry, error) {
	// The folder is opened once: its entries are read from it (unsorted,
	// as the kernel gives them; the list is sorted at the end) and each
	// chat file is opened in it, by name.
	dirPath := filepath.Join(s.home, "chats")
	dir, err := os.Open(dirPath)
	if err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	defer dir.Close()
	des, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	// The descriptor stays open until the workers are done (dir.Close is
	// deferred); Fd keeps it in blocking mode, which a folder is anyway.
	dirfd := int(dir.Fd())
	s.mu.Lock()
	before, stamps := s.parsed, s.stamps
	s.mu.Unlock()
	var names []string
	var types []fs.FileMode
	for _, de := range des {
		name := de.Name()
		if strings.HasSuffix(name, ".toml") && !strings.HasPrefix(name, ".") {
			names, types = append(names, name), append(types, de.Type())
		}
	}
	// The files are read and parsed in parallel, one worker a CPU: at
	// 1,000 chats the reading (four system calls a file) and the parsing
	// are all of ls's work. Each worker writes only its own slots.
	listed := make([]listedChat, len(names))
	workers := min(runtime.GOMAXPROCS(0), (len(names)+listBatch-1)/listBatch)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The file's bytes are parsed (copied) and hashed, never kept:
			// one buffer serves all the worker reads.
			scratch := make([]byte, 0, listScratch)
			for {
				from := int(next.Add(listBatch)) - listBatch
				if from >= len(names) {
					return
				}
				for i := from; i < min(from+listBatch, len(names)); i++ {
					f := chatFile{dirfd: dirfd, dir: dirPath, name: names[i]}
					listed[i] = s.listOne(f, types[i], before, stamps, once, &scratch)
				}
			}
		}()
	}
	wg.Wait()
	// A fresh map each time, so the memory follows the chats there are now;
	// a map once published is never written again, so concurrent Lists may
	// read it without the lock. Once, nothing is kept.
	var now map[[sha256.Size]byte]parsedChat
	var nowStamps map[string]stampedChat
	if !once {
		now = make(map[[sha256.Size]byte]parsedChat, len(names))
		nowStamps = make(map[string]stampedChat, len(names))
	}
	out := make([]Entry, 0, len(names))
	for _, l := range listed {
		if !l.found {
			continue
		}
		if l.hashed && !once {
			now[l.key] = l.parsed
			if l.stamped {
				nowStamps[l.entry.ID] = stampedChat{l.stamp, l.key}
			}
		}
		out = append(out, l.entry)
	}
	if !once {
		s.mu.Lock()
		s.parsed, s.stamps = now, nowStamps
		s.mu.Unlock()
	}
	sortEntries(out)
	return out, nil
}

// sortEntries sorts chats by creation time then id. Broken files have no
// creation time: they go last, by id, so the order stays a total one.
func sortEntries(out []Entry) {
	// Typed, not sort.SliceStable: its reflection was 2.5 of ls's 14 ms
	// of CPU at 1,000 chats (a profile). Ids are unique, so the order is
	// total and a stable sort is not needed.
	slices.SortFunc(out, func(a, b Entry) int {
		if (a.Meta == nil) != (b.Meta == nil) {
			if a.Meta == nil {
				return 1
			}
			return -1
		}
		if a.Meta != nil {
			if c := a.Meta.Created.Compare(b.Meta.Created); c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// listBatch is how many files a List worker takes at a time.
const listBatch = 32

// listScratch is the size a List worker's read buffer starts at: a chat
// file the store writes is well under it.
const listScratch = 4 << 10

// listedChat is what listOne found of one chat file.
type listedChat struct {
	entry   Entry
	found   bool // false for a file removed since the folder was read
	hashed  bool // key and parsed hold the parse of the file's bytes
	key     [sha256.Size]byte
	parsed  parsedChat
	stamped bool // stamp is the file's stat taken before it was read
	stamp   fileStamp
}

// fileStamp is what a stat says of a file that any change to it changes:
// which file it is, its size, and its modification and change times.
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime unix.Timespec
}

// stampedChat is a file's stamp and the hash of the bytes it held then.
type stampedChat struct {
	stamp fileStamp
	key   [sha256.Size]byte
}

// stampMargin is how old a file's change time must be, when its stamp is
// taken, for the stamp to be trusted later: the kernel stamps files from a
// clock that ticks every few milliseconds, so a file written twice within
// a tick keeps its times (git's "racy" index entries). A file changed in
// the last second is read again at each List.
const stampMargin = time.Second

// statChat takes a chat file's stamp, not following a link; ok is false
// unless it is a regular file whose change time is old enough to trust.
func statChat(f chatFile, margin time.Duration) (fileStamp, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(f.dirfd, f.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fileStamp{}, false
	}
	stamp := fileStamp{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}
	return stamp, time.Unix(st.Ctim.Unix()).Before(time.Now().Add(-margin))
}

// listOne reads one chat file for List, parsing its bytes only when the
// last List has not parsed the same bytes. When the last List read the
// file and its stat has not changed since (stamps), it is not read again:
// at 1,000 chats the reading (four system calls a file) was most of what
// the server's list cost, where a stat is one.
//
// Once (ListOnce), nothing is kept: the bytes are parsed without a hash,
// and the parse is the caller's.
func (s *Store) listOne(f chatFile, typ fs.FileMode, before map[[sha256.Size]byte]parsedChat, stamps map[string]stampedChat, once bool, scratch *[]byte) listedChat {
	id := strings.TrimSuffix(f.name, ".toml")
	l := listedChat{entry: Entry{ID: id}, found: true}
	e := &l.entry
	if !ValidID(id) {
		e.Broken = fmt.Errorf("load chat %q: the file's name is not a chat id (1-64 of [a-z0-9-], then .toml)", clip(id))
		return l
	}
	var p parsedChat
	read := true
	if before != nil {
		// A store that has listed before (the server's, the TUI's).
		l.stamp, l.stamped = statChat(f, s.trustAfter)
		if was, ok := stamps[id]; ok && l.stamped && was.stamp == l.stamp {
			if p, ok = before[was.key]; ok {
				l.key, read = was.key, false
			}
		}
	}
	if read {
		s.reads.Add(1)
		data, _, err := openChatFile(f, typ, *scratch)
		if cap(data) > cap(*scratch) && cap(data) <= MaxChatFileBytes/16 {
			*scratch = data[:0] // grown for this file: kept for the next
		}
		if errors.Is(err, fs.ErrNotExist) {
			return listedChat{}
		}
		if err != nil {
			e.Broken = fmt.Errorf("load chat %s: %w", id, err)
			return l
		}
		if once {
			m, err := ParseMeta(data)
			return s.listed(l, parsedChat{m, err}, false)
		}
		l.key = sha256.Sum256(data)
		var ok bool
		if p, ok = before[l.key]; !ok {
			m, err := ParseMeta(data)
			p = parsedChat{m, err}
		}
	}
	l.hashed, l.parsed = true, p
	return s.listed(l, p, true)
}

// listed fills in the entry of a chat file parsed as p; shared says the
// parse is kept for a next List, so the entry gets a copy of its own.
func (s *Store) listed(l listedChat, p parsedChat, shared bool) listedChat {
	e := &l.entry
	id := e.ID
	err := p.err
	if err == nil {
		err = checkFileID(id, p.meta)
	}
	if err != nil {
		e.Broken = fmt.Errorf("load chat %s: %w", id, err)
		return l
	}
	// Each caller gets its own copy to change.
	e.Meta = p.meta
	if shared {
		e.Meta = p.meta.Clone()
	}
	e.NoProject = s.NoProject(e.Meta)
	return l
}

// Resolve finds the chat an ID argument means: the exact id, the exact name,
// or a unique prefix of either.
func (s *Store) Resolve(ref string) (Entry, error) {
	if ref == "" {
		return Entry{}, fmt.Errorf("find chat: empty id: %w", ErrNotFound)
	}
	if ValidID(ref) {
		if _, err := os.Lstat(s.ChatPath(ref)); err == nil {
			m, err := s.Load(ref)
			return Entry{ID: ref, Meta: m, Broken: err}, nil
		}
	}
	entries, err := s.List()
	if err != nil {
		return Entry{}, err
	}
	var byName, byPrefix []Entry
	for _, e := range entries {
		if e.Meta != nil && e.Meta.Name == ref {
			byName = append(byName, e)
		}
		if strings.HasPrefix(e.ID, ref) || (e.Meta != nil && strings.HasPrefix(e.Meta.Name, ref)) {
			byPrefix = append(byPrefix, e)
		}
	}
	for _, set := range [][]Entry{byName, byPrefix} {
		switch len(set) {
		case 0:
		case 1:
			return set[0], nil
		default:
			ids := make([]string, len(set))
			for i, e := range set {
				ids[i] = e.ID
			}
			return Entry{}, fmt.Errorf("find chat %q: ambiguous, matches %s", ref, strings.Join(ids, ", "))
		}
	}
	return Entry{}, fmt.Errorf("find chat %q: %w", ref, ErrNotFound)
}
