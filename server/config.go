package server

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file makes the server the one reader of the config file while it
// runs. It reads the file again before every call that may name a harness
// or a host (readsConfig; the ACP door's in conn.go), and as the file
// changes (configwatch.go), so that a harness added or changed is the one
// the next start uses (a harness that runs keeps its process). Each config
// put in effect is told to every watcher (NotifyConfigChanged) and answers
// MethodConfig: the TUI, `acp` and `prompt` take the harness table and the
// hosts from there, never from their own read. A config that is refused
// leaves the last good one in effect; the refusal, naming the file, the
// line and the key, is logged and told to the client that asked and to
// every watcher.

// liveConfig is the config in effect and the harness table built from it;
// gen counts the configs put in effect (proto.ConfigResult.Generation).
type liveConfig struct {
	cfg   *config.Config
	table *harness.Table
	gen   uint64
	// webRoots are the config's [web] roots as a web caller is held to
	// them, and webWarnings the roots dropped and why (webpolicy.go).
	webRoots, webWarnings []string
}

// newLive makes the config in effect of cfg and its table; the web roots
// it drops are logged.
func (s *Server) newLive(cfg *config.Config, table *harness.Table, gen uint64) *liveConfig {
	l := &liveConfig{cfg: cfg, table: table, gen: gen}
	l.webRoots, l.webWarnings = webRootsOf(cfg.Web, s.opt.Getenv("HOME"))
	for _, w := range l.webWarnings {
		s.opt.Logger.Warn(w)
	}
	return l
}

// configFile remembers what the config file held when it was last read.
type configFile struct {
	mu      sync.Mutex // serialises reloads; no call that draws waits on it
	read    bool
	missing bool
	data    []byte
	refused error // the refusal of the file as it was last read, or nil

	// now and sleep, when set (tests), stand for time.Now and time.Sleep
	// in the waits for a file being saved (awaitSettled, readLocked).
	now   func() time.Time
	sleep func(time.Duration)
}

// awaitSettled waits, when the config file changed less than configSettle
// ago, until it has been quiet that long (configSettleMost in all at
// most), as the watch does: a call made while an editor writes the file in
// place (truncated, then written) reads what it saved, not an empty or
// half-written file that might parse, with the defaults or fewer harnesses
// taken for good.
func (f *configFile) awaitSettled(path string) {
	var waited time.Duration
	for {
		d := settleFor(changedAt(path), f.clock(), waited)
		if d <= 0 {
			return
		}
		f.pause(d)
		waited += d
	}
}

// readLocked reads the file at path. A file that is not there, but was
// when last read, is looked for again once, configSettle later: an editor
// that deletes the file before it puts the new one in its place is not
// taken for a config removed (the defaults put in effect).
func (f *configFile) readLocked(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && f.read && !f.missing {
		f.pause(configSettle)
		data, err = os.ReadFile(path)
	}
	return data, err
}

func (f *configFile) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}

func (f *configFile) pause(d time.Duration) {
	if f.sleep != nil {
		f.sleep(d)
		return
	}
	time.Sleep(d)
}

// config returns the config in effect.
func (s *Server) config() *config.Config { return s.live.Load().cfg }

// table returns the harness table in effect.
func (s *Server) table() *harness.Table { return s.live.Load().table }

// reloadConfig reads the config file again (Options.ConfigPath) and, when
// it changed and is good, puts it in effect here and in the mux and tells
// every watcher. It returns the refusal of the file as it is now, nil when
// it is in effect (or there is no path to read).
func (s *Server) reloadConfig() error {
	_, err := s.readConfig()
	return err
}

