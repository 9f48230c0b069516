package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/fsnotify/fsnotify"
)

// This file watches the chats folder, so that a chat file changed by hand
// or by another program (written in place, copied over, created, renamed
// into place, removed) reaches every client within a moment: the server
// tells its watchers (NotifyChatsChanged), and they read the chats again.
// The files are watched through inotify; where that cannot be had (no
// inotify, the watch limit reached), the folder is polled instead.
//
// A change is told only when what the file holds changed (sessions.FileSum):
// a write of the same bytes, as a respawn's rewrite of the chat may be, is
// not, so the server's own writes neither loop nor make clients redraw for
// nothing.

// Watch timings.
const (
	// chatsSettle is how long after a first event the events that follow
	// are gathered into one notice: an editor's truncate and write, or a
	// copy of many files, is one.
	chatsSettle = 100 * time.Millisecond
	// chatsPollEvery is how often the folder is looked at when inotify
	// cannot be had.
	chatsPollEvery = time.Second
)

// chatWatch is what the watcher knows of the chats folder.
type chatWatch struct {
	s     *Server
	dir   string
	store *sessions.Store
	// sums is what each chat file held when last seen, by id; folders
	// the folders and files it listed then, when it parsed.
	sums    map[string]sessions.FileSum
	folders map[string]sharedLists
	// stats is each file's identity when last polled (poll mode only).
	stats map[string]fileStat
}

// fileStat is what polling compares of a file without reading it.
type fileStat struct {
	size, mtime, ctime int64
	ino                uint64
}

// watchChats sets the watch of the chats folder and reads what each file
// holds, and returns the function that serves the watch until stop closes.
// The server says it is ready only after this: a client that reads the
// files once it is connected (the TUI that drew its first frame before the
// server it started) is then told of every change made after that read;
// one made between the watch and the reading was folded into what was
// read, untold.
func (s *Server) watchChats() (serve func(stop <-chan struct{})) {
	w := &chatWatch{s: s, dir: filepath.Join(s.home, "chats"), store: s.opt.Store, sums: map[string]sessions.FileSum{}, folders: map[string]sharedLists{}}
	read := func() {
		w.stats = w.statAll()
		w.check(w.names())
	}
	if s.pollChats {
		read()
		return w.poll
	}
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fw.Add(w.dir); err != nil {
			fw.Close()
		}
	}
	if err != nil {
		s.opt.Logger.Warn("chat files watched by polling: inotify cannot be had", "dir", w.dir, "err", err, "every", chatsPollEvery)
		read()
		return w.poll
	}
	// Read after the watch is set, so no change falls between.
	w.check(w.names())
	return func(stop <-chan struct{}) {
		done := w.inotify(fw, stop)
		fw.Close()
		if done {
			return
		}
		s.opt.Logger.Warn("chat files watched by polling: inotify cannot be had", "dir", w.dir, "err", "the watch ended", "every", chatsPollEvery)
		read()
		w.poll(stop)
	}
}

// inotify serves the watch until stop closes (true), or the watch ends
// (false: the folder was moved or removed, say): then polling takes over.
func (w *chatWatch) inotify(fw *fsnotify.Watcher, stop <-chan struct{}) bool {
	pending := map[string]struct{}{}
	var settle <-chan time.Time
	for {
		select {
		case <-stop:
			return true
		case ev, ok := <-fw.Events:
			if !ok {
				return false
			}
			if ev.Name == w.dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				return false
			}
			id, ok := chatOfFile(ev.Name)
			if !ok {
				continue
			}
			pending[id] = struct{}{}
			if settle == nil {
				settle = time.After(chatsSettle)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return false
			}
			// The kernel's queue overflowed: look at every file.
			w.s.opt.Logger.Warn("chat files watch", "err", err)
			for _, id := range w.names() {
				pending[id] = struct{}{}
			}
			for id := range w.sums {
				pending[id] = struct{}{}
			}
			if settle == nil {
				settle = time.After(chatsSettle)
			}
		case <-settle:
			settle = nil
			ids := make([]string, 0, len(pending))
			for id := range pending {
				ids = append(ids, id)
			}
			clear(pending)
			w.tell(w.check(ids))
		}
	}
}

