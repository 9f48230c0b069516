package server

// This file is what a server does at its start with the records a server
// that died left behind (an orderly end removes them all): it ends what
// is left of those harnesses, then starts their chats again. A chat is
// started as any start does it, through the mux: with the folders stored
// for it now, each checked again by the shared validator, and its
// conversation resumed (a Claude Code chat's launch has --resume once its
// session exists; an ACP chat with a stored session gets session/load). A
// chat stopped on purpose, or whose harness exited by itself, has no
// record, and is left alone.

// endLeftovers ends what is left running of the harnesses a server that
// died recorded, and returns their records, to start the chats again once
// the server listens. It runs with the single-server lock held and before
// the socket exists, so no client sees a chat whose old harness still
// runs. A record from another boot is dropped without acting on it: its
// pids name nothing of it any more, and nothing of it is started again.
func (s *Server) endLeftovers() []runRecord {
	r, log := s.opt.Records, s.opt.Logger
	if r == nil {
		return nil
	}
	for _, name := range r.junk() {
		log.Warn("removing a file that is not a record of a running harness", "file", name)
		r.removeFile(name)
	}
	recs, err := r.load()
	if err != nil {
		log.Error("records of running harnesses", "err", err)
		return nil
	}
	var left []runRecord
	for _, rec := range recs {
		if r.boot == "" || rec.BootID != r.boot {
			log.Info("dropping the record of a harness from before a reboot", "chat", rec.Chat, "pid", rec.Pid)
			r.forget(rec.Chat)
			continue
		}
		left = append(left, rec)
	}
	endSurvivors(left, r.boot, survivorGrace, log)
	r.Flush()
	return left
}

// revive starts again the chats whose harnesses ran when the last server
// died. One that cannot start (its folder or a stored folder has gone, its
// harness is unknown, the chat was removed) is logged and left as the
// refused start leaves it, its reason in its state; its record goes, so
// the next server does not try again.
func (s *Server) revive(recs []runRecord) {
	log := s.opt.Logger
	for _, rec := range recs {
		id := rec.Chat
		if _, err := s.opt.Store.Load(id); err != nil {
			log.Warn("chat not started again after the server died", "chat", id, "err", err)
			s.opt.Records.forget(id)
			continue
		}
		s.track(id)
		if err := s.opt.Mux.Start(id, 0, 0); err != nil {
			log.Warn("chat not started again after the server died", "chat", id, "err", err)
			s.opt.Records.forget(id)
			continue
		}
		log.Info("chat started again after the server died", "chat", id, "diedServerPid", rec.ServerPid)
	}
}
