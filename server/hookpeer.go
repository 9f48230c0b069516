package server

// A status report (MethodHook) is taken only from a process of the chat's
// own harness: the connecting process (SO_PEERCRED) must be the harness,
// in its session or process group (a pty harness leads a session of its
// own, an ACP agent a process group), or a descendant of it, and it must
// still be running when the report comes (peer.go): a process that
// connected, handed its socket to a child and exited does not lend its
// pid's rights to the process that takes the pid next. Anything else — a
// shell in another chat naming this one, any other program of the user's,
// a socket whose process has gone — is ignored and counted in the log.

// maxAncestry bounds the walk up a reporting process's parents.
const maxAncestry = 64

// processOfHarness reports whether process peer is the harness process
// harnessPid, in its session or process group, or descends from it.
func processOfHarness(peer, harnessPid int) bool {
	if peer <= 0 || harnessPid <= 1 {
		return false
	}
	pid := peer
	for range maxAncestry {
		if pid == harnessPid {
			return true
		}
		ppid, pgrp, sid, err := procStat(pid)
		if err != nil {
			return false
		}
		if pgrp == harnessPid || sid == harnessPid {
			return true
		}
		if ppid <= 1 {
			return false
		}
		pid = ppid
	}
	return false
}

// reportFromHarness reports whether a status report on c may speak for the
// chat id, whose harness is harnessPid, and logs why not when it may not.
// The process that connected is asked whether it still runs before and
// after the walk up its parents, which reads /proc by pid: what was read
// then was that process's, not a successor's.
func (s *Server) reportFromHarness(c *conn, id string, harnessPid int) bool {
	ignore := func(why string, err error) bool {
		s.opt.Logger.Warn("ignored a status report "+why, "chat", id, "peerPid", c.peerPid, "harnessPid", harnessPid, "err", err)
		return false
	}
	peer, err := peerOf(c, s.pidfds)
	defer peer.close()
	if err != nil {
		return ignore("from a connection whose process does not run", err)
	}
	if !s.hookPeer(c.peerPid, harnessPid) {
		return ignore("from outside the chat's harness", nil)
	}
	if err := peer.still(); err != nil {
		return ignore("from a connection whose process does not run", err)
	}
	return true
}
