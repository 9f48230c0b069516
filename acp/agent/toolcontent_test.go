package agent

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/proto"
)

func TestCheckLinks(t *testing.T) {
	ok := proto.Link{URI: "file:///src/app/main.go", Name: "main.go"}
	many := make([]proto.Link, proto.MaxPromptLinks+1)
	for i := range many {
		many[i] = ok
	}
	cases := []struct {
		name  string
		links []proto.Link
		says  string // "" for accepted
	}{
		{"none", nil, ""},
		{"a file", []proto.Link{ok}, ""},
		{"encoded, with a space in its name", []proto.Link{{URI: "file:///src/a%20b.md", Name: "a b.md"}}, ""},
		{"localhost", []proto.Link{{URI: "file://localhost/src/a.go", Name: "a.go"}}, ""},
		{"the most", many[:proto.MaxPromptLinks], ""},
		{"too many", many, "at most 64"},
		{"https", []proto.Link{{URI: "https://example.com/a", Name: "a"}}, "not a file:// URI"},
		{"another host", []proto.Link{{URI: "file://host/etc/passwd", Name: "passwd"}}, "names a host"},
		{"relative", []proto.Link{{URI: "file:a.go", Name: "a.go"}}, "names a host"},
		{"no path", []proto.Link{{URI: "file://", Name: "x"}}, "absolute path"},
		{"a query", []proto.Link{{URI: "file:///a.go?x=1", Name: "a.go"}}, "query"},
		{"no name", []proto.Link{{URI: "file:///a.go"}}, "no name"},
		{"a blank name", []proto.Link{{URI: "file:///a.go", Name: "  "}}, "no name"},
		{"an escape in the name", []proto.Link{{URI: "file:///a.go", Name: "a\x1b]0;X\a.go"}}, "escape"},
		{"a bidi control in the name", []proto.Link{{URI: "file:///a.go", Name: "a\u202ego.exe"}}, "control"},
		{"a newline in the uri", []proto.Link{{URI: "file:///a\n.go", Name: "a.go"}}, "control"},
		{"second bad", []proto.Link{ok, {URI: "ftp://x/a", Name: "a"}}, "links[1]"},
		{"too long", []proto.Link{{URI: "file:///" + strings.Repeat("a", maxLinkText), Name: "a"}}, "longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLinks(tc.links)
			switch {
			case tc.says == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.says != "" && err == nil:
				t.Fatal("accepted")
			case tc.says != "" && !strings.Contains(err.Error(), tc.says):
				t.Fatalf("refusal %q does not say %q", err, tc.says)
			}
		})
	}
}

// TestToolContentIsReplacedByAnUpdateThatCarriesIt: an update with
// content replaces the call's, one without leaves it, an empty list
// clears it; a kind an update gives replaces the call's.
func TestToolContentIsReplacedByAnUpdateThatCarriesIt(t *testing.T) {
	var tr Transcript
	tr.Apply(acp.StartToolCall("c1", "Edit", acp.WithStartKind(acp.ToolKindEdit),
		acp.WithStartContent([]acp.ToolCallContent{acp.ToolDiffContent("/a.go", "new", "old")})))
	tr.Apply(acp.UpdateToolCall("c1", acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	e := tr.Entries()[0]
	if e.ToolKind != "edit" || len(e.Content) != 1 || e.Content[0].Path != "/a.go" || *e.Content[0].OldText != "old" {
		t.Fatalf("after an update without content: %+v", e)
	}
	tr.Apply(acp.UpdateToolCall("c1", acp.WithUpdateKind(acp.ToolKindExecute),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("out")), acp.ToolTerminalRef("t1")})))
	e = tr.Entries()[0]
	want := []proto.ToolContent{{Type: proto.ToolContentText, Text: "out"}, {Type: proto.ToolContentTerminal, TerminalID: "t1"}}
	if e.ToolKind != "execute" || len(e.Content) != 2 || !e.Content[0].Equal(want[0]) || !e.Content[1].Equal(want[1]) {
		t.Fatalf("after an update with content: %+v", e)
	}
	tr.Apply(acp.UpdateToolCall("c1", acp.WithUpdateContent([]acp.ToolCallContent{})))
	if e = tr.Entries()[0]; len(e.Content) != 0 {
		t.Fatalf("an empty content list left %+v", e.Content)
	}
}

