package main

import (
	"bytes"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestJSONListWritesWhatPrintJSONWrites: `ls --json`, written one chat at a
// time, is byte for byte what the whole slice encoded at once was: the
// indenting, the empty list, HTML characters left as they are, and DEL and
// C1 controls escaped.
func TestJSONListWritesWhatPrintJSONWrites(t *testing.T) {
	views := []proto.ChatJSON{
		{ID: "a1", Name: "plain", Harness: "claude", Cwd: "/w", AdditionalDirectories: []string{"/x", "/y"}, Status: "running"},
		{ID: "b2", Name: "<b>&\"quoted\"</b> \u2028 wide 字 emoji 🙂", Cwd: "/w", AdditionalFiles: []string{}},
		{ID: "c3", Name: "del\x7f c1\u0085\u009b[31m tab\t nl\n", Harness: "x\x1b[2J", Cwd: "/\u0080"},
		{ID: "d4", Broken: "load chat d4: chat file is a symbolic link"},
	}
	for n := 0; n <= len(views); n++ {
		var whole, list bytes.Buffer
		if err := (&app{stdout: &whole}).printJSON(views[:n]); err != nil {
			t.Fatal(err)
		}
		if err := printJSONList(&list, n, func(i int) proto.ChatJSON { return views[i] }); err != nil {
			t.Fatal(err)
		}
		if whole.String() != list.String() {
			t.Errorf("%d chats: one at a time\n%s\nwhole\n%s", n, list.String(), whole.String())
		}
	}
}
