package transcript

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

// The goldens are the fixture's transcript laid out at 72 columns, folded
// and opened by the fold key, with the ASCII profile and with 256 colours.
// Refresh them with go test ./tui/transcript -run Golden -update.

const goldenWidth = 72

func laidOut(st *markdown.Styles, open bool) []byte {
	v := New(st)
	if open {
		v.Toggle()
	}
	v.Update("c", fixture(), goldenWidth, 3, 0)
	return []byte(strings.Join(v.Window(0, v.Len()), "\n") + "\n")
}

func TestGoldenTranscriptASCII(t *testing.T) {
	out := laidOut(asciiStyles(), false)
	if strings.Contains(string(out), "\x1b") {
		t.Fatal("the ASCII profile wrote an escape")
	}
	golden.RequireEqual(t, out)
}

func TestGoldenTranscriptASCIIOpened(t *testing.T) {
	golden.RequireEqual(t, laidOut(asciiStyles(), true))
}

func TestGoldenTranscriptColour(t *testing.T) { golden.RequireEqual(t, laidOut(colourStyles(), false)) }

func TestGoldenTranscriptColourOpened(t *testing.T) {
	golden.RequireEqual(t, laidOut(colourStyles(), true))
}

func text(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

// TestCardsFoldAndOpen: a completed card is its header line until the
// fold key opens it; a failed or a running one shows its content; a
// thought is one line until opened.
func TestCardsFoldAndOpen(t *testing.T) {
	v := New(asciiStyles())
	v.Update("c", fixture(), 72, 0, 0)
	folded := text(v.Window(0, v.Len()))
	for _, want := range []string{"✎ Edit parser.go ✓ · parser.go:3", "▸ thought · 1,298 chars", "quote_test.go (new file)",
		"$ go test ./parser ✗ failed", "--- FAIL: TestQuotes", "… 6 more lines", "✓ Find the flaky test · high", "▸ Fix the quote state · medium", "○ Write a regression test · low"} {
		if !strings.Contains(folded, want) {
			t.Errorf("folded: %q missing:\n%s", want, folded)
		}
	}
	if strings.Contains(folded, "state := 0 // reset") || strings.Contains(folded, "thinking about") {
		t.Errorf("a completed card or a thought is open before the fold key:\n%s", folded)
	}
	v.Toggle()
	v.Update("c", fixture(), 72, 0, 0)
	opened := text(v.Window(0, v.Len()))
	for _, want := range []string{"-    state := 1", "+    state := 0 // reset", "@@ -1,6 +1,6 @@", "▾ thought", "thinking about quotes", "│ ok"} {
		if !strings.Contains(opened, want) {
			t.Errorf("opened: %q missing:\n%s", want, opened)
		}
	}
	if strings.Contains(opened, "more lines") {
		t.Errorf("the opened failed card still cuts its output:\n%s", opened)
	}
	v.Toggle()
	v.Update("c", fixture(), 72, 0, 0)
	if again := text(v.Window(0, v.Len())); again != folded {
		t.Errorf("the fold key twice does not fold again:\n%s", again)
	}
}

// TestStreamingLaysOutOnlyItsMessage: a chunk appended to the last
// message lays out that message only; the entries before keep their lines.
func TestStreamingLaysOutOnlyItsMessage(t *testing.T) {
	v := New(asciiStyles())
	entries := fixture()
	v.Update("c", entries, 72, 0, 0)
	before := make([]*string, len(v.entries))
	for i, l := range v.entries {
		before[i] = &l.lines[0]
	}
	entries[len(entries)-2].Text += " More **words**."
	v.Update("c", entries, 72, 0, 0)
	for i, l := range v.entries {
		same := &l.lines[0] == before[i]
		if changed := i == len(entries)-2; same == changed {
			t.Errorf("entry %d laid out again: %v, want %v", i, !same, changed)
		}
	}
	if !strings.Contains(text(v.Window(0, v.Len())), "Done. More words.") {
		t.Error("the chunk is not drawn")
	}
	// Another width lays out everything; so does another chat.
	v.Update("c", entries, 60, 0, 0)
	for i, l := range v.entries {
		if &l.lines[0] == before[i] {
			t.Errorf("entry %d kept its lines at another width", i)
		}
	}
}

// TestSpinnerTurnsWithTheClock: a running card's mark is the clock's
// frame; a frame change lays out only the running cards.
func TestSpinnerTurnsWithTheClock(t *testing.T) {
	v := New(asciiStyles())
	entries := fixture()
	v.Update("c", entries, 72, 0, 0)
	if !v.Spinning() || !strings.Contains(text(v.Window(0, v.Len())), "✎ Write quote_test.go ⠋ running") {
		t.Fatalf("frame 0:\n%s", text(v.Window(0, v.Len())))
	}
	agent := &v.entries[len(entries)-2].lines[0]
	v.Update("c", entries, 72, 1, 0)
	if !strings.Contains(text(v.Window(0, v.Len())), "✎ Write quote_test.go ⠙ running") {
		t.Fatalf("frame 1:\n%s", text(v.Window(0, v.Len())))
	}
	if &v.entries[len(entries)-2].lines[0] != agent {
		t.Error("a spinner frame laid out the agent's message again")
	}
	entries[4].ToolStatus = "completed"
	v.Update("c", entries, 72, 2, 0)
	if v.Spinning() {
		t.Error("still spinning with no running card")
	}
}

// TestScrollShift: lines added under the line the pane keeps are counted,
// so a pane scrolled back moves with them; a change above it is not.
func TestScrollShift(t *testing.T) {
	v := New(asciiStyles())
	entries := fixture()
	v.Update("c", entries, 72, 0, 0)
	n := v.Len()
	entries = append(entries, proto.Entry{Kind: proto.EntryAgent, Text: "one\n\ntwo"})
	if shift := v.Update("c", entries, 72, 0, n-10); shift != 4 || v.Len() != n+4 {
		t.Fatalf("appended 4 lines (gap, one, gap, two): shift %d, len %d -> %d", shift, n, v.Len())
	}
	// The first entry grows: above the kept line, nothing to move.
	entries[0].Text += "\nsecond line"
	if shift := v.Update("c", entries, 72, 0, v.Len()-5); shift != 0 {
		t.Fatalf("a change above the kept line moved it by %d", shift)
	}
	// A width change lays out everything anew: no shift is meaningful.
	if shift := v.Update("c", append(entries, proto.Entry{Kind: proto.EntryNote, Text: "x"}), 50, 0, 0); shift != 0 {
		t.Fatalf("a new width shifted by %d", shift)
	}
}

// TestHugeMessageIsFolded: a 10 MB message lays out its first lines and
// its size, opened at most MaxLines of it; a cut message says so.
func TestHugeMessageIsFolded(t *testing.T) {
	big := strings.Repeat("a line of a huge message\n", 10<<20/25)
	entries := []proto.Entry{{Kind: proto.EntryAgent, Text: big, Size: 20 << 20}}
	v := New(asciiStyles())
	v.Update("c", entries, 80, 0, 0)
	folded := text(v.Window(0, v.Len()))
	if v.Len() > foldedLines*2+3 || !strings.Contains(folded, "… (10.0 MB, 419,410 lines not shown; ctrl+o shows more)") ||
		!strings.Contains(folded, "… cut at 10.0 MB of 20.0 MB") {
		t.Fatalf("folded, %d lines:\n%s", v.Len(), folded)
	}
	v.Toggle()
	v.Update("c", entries, 80, 0, 0)
	if v.Len() > MaxLines*2+3 || !strings.Contains(text(v.Window(v.Len()-2, v.Len())), "lines not shown)") {
		t.Fatalf("opened, %d lines:\n%s", v.Len(), text(v.Window(v.Len()-3, v.Len())))
	}
	// One line of 10 MB is bounded too.
	entries[0].Text = strings.Repeat("x", 10<<20)
	v.Update("c", entries, 80, 0, 0)
	if v.Len() > markdown.MaxLines+3 {
		t.Fatalf("a 10 MB line laid out as %d lines", v.Len())
	}
}

// TestHugeContentIsBounded: a 10 MB terminal output and a 1 MB edit are
// cut to a few lines with the rest counted.
func TestHugeContentIsBounded(t *testing.T) {
	big := strings.Repeat("output line\n", 1<<20)
	old := strings.Repeat("old line\n", 1<<17)
	e := proto.Entry{Kind: proto.EntryTool, Title: "build", ToolKind: "execute", ToolStatus: "failed",
		Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, Text: big, Size: 30 << 20},
			{Type: proto.ToolContentDiff, Path: "big.txt", OldText: &old, NewText: old + "new\n"}}}
	v := New(asciiStyles())
	v.Update("c", []proto.Entry{e}, 80, 0, 0)
	out := text(v.Window(0, v.Len()))
	if v.Len() > 2*boxLines+8 || !strings.Contains(out, "… 1,048,564 more lines") || !strings.Contains(out, "… cut at 12.0 MB of 30.0 MB") ||
		!strings.Contains(out, "big.txt · 2.3 MB edit, not diffed") {
		t.Fatalf("%d lines:\n%s", v.Len(), out)
	}
}

