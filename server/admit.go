package server

import (
	"net"
	"time"
)

// This file decides who gets a connection. Three rules keep one process
// from shutting every other client out (issue 21):
//   - a connection must send its first call within FirstCallWait of being
//     let in, or it is closed: holding a socket open costs a call;
//   - one process (the peer pid, SO_PEERCRED) holds at most MaxPerPeer
//     connections, far above the handful a TUI needs;
//   - when MaxClients are connected, a newcomer still gets in: the longest
//     idle connection of the process that holds the most is closed for it,
//     as long as that process holds more than the newcomer's would. So
//     room is always kept for a process with few connections, which is
//     what `ls`, `prompt` and a harness's hook are.

// Defaults of the admission rules.
const (
	DefaultFirstCallWait = 5 * time.Second
	DefaultMaxPerPeer    = 256
)

// admit checks a new connection's peer and starts serving it.
func (s *Server) admit(nc *net.UnixConn) {
	uid, pid, err := peerCred(nc)
	if err != nil || uid != s.uid {
		s.opt.Logger.Warn("refused a connection", "peerUid", uid, "err", err)
		nc.Close()
		return
	}
	c := newConn(s, nc)
	c.peerPid = pid
	c.active.Store(time.Now().UnixNano())
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		return
	}
	if s.perPeer[pid] >= s.opt.MaxPerPeer {
		s.mu.Unlock()
		s.opt.Logger.Warn("refused a connection: its process holds too many", "peerPid", pid, "max", s.opt.MaxPerPeer)
		nc.Close()
		return
	}
	var evict *conn
	if s.liveLocked() >= s.opt.MaxClients {
		evict = s.evictableLocked(s.perPeer[pid] + 1)
		if evict == nil {
			s.mu.Unlock()
			s.opt.Logger.Warn("refused a connection: too many clients", "max", s.opt.MaxClients)
			nc.Close()
			return
		}
		evict.evicted = true
	}
	s.conns[c] = struct{}{}
	s.perPeer[pid]++
	s.accepted++
	s.connsWG.Add(1)
	s.mu.Unlock()
	if evict != nil {
		evict.drop("the server is full and its process holds the most connections")
	}
	c.firstCall = time.AfterFunc(s.opt.FirstCallWait, func() {
		if !c.called.Load() {
			c.drop("no call within " + s.opt.FirstCallWait.String() + " of connecting")
		}
	})
	s.poke()
	go c.serve()
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
// process would then hold newcomers connections: the longest idle one of
// the process that holds the most, if that is more than newcomers.
func (s *Server) evictableLocked(newcomers int) *conn {
	heaviest, most := 0, 0
	for pid, n := range s.perPeer {
		if n > most {
			heaviest, most = pid, n
		}
	}
	if most <= newcomers {
		return nil
	}
	var pick *conn
	for c := range s.conns {
		if c.peerPid != heaviest || c.evicted {
			continue
		}
		if pick == nil || c.active.Load() < pick.active.Load() {
			pick = c
		}
	}
	return pick
}
