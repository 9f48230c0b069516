package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// span is a run of inline text in one class. A span "\n" is a hard line
// break.
type span struct {
	text string
	c    Class
}

// inliner parses a paragraph's inline markup. Each kind of delimiter
// remembers from where a search for its closer failed: no closer lies
// beyond, so later openers do not search again (a line of a thousand
// lone '*' stays linear).
type inliner struct {
	out []span
	// noCloser and noTick (by delimiter kind, by a backtick run's length)
	// are where a search for a closer failed: from that offset up to the
	// end of the text searched, there is none.
	noCloser [8]miss
	noTick   [17]miss
	// bracket is a ']' no '(' follows, and the '[' searched from: every
	// '[' between them finds it too.
	bracket miss
}

// miss is a failed search: no closer in the text from from to to.
type miss struct{ from, to int }

// covers reports whether a search from at to end would fail as m did.
func (m miss) covers(at, end int) bool { return m.to > 0 && at >= m.from && end <= m.to }

// delimiter kinds, for noCloser.
const (
	dStar2 = iota
	dUnder2
	dTilde2
	dStar
	dUnder
	dBracket
	dParen
)

func newInliner() *inliner {
	return &inliner{}
}

// parseInline returns the spans of s.
func parseInline(s string) []span {
	in := newInliner()
	in.parse(s, 0, 0)
	return in.out
}

// add appends text in class c, merged with the span before when both are
// alike.
func (in *inliner) add(text string, c Class) {
	if text == "" {
		return
	}
	if n := len(in.out); n > 0 && in.out[n-1].c == c && in.out[n-1].text != "\n" && text != "\n" {
		in.out[n-1].text += text
		return
	}
	in.out = append(in.out, span{text, c})
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

func isPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !isAlnum(b)
}

// parse reads s (at offset base of the text the failure marks count in)
// in class c.
func (in *inliner) parse(s string, base int, c Class) {
	start := 0
	flush := func(i int) {
		in.add(s[start:i], c)
	}
	for i := 0; i < len(s); {
		b := s[i]
		switch b {
		case '\\':
			// An escaped punctuation character is itself.
			if i+1 < len(s) && isPunct(s[i+1]) {
				flush(i)
				in.add(s[i+1:i+2], c)
				i += 2
				start = i
				continue
			}
		case '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			if end, ok := in.closeTicks(s, base, i+n, n); ok {
				flush(i)
				code := s[i+n : end]
				code = strings.ReplaceAll(code, "\n", " ")
				if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				in.add(code, c|Code)
				i = end + n
				start = i
				continue
			}
			i += n
			continue
		case '*', '_', '~':
			if j, k, inner, ok := in.emphasis(s, base, i, c); ok {
				flush(i)
				in.parse(s[i+k:j], base+i+k, c|inner)
				i = j + k
				start = i
				continue
			}
			// A run of the delimiter is text.
			n := 1
			for i+n < len(s) && s[i+n] == b {
				n++
			}
			i += n
			continue
		case '!', '[':
			img := b == '!'
			at := i
			if img {
				if i+1 >= len(s) || s[i+1] != '[' {
					break
				}
				at++
			}
			if text, url, end, ok := in.link(s, base, at); ok {
				flush(i)
				if img {
					in.add("image: ", c|Link)
				}
				if c&Link == 0 {
					in.parse(text, base+at+1, c|Link)
				} else {
					in.add(text, c)
				}
				if url != "" && url != text {
					in.add(" ("+url+")", Dim)
				}
				i = end
				start = i
				continue
			}
		case '<':
			// An autolink: <https://...>.
			if end := strings.IndexByte(s[i:min(len(s), i+maxAutolink)], '>'); end > 0 && isAutolink(s[i+1:i+end]) {
				flush(i)
				in.add(s[i+1:i+end], c|Link)
				i += end + 1
				start = i
				continue
			}
		case '\n':
			// A line ending in two spaces or a backslash breaks the line;
			// any other joins it to the next with a space.
			// (A backslash already taken as an escape is before start.)
			slash := i > start && s[i-1] == '\\'
			hard := i >= start+2 && s[i-1] == ' ' && s[i-2] == ' ' || slash
			end := i
			if slash {
				end--
			}
			in.add(strings.TrimRight(s[start:end], " "), c)
			if hard {
				in.add("\n", c)
			} else {
				in.add(" ", c)
			}
			i++
			start = i
			continue
		}
		i++
	}
	flush(len(s))
}

