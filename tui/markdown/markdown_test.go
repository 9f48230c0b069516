package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

func asciiStyles() *Styles {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	return NewStyles(r, false, true)
}

func colourStyles(dark bool) *Styles {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	return NewStyles(r, true, dark)
}

func render(src string, w int) string { return strings.Join(Render(src, w, asciiStyles()), "\n") }

// TestRenderBlocks: each block as a reader sees it with the ASCII profile
// (no escape at all): marks of markdown gone, the text kept, laid out.
func TestRenderBlocks(t *testing.T) {
	tests := []struct {
		name, src string
		width     int
		want      string
	}{
		{"atx headings lose their marks", "# Title #\n\n### Sub", 40, "Title\n\nSub"},
		{"setext heading", "Title\n=====\ntext", 40, "Title\ntext"},
		{"emphasis is dropped, text kept; a strike keeps its marks", "a **b** *c* _d_ ~~e f~~ `g`", 40, "a b c d ~~e f~~ g"},
		{"intraword underscores stay", "snake_case_name and 2 * 3 * 4", 40, "snake_case_name and 2 * 3 * 4"},
		{"escapes", `\*not em\* and \# not a heading`, 40, "*not em* and # not a heading"},
		{"unclosed delimiters are text", "**open and `tick and [link", 40, "**open and `tick and [link"},
		{"link shows its URL, dimmed", "see [the docs](https://x.org/d \"t\") now", 60, "see the docs (https://x.org/d) now"},
		{"image", "![a cat](cat.png)", 40, "image: a cat (cat.png)"},
		{"autolink", "<https://x.org>", 40, "https://x.org"},
		{"paragraph wraps at the width", "one two three four five six seven", 14, "one two three\nfour five six\nseven"},
		{"lines of a paragraph join", "one\ntwo", 40, "one two"},
		{"hard break", "one  \ntwo\\\nthree", 40, "one\ntwo\nthree"},
		{"an escaped backslash at a line end is no break", "a\\\\\nb", 40, "a\\ b"},
		{"a long word is cut", "abcdefghijkl", 8, "abcdefgh\nijkl"},
		{"bullets nest by indent", "- a\n- b\n  - c\n    - d\n- e", 40, "• a\n• b\n  ◦ c\n    ▪ d\n• e"},
		{"numbered list keeps its start", "3. a\n4. b\n   more", 40, "3. a\n4. b more"},
		{"item text wraps under its marker", "- one two three four", 12, "• one two\n  three four"},
		{"list right under a paragraph", "Steps:\n- a\n- b", 40, "Steps:\n• a\n• b"},
		{"loose list keeps its gaps", "- a\n\n- b", 40, "• a\n\n• b"},
		{"2023. does not start a list inside a paragraph", "in\n2023. we", 40, "in 2023. we"},
		{"block quote", "> quoted **text**\n> more\n\nafter", 40, "│ quoted text more\n\nafter"},
		{"nested quote", "> a\n> > b", 40, "│ a\n│ │ b"},
		{"thematic break", "a\n\n***\n\nb", 10, "a\n\n──────────\n\nb"},
		{"fenced code is kept, not wrapped", "```\nx  =  1\n\ty\n```", 40, "  x  =  1\n      y"},
		{"code is cut with a mark", "```\nabcdefghijklmnop\n```", 10, "  abcdefg…"},
		{"indented code", "    code here\n\npara", 40, "  code here\n\npara"},
		{"unclosed fence runs to the end", "```go\nx := 1", 40, "  x := 1"},
		{"tilde fence", "~~~\n```\n~~~", 40, "  ```"},
		{"table", "| a | bb |\n|---|--:|\n| 1 | 2 |", 40, "a │ bb\n──┼───\n1 │  2"},
		{"table without outer pipes", "a | b\n--|--\n1 | 2", 40, "a │ b\n──┼──\n1 │ 2"},
		{"escaped pipe in a cell", "| a |\n|---|\n| x \\| y |", 40, "a\n─────\nx | y"},
		{"tabs in code expand to 4-column stops", "```\na\tb\n```", 40, "  a   b"},
		{"empty", "", 40, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(tt.src, tt.width); got != tt.want {
				t.Errorf("Render(%q, %d):\n%s\nwant:\n%s", tt.src, tt.width, got, tt.want)
			}
		})
	}
}

