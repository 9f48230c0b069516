package server

import (
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/fsnotify/fsnotify"
)

// This file watches the config file, so that an edit reaches every client
// within a moment, with no call to make it read: the server reads the file
// again (config.go) and tells its watchers what is in effect then
// (NotifyConfigChanged), or why the file was refused (NotifyConfigRefused).
// The file's folder is watched through inotify, with the folder a symbolic
// link's target is in; a folder that does not exist yet is waited for in
// the nearest one that does. Where inotify cannot be had, the file is
// looked at every configPollEvery instead.

// Config watch timings.
const (
	// configSettle gathers an editor's truncate and write, or its write
	// of a temporary file and rename, into one read: the file is read once
	// it has been quiet that long (an edit read halfway through might
	// parse, and a shorter config be taken for good), but no later than
	// configSettleMost after the first event, for a file written on and on.
	configSettle     = 100 * time.Millisecond
	configSettleMost = time.Second
	// configPollEvery is how often the file is looked at when inotify
	// cannot be had.
	configPollEvery = time.Second
)

// configWatch is what the watch knows of the config file.
type configWatch struct {
	s    *Server
	path string
	fw   *fsnotify.Watcher
	// watched are the folders watched now; names the paths whose events
	// count: the file, its link's target, and the folders on the way to
	// it that do not exist yet.
	watched map[string]bool
	names   map[string]bool
	// last is the file as last polled (poll mode only).
	last fileStat
}

// watchConfig sets the watch of the config file and returns the function
// that serves it until stop closes; with no config path it serves nothing.
func (s *Server) watchConfig() (serve func(stop <-chan struct{})) {
	path := s.opt.ConfigPath
	if path == "" || s.configUnwatched {
		return func(<-chan struct{}) {}
	}
	w := &configWatch{s: s, path: filepath.Clean(path), watched: map[string]bool{}, names: map[string]bool{}}
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		w.fw = fw
		if err = w.arm(); err != nil {
			fw.Close()
		}
	}
	if err != nil {
		s.opt.Logger.Warn("config file watched by polling: inotify cannot be had", "config", path, "err", err, "every", configPollEvery)
		w.last = statOf(w.path)
		return w.poll
	}
	return func(stop <-chan struct{}) {
		done := w.inotify(stop)
		fw.Close()
		if done {
			return
		}
		s.opt.Logger.Warn("config file watched by polling: inotify cannot be had", "config", path, "err", "the watch ended", "every", configPollEvery)
		w.last = statOf(w.path)
		w.poll(stop)
	}
}

// arm watches the folders the file's events happen in now: its own folder
// (or the nearest existing one on the way to it) and, for a symbolic link,
// its target's. It fails only when no folder can be watched.
func (w *configWatch) arm() error {
	want := map[string]bool{}
	names := map[string]bool{w.path: true}
	dir := filepath.Dir(w.path)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			want[dir] = true
			break
		}
		names[dir] = true // its creation counts
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	if target, err := filepath.EvalSymlinks(w.path); err == nil && target != w.path {
		names[target] = true
		want[filepath.Dir(target)] = true
	}
	var failed error
	for d := range want {
		if w.watched[d] {
			continue
		}
		if err := w.fw.Add(d); err != nil {
			failed = err
			delete(want, d)
		}
	}
	for d := range w.watched {
		if !want[d] {
			_ = w.fw.Remove(d) // gone with its folder, perhaps
		}
	}
	w.watched, w.names = want, names
	if len(want) == 0 {
		return failed
	}
	return nil
}

// inotify serves the watch until stop closes (true), or it can no longer
// watch anything (false: polling takes over).
func (w *configWatch) inotify(stop <-chan struct{}) bool {
	settle := time.NewTimer(configSettle)
	settle.Stop()
	defer settle.Stop()
	var events settling
	heard := func() { settle.Reset(events.heard(time.Now())) }
	for {
		select {
		case <-stop:
			return true
		case ev, ok := <-w.fw.Events:
			if !ok {
				return false
			}
			if !w.names[filepath.Clean(ev.Name)] && !w.watched[filepath.Clean(ev.Name)] {
				continue
			}
			heard()
		case err, ok := <-w.fw.Errors:
			if !ok {
				return false
			}
			// The kernel's queue overflowed: read the file again.
			w.s.opt.Logger.Warn("config file watch", "err", err)
			heard()
		case <-settle.C:
			events.read()
			if err := w.arm(); err != nil {
				return false
			}
			w.s.configEdited()
		}
	}
}

// settling is when the file is read after its events: once it has been
// quiet for configSettle, and no later than configSettleMost after the
// first event since it was last read.
type settling struct{ first time.Time }

// heard notes an event at now and returns how long to wait before reading.
func (s *settling) heard(now time.Time) time.Duration {
	if s.first.IsZero() {
		s.first = now
	}
	return min(configSettle, s.first.Add(configSettleMost).Sub(now))
}

// read notes that the file is read: the next event starts a new wait.
func (s *settling) read() { s.first = time.Time{} }

// poll looks at the file every configPollEvery until stop closes, and
// reads it again when its size, times or inode changed.
func (w *configWatch) poll(stop <-chan struct{}) {
	tick := time.NewTicker(configPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			if now := statOf(w.path); now != w.last {
				w.last = now
				w.s.configEdited()
			}
		}
	}
}

// settleFor is how long to wait before reading a file that last changed
// at changed, at now, having waited already: none once it has been quiet
// for configSettle, nor when its time is ahead of now (a clock not to be
// trusted), nor past configSettleMost in all.
func settleFor(changed, now time.Time, waited time.Duration) time.Duration {
	quiet := now.Sub(changed)
	if changed.IsZero() || quiet < 0 || quiet >= configSettle || waited >= configSettleMost {
		return 0
	}
	return min(configSettle-quiet, configSettleMost-waited)
}

// changedAt is when the file at path (followed through a link) last
// changed, its contents or its inode (a truncation); the zero time when
// it is not there.
func changedAt(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	t := fi.ModTime()
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		if c := time.Unix(0, ctimeNano(sys)); c.After(t) {
			t = c
		}
	}
	return t
}

// statOf is what polling compares of a file (followed through a link)
// without reading it; the zero value for a file that is not there.
func statOf(path string) fileStat {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStat{}
	}
	st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino, st.ctime = sys.Ino, ctimeNano(sys)
	}
	return st
}

// configEdited reads the config file the watch saw change: a good one is
// put in effect and told to every watcher (readConfig), a refusal not
// heard before is told to them too.
func (s *Server) configEdited() {
	if fresh, err := s.readConfig(); err != nil && fresh {
		s.tellWatchers(proto.NotifyConfigRefused, proto.ConfigRefusedParams{Message: refusalText(err)})
	}
}