// closeTicks finds the run of exactly n backticks that closes a code span
// opened before from.
func (in *inliner) closeTicks(s string, base, from, n int) (int, bool) {
	if n >= len(in.noTick) {
		return 0, false
	}
	if in.noTick[n].covers(base+from, base+len(s)) {
		return 0, false
	}
	for j := from; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		j += k
		m := 1
		for j+m < len(s) && s[j+m] == '`' {
			m++
		}
		if m == n {
			return j, true
		}
		j += m
	}
	in.noTick[n] = miss{base + from, base + len(s)}
	return 0, false
}

// emphasis finds the closer of the delimiter at s[i] (**, __, ~~, *, _):
// the closer's offset j, the delimiter's length k and the class it adds.
// A delimiter opens when the next character is not a space; an underscore
// not inside a word; a class already in force is not opened again.
func (in *inliner) emphasis(s string, base, i int, c Class) (j, k int, add Class, ok bool) {
	b := s[i]
	double := i+1 < len(s) && s[i+1] == b
	var kind int
	switch {
	case b == '~' && double:
		k, add, kind = 2, Strike, dTilde2
	case b == '~':
		return 0, 0, 0, false
	case double && b == '*':
		k, add, kind = 2, Strong, dStar2
	case double:
		k, add, kind = 2, Strong, dUnder2
	case b == '*':
		k, add, kind = 1, Em, dStar
	default:
		k, add, kind = 1, Em, dUnder
	}
	if c&add != 0 || i+k >= len(s) || s[i+k] == ' ' || s[i+k] == '\n' {
		return 0, 0, 0, false
	}
	if b == '_' && i > 0 && isAlnum(s[i-1]) {
		return 0, 0, 0, false
	}
	if in.noCloser[kind].covers(base+i, base+len(s)) {
		return 0, 0, 0, false
	}
	delim := s[i : i+k]
	for j = i + k + 1; j+k <= len(s); j++ {
		x := strings.Index(s[j:], delim)
		if x < 0 {
			break
		}
		j += x
		prev := s[j-1]
		if prev == ' ' || prev == '\n' || prev == '\\' {
			continue
		}
		// A single delimiter is not the half of a double one.
		if k == 1 && j+1 < len(s) && s[j+1] == b {
			j++
			continue
		}
		if b == '_' && j+k < len(s) && isAlnum(s[j+k]) {
			continue
		}
		return j, k, add, true
	}
	in.noCloser[kind] = miss{base + i, base + len(s)}
	return 0, 0, 0, false
}

// link reads [text](url) at s[i] ('['): the text, the URL (its title
// left out) and the offset past it. The text holds no ']'.
func (in *inliner) link(s string, base, i int) (text, url string, end int, ok bool) {
	if in.noCloser[dBracket].covers(base+i, base+len(s)) {
		return "", "", 0, false
	}
	if in.bracket.to > 0 && base+i >= in.bracket.from && base+i < in.bracket.to {
		return "", "", 0, false
	}
	close := strings.IndexByte(s[i+1:], ']')
	if close < 0 {
		in.noCloser[dBracket] = miss{base + i, base + len(s)}
		return "", "", 0, false
	}
	close += i + 1
	if close+1 >= len(s) || s[close+1] != '(' {
		in.bracket = miss{base + i, base + close}
		return "", "", 0, false
	}
	if in.noCloser[dParen].covers(base+close, base+len(s)) {
		return "", "", 0, false
	}
	paren := strings.IndexByte(s[close+2:], ')')
	if paren < 0 {
		in.noCloser[dParen] = miss{base + close, base + len(s)}
		return "", "", 0, false
	}
	paren += close + 2
	url = strings.TrimSpace(s[close+2 : paren])
	if sp := strings.IndexAny(url, " \n"); sp >= 0 {
		url = url[:sp] // a title follows
	}
	url = strings.TrimSuffix(strings.TrimPrefix(url, "<"), ">")
	return s[i+1 : close], url, paren + 1, true
}

// maxAutolink bounds the search for an autolink's '>'.
const maxAutolink = 2048

