// Package markdown draws an agent's markdown in a terminal: headings,
// paragraphs wrapped at a width, emphasis, code spans, links (shown, never
// followed), lists, block quotes, rules, GFM tables and code blocks, the
// fenced ones highlighted by a small highlighter of its own. It is ours
// rather than glamour and chroma because those cost the server and the TUI
// milliseconds and megabytes at every start; this package builds nothing
// until it draws. Whatever the text holds, the only escape sequences in
// what it returns are its own SGR styles.
package markdown

import (
	"strconv"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// minWidth is the narrowest layout: below it lines are drawn this wide
// and the pane cuts them.
const minWidth = 8

// maxDepth bounds how deep quotes and lists nest; deeper markup is text.
const maxDepth = 12

// MaxLines bounds the lines Render returns; a longer layout ends with a
// line that says how many more there were.
const MaxLines = 4000

// Render returns src laid out in lines of at most width cells, styled
// with st.
func Render(src string, width int, st *Styles) []string {
	// Text from an agent is clean where it enters, but a renderer that
	// writes to a terminal makes sure: every escape, control and bidi
	// control becomes U+FFFD.
	src = plaintext.Foreign(src)
	r := &renderer{st: st}
	out := r.blocks(splitLines(src), max(width, minWidth), 0)
	if len(out) > MaxLines {
		n := len(out) - MaxLines + 1
		out = append(out[:MaxLines-1], st.Paint(Dim, "… "+strconv.Itoa(n)+" more lines"))
	}
	return out
}

// splitLines splits src into lines with tabs expanded to 4-column stops.
func splitLines(src string) []string {
	src = strings.TrimRight(src, "\n")
	if src == "" {
		return nil
	}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.IndexByte(l, '\t') >= 0 {
			lines[i] = ExpandTabs(l)
		}
	}
	return lines
}

// ExpandTabs turns tabs into spaces to 4-column stops: a tab's width is
// the terminal's to decide otherwise. Code and a tool's output are laid
// out with it.
func ExpandTabs(l string) string {
	if strings.IndexByte(l, '\t') < 0 {
		return l
	}
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// renderer holds what one Render call carries down its blocks.
type renderer struct {
	st        *Styles
	listDepth int
}

func isBlank(l string) bool { return strings.TrimLeft(l, " ") == "" }

// indentOf is the spaces l starts with.
func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// blocks lays out lines, a block at a time, with a blank line between
// blocks.
func (r *renderer) blocks(lines []string, width, depth int) []string {
	var out []string
	// Blocks are apart where the source put them apart: a list right
	// under its paragraph stays there.
	gap := false
	sep := func() {
		if gap && len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
		gap = false
	}
	for i := 0; i < len(lines); {
		line := lines[i]
		if isBlank(line) {
			gap = true
			i++
			continue
		}
		ind := indentOf(line)
		t := line[ind:]
		sep()
		if ind >= 4 {
			// An indented code block.
			j := i
			var code []string
			for j < len(lines) && (isBlank(lines[j]) || indentOf(lines[j]) >= 4) {
				code = append(code, cutIndent(lines[j], 4))
				j++
			}
			for len(code) > 0 && isBlank(code[len(code)-1]) {
				code = code[:len(code)-1]
				j-- // the blank lines after it are the blocks' gap
			}
			out = append(out, r.code(code, "", width)...)
			i = j
			continue
		}
		if ch, n, info, ok := fenceOpen(t); ok {
			j := i + 1
			var code []string
			for j < len(lines) && !fenceClose(lines[j], ch, n) {
				code = append(code, cutIndent(lines[j], ind))
				j++
			}
			out = append(out, r.code(code, info, width)...)
			i = min(j+1, len(lines))
			continue
		}
		if level, text, ok := atxHeading(t); ok {
			out = append(out, r.heading(text, level, width)...)
			i++
			continue
		}
		if isRule(t) {
			out = append(out, r.st.Paint(Dim, strings.Repeat("─", width)))
			i++
			continue
		}
		if t[0] == '>' && depth < maxDepth {
			var inner []string
			j := i
			for j < len(lines) {
				l := lines[j]
				lt := strings.TrimLeft(l, " ")
				switch {
				case indentOf(l) <= 3 && strings.HasPrefix(lt, ">"):
					lt = lt[1:]
					if strings.HasPrefix(lt, " ") {
						lt = lt[1:]
					}
					inner = append(inner, lt)
				case !isBlank(l) && len(inner) > 0 && !isBlank(inner[len(inner)-1]) && !startsBlock(lt):
					inner = append(inner, lt) // a lazy continuation
				default:
					goto quoted
				}
				j++
			}
		quoted:
			bar := r.st.Paint(Dim, "│ ")
			for _, l := range r.blocks(inner, width-2, depth+1) {
				out = append(out, bar+l)
			}
			i = j
			continue
		}
		if _, _, ok := listItem(t); ok && depth < maxDepth {
			var n int
			var list []string
			list, n = r.list(lines[i:], width, depth)
			out = append(out, list...)
			i += n
			continue
		}
		if isTableStart(lines, i) {
			j := i + 2
			for j < len(lines) && !isBlank(lines[j]) && strings.IndexByte(lines[j], '|') >= 0 {
				j++
			}
			out = append(out, r.table(lines[i], lines[i+1], lines[i+2:j], width)...)
			i = j
			continue
		}
		// A paragraph, or a setext heading.
		j := i
		var para []string
		level := 0
		for j < len(lines) && !isBlank(lines[j]) {
			l := strings.TrimLeft(lines[j], " ")
			if len(para) > 0 {
				if lv := setext(lines[j]); lv > 0 {
					level = lv
					j++
					break
				}
				if startsBlock(l) || isTableStart(lines, j) {
					break
				}
			}
			para = append(para, l)
			j++
		}
		text := strings.Join(para, "\n")
		if level > 0 {
			out = append(out, r.heading(text, level, width)...)
		} else {
			out = append(out, r.st.wrap(parseInline(text), width)...)
		}
		i = j
	}
	return out
}

// cutIndent takes up to n leading spaces off l.
func cutIndent(l string, n int) string {
	k := 0
	for k < n && k < len(l) && l[k] == ' ' {
		k++
	}
	return l[k:]
}

// fenceOpen reads a code fence's opening line (its indent taken off):
// its character, its length and its info string's first word.
func fenceOpen(t string) (ch byte, n int, info string, ok bool) {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, "", false
	}
	ch = t[0]
	for n < len(t) && t[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, "", false
	}
	rest := strings.TrimSpace(t[n:])
	if ch == '`' && strings.IndexByte(rest, '`') >= 0 {
		return 0, 0, "", false
	}
	if sp := strings.IndexAny(rest, " {"); sp >= 0 {
		rest = rest[:sp]
	}
	return ch, n, rest, true
}

