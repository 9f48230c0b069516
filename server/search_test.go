package server

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestSearchOverTheSocket: _acpmux/search finds a chat by its name and
// answers an empty list for a word nowhere; words it cannot take (none, a
// control character, too many) and bounds out of range are -32602.
func TestSearchOverTheSocket(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var chat proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "shell", Name: "the Zebra parser"}, &chat)

	var res proto.SearchResult
	w.ok(proto.MethodSearch, proto.SearchParams{Words: []string{"zebra", "parser"}}, &res)
	if len(res.Chats) != 1 || res.Chats[0].ID != chat.ID || res.Hits != 1 || !res.Screens ||
		res.Chats[0].Hits[0] != (proto.SearchHit{Where: proto.SearchName, Excerpt: "the Zebra parser"}) {
		t.Fatalf("search = %+v", res)
	}
	w.ok(proto.MethodSearch, proto.SearchParams{Words: []string{"giraffe"}}, &res)
	if res.Chats == nil || len(res.Chats) != 0 || res.Hits != 0 {
		t.Fatalf("a word nowhere: %+v", res)
	}
	for _, p := range []proto.SearchParams{
		{},
		{Words: []string{" "}},
		{Words: []string{"a\x1bb"}},
		{Words: strings.Fields(strings.Repeat("w ", proto.MaxSearchWords+1))},
		{Words: []string{"x"}, MaxHits: proto.MaxSearchHits + 1},
		{Words: []string{"x"}, MaxPerChat: -1},
	} {
		w.fails(proto.CodeInvalidParams, proto.MethodSearch, p)
	}
}
