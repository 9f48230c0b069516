package server

import (
	"net"
	"time"
)

// This file decides who gets a connection. Its rules keep any number of
// connections, from one process or from many, from shutting out the
// clients that need one (issues 21 and 39):
//   - a connection must send its first call within FirstCallWait of being
//     let in, or it is closed: holding a socket open costs a call;
//   - one process (the peer pid, SO_PEERCRED) holds at most MaxPerPeer
//     connections, far above the handful a TUI needs;
//   - when MaxClients are connected, a newcomer still gets in, in the place
//     of a quiet connection (conn.quiet): one that neither watches the
//     chats, nor is attached, nor has a call or a stream under way. Of the
//     quiet ones, one of the process that holds the most connections is
//     closed, the one quiet the longest. A script that made its call and
//     keeps the socket open may lose it; a TUI that watches, an attach, an
//     ACP client with a session, a prompt waiting on its turn never lose
//     theirs to a crowd of quiet connections, however many processes hold
//     them, and `ls`, a hook, `attach` or a new TUI always get in;
//   - when no connection is quiet, the longest idle connection of the
//     process that holds the most is closed for the newcomer, as long as
//     that process holds more than the newcomer's would: room is kept for
//     a process with few connections, whatever one process does with many.
//     Only when every connection is busy and no process holds more than
//     that is a newcomer refused (its client says the server is busy).
// No connection is closed for being quiet while there is room: it costs a
// descriptor, and a client that keeps its connection between calls keeps
// it until a newcomer needs the place.

// Defaults of the admission rules.
const (
	DefaultFirstCallWait = 5 * time.Second
	DefaultMaxPerPeer    = 256
)

// admit checks a new connection's peer and starts serving it.
func (s *Server) admit(nc *net.UnixConn, hookOnly bool) {
	uid, pid, err := peerCred(nc)
	if err != nil || uid != s.uid {
		s.opt.Logger.Warn("refused a connection", "peerUid", uid, "err", err)
		nc.Close()
		return
	}
	c := newConn(s, newAdoptable(nc))
	c.hookOnly = hookOnly
	c.peerStart = s.peerStartOf(pid)
	if s.enter(c, pid) {
		go c.serve()
	}
}

// enter lets connection c of process pid in under the rules above, or
// closes it and reports false.
func (s *Server) enter(c *conn, pid int) bool {
	c.peerPid = pid
	c.active.Store(time.Now().UnixNano())
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		c.nc.Close()
		return false
	}
	if s.perPeer[pid] >= s.opt.MaxPerPeer {
		s.mu.Unlock()
		s.opt.Logger.Warn("refused a connection: its process holds too many", "peerPid", pid, "max", s.opt.MaxPerPeer)
		c.nc.Close()
		return false
	}
	var evict *conn
	if s.liveLocked() >= s.opt.MaxClients {
		evict = s.evictableLocked(s.perPeer[pid] + 1)
		if evict == nil {
			s.mu.Unlock()
			s.opt.Logger.Warn("refused a connection: too many clients", "max", s.opt.MaxClients)
			c.nc.Close()
			return false
		}
		evict.evicted = true
	}
	s.conns[c] = struct{}{}
	s.perPeer[pid]++
	s.accepted++
	s.connsWG.Add(1)
	s.mu.Unlock()
	if evict != nil {
		evict.drop(evict.evictedWhy)
	}
	c.firstCall = time.AfterFunc(s.opt.FirstCallWait, func() {
		if !c.called.Load() {
			c.drop("no call within " + s.opt.FirstCallWait.String() + " of connecting")
		}
	})
	s.poke()
	return true
}

// liveLocked counts the connections not being closed for a newcomer.
func (s *Server) liveLocked() int {
	n := 0
	for c := range s.conns {
		if !c.evicted {
			n++
		}
	}
	return n
}

// evictableLocked picks the connection to close for a newcomer whose
// process would then hold newcomers connections: a quiet one, of the
// process that holds the most, the longest quiet; or, when none is quiet,
// the longest idle one of the process that holds the most, if that is more
// than newcomers. It sets the pick's evictedWhy.
func (s *Server) evictableLocked(newcomers int) *conn {
	var pick *conn
	for c := range s.conns {
		if c.evicted || !c.quiet() {
			continue
		}
		if pick == nil || s.heavierLocked(c, pick) {
			pick = c
		}
	}
	if pick != nil {
		pick.evictedWhy = "the server is full and the connection is quiet: a newcomer takes its place"
		return pick
	}
	heaviest, most := 0, 0
	for pid, n := range s.perPeer {
		if n > most {
			heaviest, most = pid, n
		}
	}
	if most <= newcomers {
		return nil
	}
	for c := range s.conns {
		if c.peerPid != heaviest || c.evicted {
			continue
		}
		if pick == nil || c.active.Load() < pick.active.Load() {
			pick = c
		}
	}
	if pick != nil {
		pick.evictedWhy = "the server is full and its process holds the most connections"
	}
	return pick
}

// heavierLocked reports whether a goes before b for a newcomer: its process
// holds more connections, or as many and a has been idle longer.
func (s *Server) heavierLocked(a, b *conn) bool {
	na, nb := s.perPeer[a.peerPid], s.perPeer[b.peerPid]
	if na != nb {
		return na > nb
	}
	return a.active.Load() < b.active.Load()
}
