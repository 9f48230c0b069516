package server

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file reads the config file again before each start, so that a
// harness added or changed while the server runs is the one the next start
// uses (a harness that runs keeps its process). A config that is refused
// leaves the last good one in effect; the refusal, naming the file, the
// line and the key, is logged and told to the client that asked for the
// start and to every watcher.

// liveConfig is the config in effect and the harness table built from it.
type liveConfig struct {
	cfg   *config.Config
	table *harness.Table
}

// configFile remembers what the config file held when it was last read.
type configFile struct {
	mu      sync.Mutex // serialises reloads; no call that draws waits on it
	read    bool
	missing bool
	data    []byte
	refused error // the refusal of the file as it was last read, or nil
}

// config returns the config in effect.
func (s *Server) config() *config.Config { return s.live.Load().cfg }

// table returns the harness table in effect.
func (s *Server) table() *harness.Table { return s.live.Load().table }

// reloadConfig reads the config file again (Options.ConfigPath) and, when
// it changed and is good, puts it in effect here and in the mux. It returns
// the refusal of the file as it is now, nil when it is in effect (or there
// is no path to read).
func (s *Server) reloadConfig() error {
	path := s.opt.ConfigPath
	if path == "" {
		return nil
	}
	f := &s.cfgFile
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		// Unreadable now (a permission, an editor's swap): the last good
		// config stays, and the next start tries again.
		s.opt.Logger.Warn("config refused; the last good one stays in effect", "config", path, "err", err)
		return err
	}
	if f.read && missing == f.missing && bytes.Equal(data, f.data) {
		return f.refused
	}
	f.read, f.missing, f.data = true, missing, data
	cfg, table, err := harness.Load(path)
	if err != nil {
		f.refused = err
		s.opt.Logger.Warn("config refused; the last good one stays in effect", "config", path, "err", err)
		return err
	}
	f.refused = nil
	s.live.Store(&liveConfig{cfg, table})
	s.opt.Mux.Reconfigure(cfg, table)
	s.opt.Logger.Info("config read again", "config", path, "harnesses", len(table.Names()))
	return nil
}

// startsHarness reports whether a method may start a harness, and so
// reads the config again first.
func startsHarness(method string) bool {
	switch method {
	case proto.MethodNew, proto.MethodCreateAndStart, proto.MethodStart, proto.MethodRestart, proto.MethodAttach,
		proto.MethodReady, proto.MethodPrompt, proto.MethodFill:
		return true
	}
	return false
}

// configBeforeStart reads the config again before a call that may start a
// harness; a refusal is told to the caller and every watcher.
func (s *Server) configBeforeStart(c *conn, method string) {
	if !startsHarness(method) {
		return
	}
	err := s.reloadConfig()
	if err == nil {
		return
	}
	p := proto.ConfigRefusedParams{Message: clipLong(err.Error()) + "; the last good config stays in effect"}
	told := false
	for _, v := range s.views.all() {
		v.mu.Lock()
		if v.watching && !v.closed {
			v.c.notify(proto.NotifyConfigRefused, p)
			told = told || v.c == c
		}
		v.mu.Unlock()
	}
	if !told && c != nil {
		c.notify(proto.NotifyConfigRefused, p)
	}
}

// clipLong bounds a message that quotes a file's text.
func clipLong(s string) string {
	if len(s) <= 2000 {
		return s
	}
	return strings.ToValidUTF8(s[:2000], "") + "…"
}