// TestToolContentsAreBounded: at most MaxToolContents, each text cut to
// MaxToolContentText with the bytes sent in Size, a new file's diff with
// no OldText.
func TestToolContentsAreBounded(t *testing.T) {
	in := make([]acp.ToolCallContent, proto.MaxToolContents+3)
	for i := range in {
		in[i] = acp.ToolContent(acp.TextBlock("x"))
	}
	if got := ToolContents(in); len(got) != proto.MaxToolContents {
		t.Fatalf("kept %d contents, want %d", len(got), proto.MaxToolContents)
	}
	big := strings.Repeat("é", proto.MaxToolContentText) // 2 bytes a rune: cut inside one
	got := ToolContents([]acp.ToolCallContent{acp.ToolDiffContent("/big", big, "old"), acp.ToolDiffContent("/new", "fresh")})
	if d := got[0]; len(d.NewText) > proto.MaxToolContentText || len(d.NewText) < proto.MaxToolContentText-1 ||
		!strings.HasSuffix(d.NewText, "é") || d.Size != int64(len(big)+3) || *d.OldText != "old" {
		t.Errorf("the big diff kept %d bytes, size %d, want about %d and %d", len(d.NewText), d.Size, proto.MaxToolContentText, len(big)+3)
	}
	if d := got[1]; d.OldText != nil || d.Size != 0 || d.NewText != "fresh" {
		t.Errorf("the new file's diff is %+v", d)
	}
	if ToolContents(nil) != nil {
		t.Error("nil content (an update that leaves it) became a list")
	}
}

// TestMessagePastItsBoundKeepsItsSize: a message's chunks past its bound
// are counted in Size and not kept, the stream's chunks say the size too;
// a first chunk past the bound is cut.
func TestMessagePastItsBoundKeepsItsSize(t *testing.T) {
	var tr Transcript
	chunk := strings.Repeat("a", 300<<10)
	var last *proto.Entry
	for range 10 {
		last = tr.Apply(acp.UpdateAgentMessageText(chunk))
	}
	e := tr.Entries()[0]
	if e.Size != int64(10*len(chunk)) || len(e.Text) != maxEntryText {
		t.Fatalf("the message keeps %d bytes with size %d, want %d and %d", len(e.Text), e.Size, maxEntryText, 10*len(chunk))
	}
	if last.Text != "" || last.Size != e.Size {
		t.Fatalf("the last chunk streamed %d bytes with size %d, want none and %d", len(last.Text), last.Size, e.Size)
	}
	tr.StartTurn("hi", proto.Link{URI: "file:///a.go", Name: "a.go"})
	tr.Apply(acp.UpdateAgentMessageText(strings.Repeat("b", maxEntryText+5)))
	es := tr.Entries()
	if u := es[1]; len(u.Links) != 1 || u.Links[0].Name != "a.go" {
		t.Errorf("the user entry keeps links %+v", u.Links)
	}
	if m := es[2]; len(m.Text) != maxEntryText || m.Size != maxEntryText+5 {
		t.Errorf("a first chunk past the bound kept %d bytes, size %d", len(m.Text), m.Size)
	}
}

// TestToolContentsShareOneBound: the texts of one call's content are
// bounded together (2 MiB; 64 KiB for a permission request's), a diff
// keeping a share for its old text; what is cut says its size.
func TestToolContentsShareOneBound(t *testing.T) {
	mib := strings.Repeat("x", 1<<20)
	in := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(mib)), acp.ToolContent(acp.TextBlock(mib)), acp.ToolContent(acp.TextBlock(mib))}
	got := ToolContents(in)
	total := 0
	for _, c := range got {
		total += len(c.Text)
	}
	if total != maxToolContentTotal || got[2].Text != "" || got[2].Size != 1<<20 || got[0].Size != 0 {
		t.Errorf("three texts of 1 MiB kept %d bytes in all (the last %d, size %d), want %d", total, len(got[2].Text), got[2].Size, maxToolContentTotal)
	}
	side := strings.Repeat("y", 100<<10)
	perm := PermissionContent([]acp.ToolCallContent{acp.ToolDiffContent("/a", side, side)})
	if d := perm[0]; len(d.NewText)+len(*d.OldText) != maxPermissionContent || len(*d.OldText) != maxPermissionContent/2 || d.Size != int64(2*len(side)) {
		t.Errorf("a permission's diff of 2×100 KiB kept new %d, old %d, size %d; want %d in all, half each", len(d.NewText), len(*d.OldText), d.Size, maxPermissionContent)
	}
}

