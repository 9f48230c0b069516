// Package server is the process that owns the mux: it listens on the agent
// home's unix socket, guards every connection (peer credentials, line and
// buffer limits, the shared folder validator on every folder that arrives)
// and answers JSON-RPC 2.0 calls, one object per line. Chats keep running
// while no client is connected; the server ends by itself once no harness
// runs and no client is connected.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/mention"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Options configure a server.
type Options struct {
	// Store is the agent home's chat store; the socket and the lock live in
	// its Home.
	Store *sessions.Store
	Table *harness.Table
	// Config is the config in effect (for the default harness).
	Config *config.Config
	// ConfigPath, when set, is the config file Config was read from: it is
	// watched, and read again before each call that may name a harness or
	// a host (config.go); a good one replaces Config and Table here and in
	// the mux, and is told to every watcher.
	ConfigPath string
	// Mux runs the harnesses; the server owns it and closes it on its way
	// out, which stops every harness.
	Mux    *mux.Mux
	Logger *slog.Logger
	// Getenv reads the environment (the default harness); os.Getenv when nil.
	Getenv func(string) string
	// Version is what hello answers.
	Version string
	// IdleGrace is how long the server waits, with no harness running and
	// no client connected, before it ends (default 5 s).
	IdleGrace time.Duration
	// WriteTimeout bounds each write to a client; a client that takes
	// longer to read is dropped (default 10 s).
	WriteTimeout time.Duration
	// ForwardTimeout bounds the wait for a door client's answer to an
	// agent's fs/* or terminal/* request forwarded to it (terminal/
	// wait_for_exit waits as long as it takes); past it the server serves
	// the request itself (default DefaultForwardTimeout).
	ForwardTimeout time.Duration
	// QueueLen is how many answers may wait to be written to one client; a
	// client that lets more pile up is dropped (default 64).
	QueueLen int
	// MaxClients bounds the connections served at once (default 512);
	// past it a newcomer takes the place of a quiet connection, one that
	// neither watches, nor is attached, nor has a call or stream under way,
	// or else of the longest idle connection of a process that holds more
	// than the newcomer's would (admit.go).
	MaxClients int
	// MaxPerPeer bounds the connections one process holds at once
	// (default DefaultMaxPerPeer); FirstCallWait is how long a new
	// connection may wait before its first call (default
	// DefaultFirstCallWait).
	MaxPerPeer    int
	FirstCallWait time.Duration
	// Ready, when set, is called once the socket answers.
	Ready func()
	// Connected, when set, is told of each client let in: what it asks
	// maps much of the server's code without necessarily allocating
	// enough for a collection (package memtrim is woken by it).
	Connected func()
	// Records, when set, is where the mux's Started and Ended hooks record
	// the harnesses that run (see NewRecords). Run then first ends what a
	// server that died left running and starts its chats again, and an
	// orderly end removes every record; Run closes it on its way out.
	Records *Records
	// Needs, when set, is where the mux's NeedsUser reports chats that
	// need their user (see NewNeeds): the server announces them
	// (notice.go), at most once per chat per NoticeInterval (default
	// NoticeInterval; tests shorten it).
	Needs          *Needs
	NoticeInterval time.Duration
}