// fenceClose reports whether l closes a fence of n ch.
func fenceClose(l string, ch byte, n int) bool {
	if indentOf(l) > 3 {
		return false
	}
	t := strings.TrimSpace(l)
	if len(t) < n {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != ch {
			return false
		}
	}
	return true
}

// atxHeading reads "## text ##".
func atxHeading(t string) (int, string, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ') {
		return 0, "", false
	}
	text := strings.TrimSpace(t[n:])
	// A closing run of '#' after a space goes.
	if k := strings.TrimRight(text, "#"); k != text && (k == "" || strings.HasSuffix(k, " ")) {
		text = strings.TrimSpace(k)
	}
	return n, text, true
}

// isRule reports whether t is a thematic break: three or more '-', '*'
// or '_', spaces between allowed.
func isRule(t string) bool {
	t = strings.TrimRight(t, " ")
	if len(t) < 3 {
		return false
	}
	ch := t[0]
	if ch != '-' && ch != '*' && ch != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case ch:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// setext returns the level a setext underline gives (1 for '=', 2 for
// '-'), 0 for another line.
func setext(l string) int {
	if indentOf(l) > 3 {
		return 0
	}
	t := strings.TrimSpace(l)
	if t == "" || strings.Trim(t, string(t[0])) != "" {
		return 0
	}
	switch t[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}

// startsBlock reports whether t (its indent taken off) starts a block
// that ends a paragraph.
func startsBlock(t string) bool {
	if t == "" {
		return false
	}
	if _, _, _, ok := fenceOpen(t); ok {
		return true
	}
	if _, _, ok := atxHeading(t); ok {
		return true
	}
	if isRule(t) || t[0] == '>' {
		return true
	}
	if m, _, ok := listItem(t); ok {
		// Only a list that starts at 1 interrupts a paragraph, as in
		// CommonMark ("in 2023. we" stays text).
		return m[0] < '0' || m[0] > '9' || strings.HasPrefix(m, "1.") || strings.HasPrefix(m, "1)")
	}
	return false
}

// listItem reads a list item's marker at the start of t: the marker
// ("-", "3.") and the column its content starts at.
func listItem(t string) (marker string, content int, ok bool) {
	n := 0
	switch {
	case t == "":
		return "", 0, false
	case t[0] == '-' || t[0] == '*' || t[0] == '+':
		n = 1
	default:
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(t) || (t[n] != '.' && t[n] != ')') {
			return "", 0, false
		}
		n++
	}
	if n == len(t) {
		return t, n + 1, true // an empty item
	}
	if t[n] != ' ' {
		return "", 0, false
	}
	sp := indentOf(t[n:])
	if sp > 4 || n+sp == len(t) {
		sp = 1
	}
	return t[:n], n + sp, true
}

// list lays out the list starting at lines[0] and returns its lines and
// how many input lines it took.
func (r *renderer) list(lines []string, width, depth int) ([]string, int) {
	var out []string
	i := 0
	num := -1
	ordered := false
	for i < len(lines) {
		line := lines[i]
		ind := indentOf(line)
		if ind > 3 {
			break
		}
		marker, content, ok := listItem(line[ind:])
		if !ok {
			break
		}
		isNum := marker[0] >= '0' && marker[0] <= '9'
		if i > 0 && isNum != ordered {
			break // another list
		}
		ordered = isNum
		content += ind
		item := []string{line[min(content, len(line)):]}
		j := i + 1
		for j < len(lines) {
			l := lines[j]
			switch {
			case isBlank(l):
				// A blank line stays in the item when the item goes on.
				k := j
				for k < len(lines) && isBlank(lines[k]) {
					k++
				}
				if k < len(lines) && indentOf(lines[k]) >= content {
					item = append(item, "")
					j++
					continue
				}
				goto itemEnd
			case indentOf(l) >= content:
				item = append(item, cutIndent(l, content))
			case !isBlank(item[len(item)-1]) && !startsBlock(strings.TrimLeft(l, " ")) && !isNumberedItem(l):
				item = append(item, strings.TrimLeft(l, " ")) // a lazy continuation
			default:
				goto itemEnd
			}
			j++
		}
	itemEnd:
		var mark string
		if ordered {
			if num < 0 {
				num, _ = strconv.Atoi(marker[:len(marker)-1])
			}
			mark = strconv.Itoa(num) + marker[len(marker)-1:] + " "
			num++
		} else {
			mark = [...]string{"• ", "◦ ", "▪ "}[r.listDepth%3]
		}
		mw := textWidth(mark)
		r.listDepth++
		inner := r.blocks(item, width-mw, depth+1)
		r.listDepth--
		if len(inner) == 0 {
			inner = []string{""}
		}
		pad := strings.Repeat(" ", mw)
		for k, l := range inner {
			switch {
			case k == 0:
				out = append(out, r.st.Paint(Accent, mark)+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, pad+l)
			}
		}
		// Items are separated only when the source separated them.
		i = j
		for i < len(lines) && isBlank(lines[i]) {
			i++
		}
		if i < len(lines) && i > j {
			if _, _, ok := listItem(strings.TrimLeft(lines[i], " ")); !ok || indentOf(lines[i]) > 3 {
				i = j
				break
			}
			out = append(out, "")
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out, i
}

// isNumberedItem reports whether l starts an ordered list item.
func isNumberedItem(l string) bool {
	m, _, ok := listItem(strings.TrimLeft(l, " "))
	return ok && m[0] >= '0' && m[0] <= '9'
}

// heading lays out a heading's text.
func (r *renderer) heading(text string, level, width int) []string {
	spans := parseInline(text)
	for k := range spans {
		if spans[k].c < numInline {
			spans[k].c |= Heading
		}
	}
	return r.st.wrap(spans, width)
}

// code lays out a code block: each line two cells in, never wrapped, cut
// with a "…" at the width; highlighted when the fence names a language the
// highlighter knows.
func (r *renderer) code(lines []string, info string, width int) []string {
	l, known := langOf(info)
	cw := max(width-2, 2)
	out := make([]string, 0, len(lines))
	var b strings.Builder
	state := inCode
	for _, line := range lines {
		b.Reset()
		b.WriteString("  ")
		cut := false
		if textWidth(line) > cw {
			line, _ = cutWidth(line, cw-1)
			cut = true
		}
		if known {
			state = r.st.highlight(&b, l, line, state)
		} else {
			b.WriteString(line)
		}
		if cut {
			r.st.paintTo(&b, Dim, "…")
		}
		out = append(out, b.String())
	}
	if len(out) == 0 {
		out = append(out, "  ")
	}
	return out
}