// sgrOnly matches a line's SGR sequences.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestHostileEntriesDrawnSafely: escapes, OSC 52 and 8 and bidi controls
// in a message's code fence, a diff, a terminal's output, a title, a plan
// and a link name reach the lines as U+FFFD at most, never as sequences.
func TestHostileEntriesDrawnSafely(t *testing.T) {
	evil := "\x1b[2J\x1b]52;c;cHduZWQ=\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\u202eevil\u202c\u009b31m"
	entries := []proto.Entry{
		{Kind: proto.EntryUser, Text: "hi " + evil, Links: []proto.Link{{Name: "a" + evil}}},
		{Kind: proto.EntryAgent, Text: "# " + evil + "\n\n```go\nx := \"" + evil + "\"\n```\n"},
		{Kind: proto.EntryThought, Text: evil},
		{Kind: proto.EntryTool, Title: "t" + evil, ToolStatus: "failed", Locations: []proto.Location{{Path: "p" + evil}},
			Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "d" + evil, OldText: &evil, NewText: evil + "\n" + evil},
				{Type: proto.ToolContentTerminal, Text: evil}, {Type: proto.ToolContentText, Text: evil}}},
		{Kind: proto.EntryPlan, PlanItems: []proto.PlanItem{{Content: evil, Priority: evil, Status: "pending"}}},
		{Kind: proto.EntryError, Text: evil},
	}
	for _, st := range []*markdown.Styles{asciiStyles(), colourStyles()} {
		v := New(st)
		v.Toggle()
		v.Update("c", entries, 80, 0, 0)
		out := strings.Join(v.Window(0, v.Len()), "\n")
		rest := sgrOnly.ReplaceAllString(out, "")
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u202c", "\u009b"} {
			if strings.Contains(rest, bad) {
				t.Fatalf("%q reached the lines:\n%q", bad, out)
			}
		}
		if !strings.Contains(rest, "click") {
			t.Fatalf("the text was lost:\n%s", rest)
		}
		perm := strings.Join(PermissionLines(st, entries[3].Content, 80, 8), "\n")
		if rest := sgrOnly.ReplaceAllString(perm, ""); strings.ContainsAny(rest, "\x1b\x07\u202e") {
			t.Fatalf("a permission card's content carries a sequence:\n%q", perm)
		}
	}
}

