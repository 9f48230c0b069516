package server

import (
	"os"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestRenameOverTheSocket: _acpmux/rename stores the new name and answers
// the chat; a name refused (empty, too long, a control character, another
// chat's) is -32602 and the file is left as it was; an unknown chat is
// -32002.
func TestRenameOverTheSocket(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var a, b proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "zap"}, &a)
	w.ok(proto.MethodNew, proto.NewParams{Name: "other"}, &b)

	var got proto.ChatJSON
	w.ok(proto.MethodRename, proto.RenameParams{ID: a.ID, Name: "the parser"}, &got)
	if got.ID != a.ID || got.Name != "the parser" {
		t.Fatalf("rename answered %+v", got)
	}
	if m, err := r.store.Load(a.ID); err != nil || m.Name != "the parser" {
		t.Fatalf("stored: %v, %v", m, err)
	}
	before, err := os.ReadFile(r.store.ChatPath(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, says string }{
		{"", "cannot be empty"},
		{strings.Repeat("x", 5000), "at most 1024"},
		{"a\x1b[2Jb", "control character"},
		{"other", "already named"},
	} {
		e := w.fails(proto.CodeInvalidParams, proto.MethodRename, proto.RenameParams{ID: a.ID, Name: tt.name})
		if !strings.Contains(e.Message, tt.says) {
			t.Errorf("rename to %.20q: %q, want it to say %q", tt.name, e.Message, tt.says)
		}
	}
	if after, _ := os.ReadFile(r.store.ChatPath(a.ID)); string(after) != string(before) {
		t.Errorf("a refused rename changed the file:\n%s", after)
	}
	w.fails(proto.CodeChatNotFound, proto.MethodRename, proto.RenameParams{ID: "nosuch", Name: "x"})
	w.fails(proto.CodeInvalidParams, proto.MethodRename, proto.RenameParams{Name: "x"})
}