// Server serves one agent home's socket.
type Server struct {
	opt  Options
	home string
	// uid is the only peer uid let in.
	uid int
	pid int

	ln *net.UnixListener
	// systemdSocket is set when ln is the socket systemd handed over,
	// whose file is systemd's (listenfd.go).
	systemdSocket bool
	// hookLn is the hook-only socket (proto.HookSocketName).
	hookLn *net.UnixListener
	// usageReads holds the chats whose session log is being read for its
	// usage (logusage.go): one read a chat at a time, however many turn
	// ends its harness reports.
	usageReads sync.Map
	// mentions keeps the chats' file listings of _acpmux/files a short
	// while (mentionfiles.go).
	mentions mention.Listings
	// wake tells the monitor that a client came or went, or a chat was
	// started or stopped: time to see whether the server is idle.
	wake chan struct{}
	// kill is closed by the kill method.
	kill     chan struct{}
	killOnce sync.Once

	// mu guards the fields below; it never covers I/O.
	mu       sync.Mutex
	conns    map[*conn]struct{}
	perPeer  map[int]int         // connections held, by peer pid
	tracked  map[string]struct{} // chats this server has started
	closing  bool
	connsWG  sync.WaitGroup
	accepted int // connections let in, for tests

	// hookPeer decides whether a status report's process belongs to the
	// chat's harness: processOfHarness, but in tests of what the reports
	// do, sent from the test itself.
	hookPeer func(peer, harnessPid int) bool
	// pidfds is set when the kernel gives a connection's process as a
	// pidfd (SO_PEERPIDFD); else its start time stands for it (peer.go).
	pidfds bool

	// checked, when set (tests), hears each idle check the monitor makes
	// on a change: whether the server was found idle.
	checked func(idle bool)

	// poked, when set (tests), hears each request that the monitor look
	// again, before requests coalesce.
	poked func()

	// web is the web listener, when one is open (web.go).
	web webDoor

	// views serves drawing clients; its fan-out is the only reader of the
	// mux's change notices.
	views *viewHub

	// revivals is the chats a server that died ran, waiting to start
	// again a few at a time (revive.go).
	revivals *reviveQueue

	// prompts runs ACP turns and streams them to observers (prompt.go).
	prompts promptHub

	// chats is the chat service: every chat made, derived, removed or
	// given folders goes through it (chats.go).
	chats *chatsvc.Service

	// live is the config and harness table in effect; cfgFile is what the
	// config file held when last read (config.go).
	live    atomic.Pointer[liveConfig]
	cfgFile configFile

	// pollChats, when set (tests), has the chats folder polled as when
	// inotify cannot be had (chatwatch.go).
	pollChats bool
	// configUnwatched, when set (tests), leaves the config file unwatched:
	// only the calls that may name a harness or a host read it again
	// (configwatch.go).
	configUnwatched bool
}

// Run serves the agent home until ctx ends (SIGTERM, SIGINT), a client calls
// kill, or the server has been idle for IdleGrace. It tightens the agent
// home to 0700, takes the single-server lock (an *AlreadyRunningError when
// another server holds it), listens on <home>/acpmux.sock (0600), and on
// its way out stops every harness (Mux.Close), removes the socket and
// releases the lock. It returns nil for every orderly end.
func Run(ctx context.Context, opt Options) error {
	s := newServer(opt)
	return s.run(ctx)
}

func newServer(opt Options) *Server {
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Config == nil {
		opt.Config = config.Defaults()
	}
	if opt.IdleGrace == 0 {
		opt.IdleGrace = 5 * time.Second
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = 10 * time.Second
	}
	if opt.QueueLen == 0 {
		opt.QueueLen = 64
	}
	if opt.ForwardTimeout == 0 {
		opt.ForwardTimeout = DefaultForwardTimeout
	}
	if opt.MaxClients == 0 {
		opt.MaxClients = 512
	}
	if opt.MaxPerPeer == 0 {
		opt.MaxPerPeer = DefaultMaxPerPeer
	}
	if opt.FirstCallWait == 0 {
		opt.FirstCallWait = DefaultFirstCallWait
	}
	if opt.NoticeInterval == 0 {
		opt.NoticeInterval = NoticeInterval
	}
	s := &Server{
		opt: opt, home: opt.Store.Home(), uid: os.Getuid(), pid: os.Getpid(),
		wake: make(chan struct{}, 1), kill: make(chan struct{}),
		conns: map[*conn]struct{}{}, perPeer: map[int]int{}, tracked: map[string]struct{}{},
		hookPeer: processOfHarness, pidfds: peerPidfds(), revivals: newReviveQueue(),
	}
	s.views = newViewHub(s)
	s.live.Store(s.newLive(opt.Config, opt.Table, 0))
	s.chats = newChatService(s)
	return s
}

