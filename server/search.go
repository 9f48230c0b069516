package server

import (
	"github.com/acpmux/acpmux-tui/internal/search"
	"github.com/acpmux/acpmux-tui/proto"
)

// search answers MethodSearch: every chat of the store searched where its
// text lives, its file, the harness's session log on disk, and what the
// mux holds (an ACP chat's transcript, a pty chat's screen and
// scrollback). The mux's text is copied chat by chat under the chat's own
// lock, as a capsule's is; no lock of the server's is held.
func (s *Server) search(p proto.SearchParams) (proto.SearchResult, *Error) {
	q, err := search.Parse(p.Words)
	if err != nil {
		return proto.SearchResult{}, errorf(proto.CodeInvalidParams, "Invalid params: %v", err)
	}
	if p.MaxPerChat < 0 || p.MaxPerChat > proto.MaxSearchPerChat || p.MaxHits < 0 || p.MaxHits > proto.MaxSearchHits {
		return proto.SearchResult{}, errorf(proto.CodeInvalidParams, "Invalid params: maxPerChat must be 0..%d and maxHits 0..%d",
			proto.MaxSearchPerChat, proto.MaxSearchHits)
	}
	entries, err := s.opt.Store.List()
	if err != nil {
		return proto.SearchResult{}, errorf(proto.CodeFailed, "search: list chats: %v", err)
	}
	chats := search.ChatsOf(entries, s.table(), s.opt.Getenv)
	return search.Run(q, chats, search.Options{MaxPerChat: p.MaxPerChat, MaxHits: p.MaxHits, Live: s.opt.Mux}), nil
}