// TestTableFitsTheWidth: a table wider than the width narrows its widest
// columns, whose cells wrap; no line passes the width.
func TestTableFitsTheWidth(t *testing.T) {
	src := "| name | what it does |\n|---|---|\n| scan | reads the next token from the input, keeping the quote state |\n| x | y |"
	lines := Render(src, 30, asciiStyles())
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 30 {
			t.Errorf("line %q is %d cells wide", l, w)
		}
	}
	got := strings.Join(lines, "\n")
	want := "name │ what it does\n" +
		"─────┼────────────────────────\n" +
		"scan │ reads the next token\n" +
		"     │ from the input, keeping\n" +
		"     │ the quote state\n" +
		"x    │ y"
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenderColours: with colour, each class of text gets its own SGR
// and the code fence its highlighting; the background picks the colours.
func TestRenderColours(t *testing.T) {
	st := colourStyles(true)
	out := strings.Join(Render("# T\n\n**b** `c` [l](u)\n\n```go\nfunc f() { return \"s\" + 42 } // c\n```\n\n```diff\n-old\n+new\n```", 60, st), "\n")
	for _, want := range []string{
		st.Paint(Heading, "T"), st.Paint(Strong, "b"), st.Paint(Code, "c"), st.Paint(Link, "l"), st.Paint(Dim, "(u)"),
		st.Paint(Keyword, "func"), st.Paint(Keyword, "return"), st.Paint(String, `"s"`), st.Paint(Number, "42"),
		st.Paint(Comment, "// c"), st.Paint(Removed, "-old"), st.Paint(Added, "+new"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not in:\n%q", want, out)
		}
	}
	if st.Paint(Keyword, "x") == colourStyles(false).Paint(Keyword, "x") {
		t.Error("a light background gets the same keyword colour as a dark one")
	}
	if strings.Contains(strings.Join(Render("**b** `c`", 60, asciiStyles()), ""), "\x1b") {
		t.Error("the ASCII profile wrote an escape")
	}
}

// TestHighlightLanguages: each language the highlighter knows paints its
// keywords, strings and comments; block comments and triple quotes carry
// to the next line.
func TestHighlightLanguages(t *testing.T) {
	st := colourStyles(true)
	tests := []struct{ lang, src, kw, str, comment string }{
		{"python", "def f():\n    \"\"\"doc\n    more\"\"\"\n    return 'x'  # note", "def", "'x'", "# note"},
		{"js", "const a = `t`; /* a\nb */", "const", "`t`", "b */"},
		{"ts", "let x: number = 1 // n", "let", "", "// n"},
		{"sh", "if [ -f x ]; then echo \"hi\"; fi # c", "then", `"hi"`, "# c"},
		{"rust", "fn main() { let s = \"x\"; } // c", "fn", `"x"`, "// c"},
		{"c", "int main(void) { return 0; } /* c */", "return", "", "/* c */"},
		{"json", `{"a": true, "b": null}`, "true", `"a"`, ""},
		{"yaml", "name: x # c\nlist:\n  - on", "name", "", "# c"},
	}
	for _, tt := range tests {
		out := strings.Join(Render("```"+tt.lang+"\n"+tt.src+"\n```", 80, st), "\n")
		if !strings.Contains(out, st.Paint(Keyword, tt.kw)) {
			t.Errorf("%s: keyword %q not painted:\n%q", tt.lang, tt.kw, out)
		}
		if tt.str != "" && !strings.Contains(out, st.Paint(String, tt.str)) {
			t.Errorf("%s: string %q not painted:\n%q", tt.lang, tt.str, out)
		}
		if tt.comment != "" && !strings.Contains(out, st.Paint(Comment, tt.comment)) {
			t.Errorf("%s: comment %q not painted:\n%q", tt.lang, tt.comment, out)
		}
	}
	// An unknown language is drawn plain.
	if out := strings.Join(Render("```cobol\nMOVE 1 TO X\n```", 80, st), ""); strings.Contains(out, "\x1b") {
		t.Errorf("an unknown language was painted: %q", out)
	}
}

// hostile is markdown carrying what must never reach a terminal: a clear
// screen, an OSC 52 that sets the clipboard, an OSC 8 hyperlink, a bidi
// override, C1 controls; in text, code spans, fences, tables and links.
const hostile = "# \x1b[2Jtitle\n\n" +
	"text \x1b]52;c;cHduZWQ=\x07 and \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ and \u202eevil\u202c \u009b31m\n\n" +
	"`\x1b[31mcode` [link\x1b[5m](https://x\x1b[2J)\n\n" +
	"```go\nx := \"\x1b[2J\u202e\" // \x1b]0;title\x07\n```\n\n" +
	"```diff\n-\x1b[1A\u202eold\n+new\x1b[K\n```\n\n" +
	"| a\x1b[2J | b |\n|---|---|\n| \x1b]52;c;eA==\x07 | \u2066x |\n\n" +
	"- item \x1b[?1049h\n> quote \x1bP1$r\x1b\\\n"

// onlySGR reports the first escape sequence in s that is not an SGR one,
// or a bidi control or other control character; "" when there is none.
func onlySGR(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0x1b {
			if i+1 >= len(s) || s[i+1] != '[' {
				return s[i:min(i+8, len(s))]
			}
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return s[i:min(j+1, len(s))]
			}
			i = j
			continue
		}
		if c < 0x20 && c != '\n' || c == 0x7f {
			return s[i : i+1]
		}
	}
	for _, r := range s {
		if r >= 0x80 && r < 0xa0 || r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return string(r)
		}
	}
	return ""
}