// TestPermissionLinesAreBounded: a card's diff shows a few lines and
// counts the rest.
func TestPermissionLinesAreBounded(t *testing.T) {
	c := []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "new.go", NewText: strings.Repeat("line\n", 30)}}
	lines := PermissionLines(asciiStyles(), c, 60, 6)
	got := text(lines)
	if len(lines) != 6 || !strings.HasPrefix(got, "  new.go (new file)\n    +line") || !strings.HasSuffix(got, "… 26 more lines") {
		t.Fatalf("%d lines:\n%s", len(lines), got)
	}
	cmd := []proto.ToolContent{{Type: proto.ToolContentText, Text: "rm -rf build/"}}
	if got := text(PermissionLines(asciiStyles(), cmd, 60, 6)); got != "  │ rm -rf build/" {
		t.Fatalf("a command: %q", got)
	}
}

// TestPathsInTheChatsFolderAreRelative: with the chat's folder given, a
// card's locations and a diff's path inside it show relative to it; a
// path outside it (or only sharing its name's start) shows whole, and
// another folder lays the cards out again.
func TestPathsInTheChatsFolderAreRelative(t *testing.T) {
	line := 42
	old := "a\n"
	entries := []proto.Entry{
		{Kind: proto.EntryTool, ToolCallID: "c1", Title: "Edit", ToolKind: "edit", ToolStatus: "failed",
			Locations: []proto.Location{{Path: "/src/app/internal/main.go", Line: &line}, {Path: "/src/application/x.go"}, {Path: "/etc/hosts"}},
			Content:   []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "/src/app/parser.go", OldText: &old, NewText: "b\n"}}},
	}
	v := New(asciiStyles())
	v.SetRoot("/src/app/")
	v.Update("c", entries, 100, 0, 0)
	got := text(v.Window(0, v.Len()))
	for _, want := range []string{"internal/main.go:42, /src/application/x.go, /etc/hosts", "\n  parser.go\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the card does not show %q:\n%s", want, got)
		}
	}
	v.SetRoot("/src")
	v.Update("c", entries, 100, 0, 0)
	if got := text(v.Window(0, v.Len())); !strings.Contains(got, "app/internal/main.go:42") || !strings.Contains(got, "app/parser.go") {
		t.Errorf("another folder did not lay the card out again:\n%s", got)
	}
}
