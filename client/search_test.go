package client

import (
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestSearchOfHost: a host's answer is marked as the host's, a chat whose
// id is not a chat id (only a hostile host sends one) is dropped and its
// hits uncounted, and merging keeps the order and says screens were
// searched only when every server searched them.
func TestSearchOfHost(t *testing.T) {
	hit := []proto.SearchHit{{Where: proto.SearchName, Excerpt: "x"}}
	res := ofHost("box", proto.SearchResult{Hits: 3, Screens: true, Notes: []string{"chat a: log cut"}, Chats: []proto.SearchChat{
		{ID: "a", Hits: hit}, {ID: "../etc", Hits: hit}, {ID: "b", Hits: append(hit, hit...)},
	}})
	if len(res.Chats) != 2 || res.Chats[0].Host != "box" || res.Chats[1].ID != "b" || res.Hits != 3 || res.Notes[0] != "host box: chat a: log cut" {
		t.Fatalf("ofHost = %+v", res)
	}
	all := proto.SearchResult{}
	MergeSearch(&all, ofHost("", proto.SearchResult{Screens: false, Chats: []proto.SearchChat{{ID: "c", Hits: hit}}}), true)
	MergeSearch(&all, res, false)
	if len(all.Chats) != 3 || all.Chats[0].ID != "c" || all.Hits != 4 || all.Screens {
		t.Fatalf("merged = %+v", all)
	}
}