func (s *Server) run(ctx context.Context) error {
	defer s.opt.Records.Close()
	if err := TightenHome(s.home); err != nil {
		s.opt.Mux.Close()
		return err
	}
	lock, err := TakeLock(s.home)
	if err != nil {
		s.opt.Mux.Close()
		return err
	}
	defer lock.Release()
	left := s.endLeftovers()
	ln, err := s.listenSocket()
	if err != nil {
		s.opt.Mux.Close()
		return err
	}
	s.ln = ln
	if s.hookLn, err = listen(s.home, proto.HookSocketName); err != nil {
		ln.Close()
		s.removeSocket()
		s.opt.Mux.Close()
		return err
	}
	// The fan-out hears the revived chats start, so watchers know them.
	stopFan, fanned := make(chan struct{}), make(chan struct{})
	announced, watched := make(chan struct{}), make(chan struct{})
	go func() { defer close(fanned); s.views.fanOut(stopFan) }()
	go func() { defer close(announced); s.announce(stopFan) }()
	serveWatch := s.watchChats()
	go func() { defer close(watched); serveWatch(stopFan) }()
	// The config file is watched before it is read, so no edit falls
	// between. What it holds now is the base later reads compare to, so
	// the first start does not take the same config for a new one.
	configWatched := make(chan struct{})
	serveConfig := s.watchConfig()
	go func() { defer close(configWatched); serveConfig(stopFan) }()
	defer func() { close(stopFan); <-fanned; <-announced; <-watched; <-configWatched }()
	_ = s.reloadConfig()
	reviveCtx, stopRevive := context.WithCancel(context.Background())
	revived := s.revive(reviveCtx, left)
	defer func() { stopRevive(); <-revived }()
	log := s.opt.Logger
	log.Info("server listening", "socket", proto.SocketPath(s.home), "pid", s.pid)
	if s.opt.Ready != nil {
		s.opt.Ready()
	}
	accepted, hooksAccepted := make(chan struct{}), make(chan struct{})
	go func() { defer close(accepted); s.acceptLoop(s.ln, false) }()
	go func() { defer close(hooksAccepted); s.acceptLoop(s.hookLn, true) }()
	s.openConfiguredWeb()

	why := s.monitor(ctx)
	log.Info("server stopping", "why", why)
	stopRevive() // no chat starts again once the server stops
	<-revived
	s.shutdown()
	<-accepted
	<-hooksAccepted
	log.Info("server stopped")
	return nil
}

// shutdown ends the server in an order that loses no answer and leaves no
// process: no new connection, the socket gone (a client that looks now
// finds no server), every harness stopped, then every client's pending
// answers written (within the write timeout) and its connection closed,
// the web's too, and last the web listener.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.ln.Close()
	s.hookLn.Close()
	s.removeSocket()
	os.Remove(proto.HookSocketPath(s.home))
	s.opt.Mux.Close()
	s.opt.Records.RemoveAll() // nothing runs now, and nothing is to start again
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.finish()
	}
	s.connsWG.Wait()
	// The web's connections were among those finished; a WebSocket let
	// in since is refused (closing), and the listener closes last.
	s.closeWeb()
}

// acceptLoop lets clients in on ln until it closes; on the hook-only
// socket each may only report a hook (conn.hookOnly). A connection from
// another user is closed before anything is read from it.
func (s *Server) acceptLoop(ln *net.UnixListener, hookOnly bool) {
	backoff := 5 * time.Millisecond
	for {
		nc, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors, most likely: wait for some to be freed
			// rather than spin.
			s.opt.Logger.Warn("accept", "err", err)
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		s.admit(nc, hookOnly)
		if s.opt.Connected != nil {
			s.opt.Connected()
		}
	}
}