// readConfig is reloadConfig; fresh reports whether the file held
// something new to this read (a config now in effect, or a refusal not
// heard before).
func (s *Server) readConfig() (fresh bool, refused error) {
	path := s.opt.ConfigPath
	if path == "" {
		return false, nil
	}
	f := &s.cfgFile
	f.awaitSettled(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.readLocked(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		// Unreadable now (a permission, an editor's swap): the last good
		// config stays, and the next call or change tries again.
		s.opt.Logger.Warn("config refused; the last good one stays in effect", "config", path, "err", err)
		return false, err
	}
	if f.read && missing == f.missing && bytes.Equal(data, f.data) {
		return false, f.refused
	}
	f.read, f.missing, f.data = true, missing, data
	cfg, table, err := harness.FromFile(path, data, missing)
	if err != nil {
		f.refused = err
		s.opt.Logger.Warn("config refused; the last good one stays in effect", "config", path, "err", err)
		return true, err
	}
	f.refused = nil
	live := s.newLive(cfg, table, s.live.Load().gen+1)
	s.live.Store(live)
	s.opt.Mux.Reconfigure(cfg, table)
	s.webConfigChanged(cfg.Web)
	s.opt.Logger.Info("config read again", "config", path, "harnesses", len(table.Names()), "hosts", len(cfg.Host))
	// Told under f.mu: the notices go out in the order of the configs.
	s.tellWatchers(proto.NotifyConfigChanged, s.configOf(live, nil))
	return true, nil
}

// readsConfig reports whether a method may name a harness or a host (start
// one, make a chat of one, derive or move a chat, observe its agent), and
// so has the config read again first.
func readsConfig(method string) bool {
	switch method {
	case proto.MethodNew, proto.MethodCreateAndStart, proto.MethodStart, proto.MethodRestart, proto.MethodAttach,
		proto.MethodReady, proto.MethodPrompt, proto.MethodObserve, proto.MethodFill,
		proto.MethodDerive, proto.MethodCapsule, proto.MethodExport, proto.MethodImport, proto.MethodConfig:
		return true
	}
	return false
}

// configBeforeStart reads the config again before a call that may name a
// harness or a host (readsConfig); a refusal is told to the caller and
// every watcher.
func (s *Server) configBeforeStart(c *conn, method string) {
	if readsConfig(method) {
		s.configBeforeCall(c)
	}
}

// configBeforeCall reads the config again; a refusal is told to every
// watcher and to c (nil for none: an ACP connection, which speaks no
// _acpmux/* notices).
func (s *Server) configBeforeCall(c *conn) {
	err := s.reloadConfig()
	if err == nil {
		return
	}
	p := proto.ConfigRefusedParams{Message: refusalText(err)}
	if told := s.tellWatchers(proto.NotifyConfigRefused, p); !told[c] && c != nil {
		c.notify(proto.NotifyConfigRefused, p)
	}
}

// tellWatchers sends a notification to every connection that watches the
// chats (the TUIs) and returns them.
func (s *Server) tellWatchers(method string, params any) map[*conn]bool {
	told := map[*conn]bool{}
	for _, v := range s.views.all() {
		v.mu.Lock()
		if v.watching && !v.closed {
			v.c.notify(method, params)
			told[v.c] = true
		}
		v.mu.Unlock()
	}
	return told
}

// refusalText is a refusal of the config as clients are told it.
func refusalText(err error) string {
	return clipLong(err.Error()) + "; the last good config stays in effect"
}

// configNow answers MethodConfig: the config in effect (read again just
// before, readsConfig), with the file's refusal if it was refused.
func (s *Server) configNow(struct{}) (proto.ConfigResult, *Error) {
	s.cfgFile.mu.Lock()
	refused := s.cfgFile.refused
	s.cfgFile.mu.Unlock()
	return s.configOf(s.live.Load(), refused), nil
}

// configOf is a config in effect as clients take it: each harness with
// whether the server finds its command, the defaults, and the hosts.
func (s *Server) configOf(l *liveConfig, refused error) proto.ConfigResult {
	getenv := s.opt.Getenv
	res := proto.ConfigResult{
		Generation:        l.gen,
		DefaultHarness:    l.table.Default(l.cfg, getenv),
		DefaultACPHarness: l.table.DefaultACP(l.cfg, getenv),
		Worktree:          l.cfg.Worktree.Default,
		Harnesses:         []proto.HarnessInfo{},
		Hosts:             []proto.HostConfig{},
	}
	for _, h := range l.table.All() {
		res.Harnesses = append(res.Harnesses, proto.HarnessInfo{Name: h.Name, Transport: h.Transport, Kind: h.Kind,
			Command: h.Command, FolderFlag: h.FolderFlag, AdvertisesFolders: h.AdvertisesFolders, Installed: h.Found(getenv), Sandbox: h.Sandboxed(l.cfg)})
	}
	for _, name := range l.cfg.HostNames() {
		h := l.cfg.Host[name]
		res.Hosts = append(res.Hosts, proto.HostConfig{Name: name, SSH: h.SSH, SSHOptions: h.SSHOptions,
			Home: h.Home, Command: h.Command, Budget: h.Budget})
	}
	if refused != nil {
		res.Refused = refusalText(refused)
	}
	return res
}

// clipLong bounds a message that quotes a file's text.
func clipLong(s string) string {
	if len(s) <= 2000 {
		return s
	}
	return strings.ToValidUTF8(s[:2000], "") + "…"
}