// TestReplayedLinksJoinTheirMessage: a session/load replays a prompt's
// resource_link blocks as user chunks of their own: they are kept as the
// message's links, before or after its text; a link that is no file of
// this machine stays text.
func TestReplayedLinksJoinTheirMessage(t *testing.T) {
	var tr Transcript
	link := func(name, uri string) acp.SessionUpdate {
		return acp.SessionUpdate{UserMessageChunk: &acp.SessionUpdateUserMessageChunk{Content: acp.ResourceLinkBlock(name, uri)}}
	}
	tr.Apply(acp.UpdateUserMessageText("look at these"))
	got := tr.Apply(link("a.go", "file:///src/a.go"))
	tr.Apply(link("b.go", "file:///src/b.go"))
	tr.Apply(acp.UpdateAgentMessageText("ok"))
	tr.Apply(link("c.go", "file:///src/c.go"))
	tr.Apply(acp.UpdateUserMessageText("and this"))
	tr.Apply(link("x", "https://example.com/x"))
	es := tr.Entries()
	if len(es) != 4 {
		t.Fatalf("%d entries: %+v", len(es), es)
	}
	if es[0].Text != "look at these" || len(es[0].Links) != 2 || es[0].Links[1].Name != "b.go" {
		t.Errorf("first message %+v", es[0])
	}
	if es[2].Text != "and this" || len(es[2].Links) != 1 || es[2].Links[0].URI != "file:///src/c.go" {
		t.Errorf("a message whose link came first: %+v", es[2])
	}
	if es[3].Text != "[x](https://example.com/x)" || es[3].Links != nil {
		t.Errorf("a link to another place: %+v", es[3])
	}
	if got == nil || got.Text != "" || len(got.Links) != 1 || got.Links[0].Name != "a.go" {
		t.Errorf("the stream's entry for a link: %+v", got)
	}
}

// TestTerminalOutputShowsInItsCalls: a door client's terminal output is
// kept in the tool calls that show that terminal, cleaned and bounded, and
// told as the call's update; a terminal no call shows changes nothing.
func TestTerminalOutputShowsInItsCalls(t *testing.T) {
	var tr Transcript
	tr.Add(proto.Entry{Kind: proto.EntryTool, ToolCallID: "c1", Title: "Run", Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, TerminalID: "t1"}}})
	tr.Add(proto.Entry{Kind: proto.EntryAgent, Text: "running"})
	if e := tr.TerminalOutput("t2", "other"); e != nil {
		t.Fatalf("a terminal no call shows was told as %+v", e)
	}
	e := tr.TerminalOutput("t1", "ok \x1b]52;c;AAAA\x07\x1b[2Jdone\u202e\n")
	if e == nil || e.ToolCallID != "c1" || len(e.Content) != 1 || e.Content[0].Text != "ok done\n" {
		t.Fatalf("the output was told as %+v, want c1's terminal showing the cleaned text", e)
	}
	if got := tr.Entries()[0].Content[0].Text; got != "ok done\n" {
		t.Fatalf("the transcript's call shows %q", got)
	}
	if e := tr.TerminalOutput("t1", "ok \x1b]52;c;AAAA\x07\x1b[2Jdone\u202e\n"); e != nil {
		t.Fatal("the same output again was told again")
	}
	big := strings.Repeat("x", proto.MaxToolContentText+10)
	e = tr.TerminalOutput("t1", big)
	if e == nil || len(e.Content[0].Text) != proto.MaxToolContentText || e.Content[0].Size != int64(len(big)) {
		t.Fatalf("a big output: kept %d bytes with size %d, want %d of %d", len(e.Content[0].Text), e.Content[0].Size, proto.MaxToolContentText, len(big))
	}
}