// poll looks at the folder every chatsPollEvery until stop closes: a file
// whose size, times or inode changed, a new one and a removed one are read
// again.
func (w *chatWatch) poll(stop <-chan struct{}) {
	tick := time.NewTicker(chatsPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			now := w.statAll()
			var ids []string
			for id, st := range now {
				if old, ok := w.stats[id]; !ok || old != st {
					ids = append(ids, id)
				}
			}
			for id := range w.sums {
				if _, ok := now[id]; !ok {
					ids = append(ids, id)
				}
			}
			w.stats = now
			w.tell(w.check(ids))
		}
	}
}

// statAll returns the identity of every chat file in the folder.
func (w *chatWatch) statAll() map[string]fileStat {
	out := map[string]fileStat{}
	for _, id := range w.names() {
		fi, err := os.Lstat(filepath.Join(w.dir, id+".toml"))
		if err != nil {
			continue
		}
		st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			st.ino, st.ctime = sys.Ino, ctimeNano(sys)
		}
		out[id] = st
	}
	return out
}

// names returns the chats whose files are in the folder now.
func (w *chatWatch) names() []string {
	des, err := os.ReadDir(w.dir)
	if err != nil {
		return nil
	}
	var ids []string
	for _, de := range des {
		if id, ok := chatOfFile(de.Name()); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// chatOfFile returns the chat a file in the chats folder is, as List
// names it: <id>.toml, not hidden (a write's temporary file is).
func chatOfFile(path string) (string, bool) {
	name := filepath.Base(path)
	if strings.HasPrefix(name, ".") {
		return "", false
	}
	return strings.CutSuffix(name, ".toml")
}

// check reads the files of ids again and returns, sorted, those whose
// contents changed since last seen, created or removed.
func (w *chatWatch) check(ids []string) []string {
	var changed []string
	for _, id := range ids {
		sum, meta, exists := w.store.ChatFileSumMeta(id)
		old, had := w.sums[id]
		switch {
		case !exists && had:
			delete(w.sums, id)
			delete(w.folders, id)
		case !exists, had && old == sum:
			continue
		default:
			w.sums[id] = sum
			w.foldersOf(id, meta, had)
		}
		changed = append(changed, id)
	}
	slices.Sort(changed)
	return slices.Compact(changed)
}

// sharedLists are the folders and single files a chat file lists.
type sharedLists struct{ dirs, files []string }

// foldersOf notes the folders and files chat id's file lists now. When they
// changed in a file seen before (a hand edit of additional_directories or
// additional_files), the mux is told, as add-dir and add-file tell it: a
// running chat takes them at the end of its turn, and shows them pending
// until then. The server's own rewrites (a start's folders_via) leave the
// lists alone, so they tell nothing. meta is the chat as the file holds it
// (nil when it does not load), read with its sum.
func (w *chatWatch) foldersOf(id string, meta *sessions.Meta, seen bool) {
	if meta == nil {
		delete(w.folders, id)
		return
	}
	before, known := w.folders[id]
	now := sharedLists{meta.AdditionalDirectories, meta.AdditionalFiles}
	w.folders[id] = now
	if !seen || !known || slices.Equal(before.dirs, now.dirs) && slices.Equal(before.files, now.files) {
		return
	}
	if err := w.s.opt.Mux.FoldersChanged(id); err != nil {
		w.s.opt.Logger.Warn("folders or files edited in the chat file", "chat", id, "err", err)
	}
}

// tell sends the changed chats to every watcher.
func (w *chatWatch) tell(ids []string) {
	if len(ids) == 0 {
		return
	}
	w.s.opt.Logger.Info("chat files changed", "chats", strings.Join(ids, " "))
	p := proto.ChatsChangedParams{IDs: ids}
	for _, v := range w.s.views.all() {
		v.mu.Lock()
		if v.watching && !v.closed {
			v.c.notify(proto.NotifyChatsChanged, p)
		}
		v.mu.Unlock()
	}
}