// connDone forgets a connection once it is closed and its goroutines end.
func (s *Server) connDone(c *conn) {
	s.opt.Mux.Look(c, "")
	s.mu.Lock()
	delete(s.conns, c)
	if s.perPeer[c.peerPid]--; s.perPeer[c.peerPid] <= 0 {
		delete(s.perPeer, c.peerPid)
	}
	s.mu.Unlock()
	if c.firstCall != nil {
		c.firstCall.Stop()
	}
	s.connsWG.Done()
	s.poke()
}

// poke asks the monitor to look again whether the server is idle.
func (s *Server) poke() {
	if s.poked != nil {
		s.poked()
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// track notes a chat this server starts, so that the idle check asks after
// it.
func (s *Server) track(id string) {
	s.mu.Lock()
	s.tracked[id] = struct{}{}
	s.mu.Unlock()
}

// requestKill ends the server (the kill method).
func (s *Server) requestKill() { s.killOnce.Do(func() { close(s.kill) }) }

// monitor waits for the server's end and returns why it ends. It hears of
// clients that come and go and, from the view fan-out, of chats that
// changed (a harness that starts, exits or is stopped); whenever no client
// is connected and no harness runs, it arms the idle timer, and it ends the
// server when the timer fires with nothing changed. It never polls.
func (s *Server) monitor(ctx context.Context) string {
	idle := time.NewTimer(s.opt.IdleGrace) // a server no one uses ends too
	defer idle.Stop()
	armed := true
	arm := func(on bool) {
		if s.checked != nil {
			s.checked(on)
		}
		switch {
		case on && !armed:
			idle.Reset(s.opt.IdleGrace)
		case !on && armed:
			idle.Stop()
		}
		armed = on
	}
	for {
		select {
		case <-ctx.Done():
			return "signal"
		case <-s.kill:
			return "kill"
		case <-s.wake:
			arm(s.idle())
		case <-idle.C:
			armed = false
			if s.closeIfIdle() {
				return "idle"
			}
			arm(s.idle())
		}
	}
}

// idle reports whether no client is connected, no harness runs and no
// web listener waits for a page.
func (s *Server) idle() bool {
	s.mu.Lock()
	clients := len(s.conns)
	s.mu.Unlock()
	return clients == 0 && !s.harnessRuns() && !s.webOpen()
}

// harnessRuns reports whether a chat this server started has a harness
// process now. The states are in-memory reads; the server's lock is not
// held across them.
func (s *Server) harnessRuns() bool {
	if s.revivals.busy() {
		return true // chats wait to start again
	}
	s.mu.Lock()
	ids := make([]string, 0, len(s.tracked))
	for id := range s.tracked {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		if s.opt.Mux.State(id).Status.Live() {
			return true
		}
	}
	return false
}

// closeIfIdle marks the server closing when no client is connected, so the
// door refuses newcomers, and then, as no call can start a harness any
// more, checks that none runs; it reopens the door otherwise.
func (s *Server) closeIfIdle() bool {
	s.mu.Lock()
	if len(s.conns) > 0 || s.webOpen() {
		s.mu.Unlock()
		return false
	}
	s.closing = true
	s.mu.Unlock()
	if !s.harnessRuns() {
		return true
	}
	s.mu.Lock()
	s.closing = false
	s.mu.Unlock()
	return false
}

// stats is what tests read of the server.
// stats counts connections: clients is every one the server still holds,
// live those of them not being closed for a newcomer (admit.go), the ones
// it serves; a connection closed for a newcomer is held until its reader
// has ended.
type stats struct {
	clients, live, accepted int
}

func (s *Server) stats() stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return stats{clients: len(s.conns), live: s.liveLocked(), accepted: s.accepted}
}

// String names the server in logs.
func (s *Server) String() string { return fmt.Sprintf("server %d for %s", s.pid, s.home) }