// TestHostileMarkdownOnlySGR: whatever a message holds, what Render
// returns holds no escape but its own SGR styles, no control, no bidi.
func TestHostileMarkdownOnlySGR(t *testing.T) {
	for _, st := range []*Styles{asciiStyles(), colourStyles(true)} {
		out := strings.Join(Render(hostile, 60, st), "\n")
		if bad := onlySGR(out); bad != "" {
			t.Errorf("%q reached the output:\n%q", bad, out)
		}
		if !strings.Contains(ansi.Strip(out), "title") || !strings.Contains(ansi.Strip(out), "click") {
			t.Errorf("the text around the sequences was lost:\n%s", ansi.Strip(out))
		}
	}
}

// TestMaxLines: a huge layout is cut at MaxLines with the rest counted.
func TestMaxLines(t *testing.T) {
	lines := Render(strings.Repeat("x\n\n", MaxLines*2), 40, asciiStyles())
	if len(lines) != MaxLines || !strings.HasPrefix(lines[MaxLines-1], "… ") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// TestPathologicalInlineIsLinear: openers with no closer do not search
// the rest of the text again each (a quadratic walk would take minutes).
func TestPathologicalInlineIsLinear(t *testing.T) {
	for _, unit := range []string{"*a ", "**a ", "_a ", "`a ", "[a ", "[a] ", "<a ", "~~a "} {
		src := strings.Repeat(unit, 100000)
		lines := Render(src, 80, asciiStyles())
		if len(lines) == 0 {
			t.Fatalf("%q: nothing drawn", unit)
		}
	}
}

// FuzzRender: any text renders without a panic, and with nothing but SGR
// sequences in what it returns.
func FuzzRender(f *testing.F) {
	f.Add(hostile, 40)
	f.Add("# h\n\n- a\n  - b\n\n> q\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nfunc f() {}\n```", 30)
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = width%200 + 1
		if width < 0 {
			width = -width
		}
		for _, st := range []*Styles{asciiStyles(), colourStyles(true)} {
			out := strings.Join(Render(src, width, st), "\n")
			if bad := onlySGR(out); bad != "" {
				t.Fatalf("%q in the output of %q", bad, src)
			}
		}
	})
}

// splitHolds reports whether src laid out in two parts at Split's offset
// is src laid out whole; it returns both layouts.
func splitHolds(src string, width int, st *Styles) (bool, string, string) {
	src = plaintext.Foreign(src) // as Split takes it: a sequence is one
	b := Split(src, 0)
	whole := strings.Join(Render(src, width, st), "\n")
	head, tail := Render(src[:b], width, st), Render(src[b:], width, st)
	parts := head
	if len(head) > 0 && len(tail) > 0 {
		parts = head[:len(head):len(head)]
		if head[len(head)-1] != "" {
			parts = append(parts, "")
		}
		parts = append(parts, tail...)
	} else if len(head) == 0 {
		parts = tail
	}
	split := strings.Join(parts, "\n")
	return whole == split, whole, split
}

// TestSplitLaysOutAsTheWhole: at every length of a message as it streams,
// the part up to its split and the rest, laid out apart, are the message
// laid out whole.
func TestSplitLaysOutAsTheWhole(t *testing.T) {
	docs := []string{
		"# Parser report\n\nThe **tokenizer**.\n\n1. read\n2. fix\n   - nested\n\n3. after a gap\n\n> quote\nlazy\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nx := 1\n\ny := 2\n```\n\n    indented\n\n    more\n\nSetext\n===\n\nDone.\n",
		"1. a\n\n1. b\n\n- a\n\n  still a\n\nb\n\n* c\n\n+ d\n\n10. e\n\nf\n\n```\nunclosed\n\nstill code",
		"para\n\n~~~\n```\n~~~\n\n> a\n\n> b\n\n| x |\n|---|\n\nz",
	}
	st := asciiStyles()
	for _, doc := range docs {
		for n := 0; n <= len(doc); n++ {
			if ok, whole, split := splitHolds(doc[:n], 40, st); !ok {
				t.Fatalf("at %d of %q:\nwhole:\n%s\nsplit at %d:\n%s", n, doc[:n], whole, Split(doc[:n], 0), split)
			}
		}
	}
}

// FuzzSplit: for any text, laying out apart at Split is laying out whole.
func FuzzSplit(f *testing.F) {
	f.Add("a\n\nb\n\n- c\n\nd\n", 20)
	f.Add("```\nx\n\ny\n```\n\nz\n\n> q\n\nw\n", 30)
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = width%120 + 1
		if width < 0 {
			width = -width
		}
		if ok, whole, split := splitHolds(src, width, asciiStyles()); !ok {
			t.Fatalf("split at %d of %q:\nwhole:\n%s\nsplit:\n%s", Split(plaintext.Foreign(src), 0), src, whole, split)
		}
	})
}

// TestCodeBlocks: the fenced code blocks of a message, as its source
// holds them, one in a list item too.
func TestCodeBlocks(t *testing.T) {
	src := "text\n\n```go\nx := 1\n\ty()\n```\n\n- item\n\n  ~~~sh\n  make\n  ~~~\n\n```\nunclosed"
	got := CodeBlocks(src)
	want := []string{"x := 1\n\ty()", "make", "unclosed"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("CodeBlocks: %q, want %q", got, want)
	}
}
