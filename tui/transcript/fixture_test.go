package transcript

import (
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ptr(s string) *string { return &s }
func line(n int) *int      { return &n }

// report is an agent's markdown with each kind of block.
const report = "# Parser report\n\n" +
	"The tokenizer is **flaky** on *nested* quotes: `scan()` loses its place. See [the issue](https://example.org/i/7).\n\n" +
	"## What I changed\n\n" +
	"1. read `parser.go`\n" +
	"2. fixed the quote state\n" +
	"   - nested quotes\n" +
	"   - escapes\n" +
	"3. ran the tests\n\n" +
	"> The old code ~~never~~ rarely reset it.\n\n" +
	"| test | before | after |\n" +
	"| :--- | ---: | :---: |\n" +
	"| TestQuotes | fail | ok |\n" +
	"| TestEscapes | fail | ok |\n\n" +
	"```go\n" +
	"func (s *scanner) quote() string {\n" +
	"\t// reset the state: the bug\n" +
	"\ts.state = 0\n" +
	"\treturn \"\\\"\" + s.text[1:42]\n" +
	"}\n" +
	"```\n\n" +
	"---\n\n" +
	"Done."

// fixture is a transcript holding each kind of entry.
func fixture() []proto.Entry {
	old := "package parser\n\nfunc scan() {\n\tstate := 1\n\treturn\n}\n"
	return []proto.Entry{
		{Kind: proto.EntryUser, Text: "Why is the parser flaky? Look at @main.go", At: t0,
			Links: []proto.Link{{URI: "file:///home/me/src/app/main.go", Name: "main.go"}}},
		{Kind: proto.EntryThought, Text: strings.Repeat("thinking about quotes ", 59), At: t0},
		{Kind: proto.EntryTool, ToolCallID: "t1", Title: "Read parser.go", ToolKind: "read", ToolStatus: "completed", At: t0,
			Locations: []proto.Location{{Path: "parser.go", Line: line(42)}}},
		{Kind: proto.EntryTool, ToolCallID: "t2", Title: "Edit parser.go", ToolKind: "edit", ToolStatus: "completed", At: t0,
			Locations: []proto.Location{{Path: "parser.go", Line: line(3)}},
			Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "parser.go", OldText: ptr(old),
				NewText: strings.Replace(old, "state := 1", "state := 0 // reset", 1)}}},
		{Kind: proto.EntryTool, ToolCallID: "t3", Title: "Write quote_test.go", ToolKind: "edit", ToolStatus: "in_progress", At: t0,
			Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "quote_test.go",
				NewText: "package parser\n\nimport \"testing\"\n\nfunc TestQuotes(t *testing.T) { t.Skip() }\n"}}},
		{Kind: proto.EntryTool, ToolCallID: "t4", Title: "go test ./parser", ToolKind: "execute", ToolStatus: "failed", At: t0,
			Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, TerminalID: "term1",
				Text: "--- FAIL: TestQuotes (0.00s)\n    quote_test.go:9: got \"a\", want \"b\"\nFAIL\nFAIL\tparser\t0.004s\n" +
					strings.Repeat("more output\n", 14)}}},
		{Kind: proto.EntryTool, ToolCallID: "t5", Title: "go vet ./parser", ToolKind: "execute", ToolStatus: "completed", At: t0,
			Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, Text: "ok\n"}}},
		{Kind: proto.EntryPlan, At: t0, PlanItems: []proto.PlanItem{
			{Content: "Find the flaky test", Priority: "high", Status: "completed"},
			{Content: "Fix the quote state", Priority: "medium", Status: "in_progress"},
			{Content: "Write a regression test", Priority: "low", Status: "pending"},
		}},
		{Kind: proto.EntryAgent, Text: report, At: t0},
		{Kind: proto.EntryNote, Text: "turn ended: end_turn", At: t0},
	}
}

// asciiStyles are the styles with the ASCII profile: no escape at all.
func asciiStyles() *markdown.Styles {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	return markdown.NewStyles(r, false, true)
}

// colourStyles are the styles with 256 colours on a dark background.
func colourStyles() *markdown.Styles {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	return markdown.NewStyles(r, true, true)
}