// isAutolink reports whether s, between < and >, is a URL or an address.
func isAutolink(s string) bool {
	if s == "" || strings.ContainsAny(s, " <\n") {
		return false
	}
	for _, p := range [...]string{"http://", "https://", "mailto:", "ftp://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// piece is part of a word in one class.
type piece struct {
	text string
	c    Class
	w    int
}

// word is what wrapping never splits, unless it is wider than a line.
type word struct {
	pieces []piece
	w      int
	space  bool // a space before it
	brk    bool // a hard line break instead of a word
}

// words splits spans into words.
func words(spans []span) []word {
	var out []word
	var cur word
	space := false
	end := func() {
		if len(cur.pieces) > 0 {
			out = append(out, cur)
		}
		cur = word{}
	}
	for _, sp := range spans {
		if sp.text == "\n" {
			end()
			out = append(out, word{brk: true})
			space = false
			continue
		}
		t := sp.text
		for t != "" {
			if t[0] == ' ' {
				end()
				space = len(out) > 0
				t = strings.TrimLeft(t, " ")
				continue
			}
			n := strings.IndexByte(t, ' ')
			if n < 0 {
				n = len(t)
			}
			if len(cur.pieces) == 0 {
				cur.space = space
				space = false
			}
			w := textWidth(t[:n])
			cur.pieces = append(cur.pieces, piece{t[:n], sp.c, w})
			cur.w += w
			t = t[n:]
		}
	}
	end()
	return out
}

// textWidth is the cells text takes.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return runewidth.StringWidth(s)
		}
	}
	return len(s)
}

// wrap lays out spans in lines of at most width cells.
func (s *Styles) wrap(spans []span, width int) []string {
	width = max(width, 1)
	if s.seq(Strike).on == "" {
		spans = strikeMarks(spans)
	}
	var lines []string
	var b strings.Builder
	lw := 0
	newline := func() {
		lines = append(lines, b.String())
		b.Reset()
		lw = 0
	}
	for _, w := range words(spans) {
		if w.brk {
			newline()
			continue
		}
		need := w.w
		if lw > 0 && w.space {
			need++
		}
		if lw > 0 && lw+need > width {
			newline()
		} else if lw > 0 && w.space {
			b.WriteByte(' ')
			lw++
		}
		for _, p := range w.pieces {
			text := p.text
			for text != "" {
				if lw+textWidth(text) <= width {
					s.paintTo(&b, p.c, text)
					lw += textWidth(text)
					break
				}
				// Wider than what is left: cut it where the line ends.
				head, rest := cutWidth(text, width-lw)
				if head == "" && lw == 0 {
					head, rest = firstRune(text)
				}
				s.paintTo(&b, p.c, head)
				newline()
				text = rest
			}
		}
	}
	if lw > 0 || b.Len() > 0 || len(lines) == 0 {
		newline()
	}
	return lines
}

// cutWidth splits s at most w cells in.
func cutWidth(s string, w int) (string, string) {
	cells := 0
	for i, r := range s {
		rw := runewidth.RuneWidth(r)
		if cells+rw > w {
			return s[:i], s[i:]
		}
		cells += rw
	}
	return s, ""
}

func firstRune(s string) (string, string) {
	_, n := utf8.DecodeRuneInString(s)
	return s[:n], s[n:]
}

// plainText is the text of spans without their classes.
func plainText(spans []span) string {
	var b strings.Builder
	for _, sp := range spans {
		b.WriteString(sp.text)
	}
	return b.String()
}

// strikeMarks puts "~~" around each run of struck text, for a profile
// that cannot strike it through: struck-out words must not read as kept.
func strikeMarks(spans []span) []span {
	var out []span
	for i, sp := range spans {
		struck := sp.c&Strike != 0 && sp.text != "\n"
		before := i > 0 && spans[i-1].c&Strike != 0 && spans[i-1].text != "\n"
		after := i+1 < len(spans) && spans[i+1].c&Strike != 0 && spans[i+1].text != "\n"
		if !struck {
			out = append(out, sp)
			continue
		}
		if out == nil {
			out = append(make([]span, 0, len(spans)+2), spans[:i]...)
		}
		if !before {
			sp.text = "~~" + sp.text
		}
		if !after {
			sp.text += "~~"
		}
		out = append(out, sp)
	}
	if out == nil {
		return spans
	}
	return out
}
