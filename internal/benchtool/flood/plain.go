package flood

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// PlainLastLine is the last line of every plain flood, and found nowhere
// else in it: a screen that shows it has taken the whole file. It has no
// tab, so it reads the same in the file and on a screen.
const PlainLastLine = "// end of the plain flood"

// plainSeed is the plain flood's fixed seed.
const plainSeed = 44

// maxDepth is the deepest indentation, in tabs: 32 columns at 8-column
// tab stops, so with the longest statements no line passes 160 columns.
const maxDepth = 4

// The words the plain flood's names, strings and comments are made of.
var (
	plainNouns = []string{
		"chat", "folder", "session", "line", "screen", "buffer", "key", "value",
		"count", "offset", "limit", "name", "path", "entry", "store", "client",
		"server", "frame", "row", "cell", "width", "title", "status", "reply",
	}
	plainVerbs = []string{
		"load", "save", "read", "write", "parse", "check", "draw", "send",
		"open", "close", "find", "trim", "merge", "split", "wait", "start",
	}
	plainTypes = []string{
		"string", "int", "int64", "bool", "[]byte", "[]string", "error",
		"time.Duration", "map[string]int", "*Chat", "*Screen", "[]*Entry",
	}
	plainWords = []string{
		"the", "a", "each", "every", "before", "after", "until", "when", "so",
		"it", "is", "not", "once", "again", "here", "there", "what", "whole",
		"last", "first", "next", "its", "from", "into", "of", "to", "and",
	}
)

// plainGen writes the plain flood's lines.
type plainGen struct {
	rng  splitMix64
	bw   *bufio.Writer
	line []byte
	n    int64
	err  error
}

// WritePlain writes the plain flood, the second throughput input, to w:
// whole lines ("\n"-terminated) of Go-like source, as a coding agent prints
// files and diffs, in ASCII with tabs and spaces and no escape sequence,
// drawn by a fixed-seed generator, until at least size bytes are written,
// then PlainLastLine. It returns the number of bytes written, which depend
// only on size. No line is wider than 160 columns at 8-column tab stops.
// `benchtool flood-plain OUT [MB]` writes it to a file.
func WritePlain(w io.Writer, size int64) (int64, error) {
	g := &plainGen{rng: splitMix64{state: plainSeed}, bw: bufio.NewWriterSize(w, 1<<20), line: make([]byte, 0, 256)}
	g.put(0, "package ", g.noun())
	g.put(0)
	g.put(0, "import (")
	for _, p := range []string{`"errors"`, `"fmt"`, `"strings"`, `"time"`} {
		g.put(1, p)
	}
	g.put(0, ")")
	g.put(0)
	for g.n < size && g.err == nil {
		switch g.intn(6) {
		case 0:
			g.structType()
		case 1:
			g.constBlock()
		default:
			g.function()
		}
	}
	g.put(0, PlainLastLine)
	if g.err != nil {
		return g.n, g.err
	}
	return g.n, g.bw.Flush()
}

// put writes one line: depth tabs, then parts.
func (g *plainGen) put(depth int, parts ...string) {
	if g.err != nil {
		return
	}
	g.line = g.line[:0]
	for range depth {
		g.line = append(g.line, '\t')
	}
	for _, p := range parts {
		g.line = append(g.line, p...)
	}
	g.line = append(g.line, '\n')
	m, err := g.bw.Write(g.line)
	g.n += int64(m)
	g.err = err
}

func (g *plainGen) intn(n int) int         { return int(g.rng.next() % uint64(n)) }
func (g *plainGen) pick(s []string) string { return s[g.intn(len(s))] }
func (g *plainGen) noun() string           { return g.pick(plainNouns) }
func (g *plainGen) number() string         { return strconv.Itoa(g.intn(1000)) }

// name is a lower camel-case name of one or two nouns.
func (g *plainGen) name() string {
	if g.intn(2) == 0 {
		return g.noun()
	}
	return g.noun() + title(g.noun())
}

// exported is an exported name: a verb and a noun.
func (g *plainGen) exported() string { return title(g.pick(plainVerbs)) + title(g.noun()) }

// words is between lo and hi words of prose.
func (g *plainGen) words(lo, hi int) string {
	n := lo + g.intn(hi-lo+1)
	w := make([]string, n)
	for i := range w {
		if i%3 == 1 {
			w[i] = g.noun()
		} else {
			w[i] = g.pick(plainWords)
		}
	}
	return strings.Join(w, " ")
}

// comment writes one to three comment lines at depth.
func (g *plainGen) comment(depth int) {
	for range 1 + g.intn(3) {
		g.put(depth, "// ", g.words(4, 9))
	}
}

// function writes a commented function with a body of statements.
func (g *plainGen) function() {
	name := g.exported()
	recv, arg, argType := g.name(), g.name(), g.pick(plainTypes)
	g.put(0, "// ", name, " ", g.pick(plainVerbs), "s ", g.words(3, 7), ".")
	if g.intn(3) == 0 {
		g.comment(0)
	}
	g.put(0, "func (", recv[:1], " *", title(recv), ") ", name, "(", arg, " ", argType, ") (", g.pick(plainTypes), ", error) {")
	g.block(1, 3+g.intn(6))
	g.put(1, "return ", g.name(), ", nil")
	g.put(0, "}")
	g.put(0)
}

// block writes n statements at depth, nesting blocks no deeper than
// maxDepth.
func (g *plainGen) block(depth, n int) {
	for range n {
		kind := g.intn(9)
		if depth >= maxDepth && kind >= 5 {
			kind = g.intn(5)
		}
		switch kind {
		case 0:
			g.put(depth, g.name(), " := ", g.pick(plainVerbs), title(g.noun()), "(", g.name(), ", ", g.number(), ")")
		case 1:
			g.put(depth, g.name(), " += len(", g.name(), ") * ", g.number(), "  // ", g.words(3, 6))
		case 2:
			g.comment(depth)
		case 3:
			g.put(depth, g.name(), ".", g.exported(), "(", g.name(), ", \"", g.words(2, 5), "\")")
		case 4:
			g.put(0)
		case 5:
			g.put(depth, "if err := ", g.name(), ".", g.exported(), "(", g.name(), "); err != nil {")
			g.put(depth+1, "return nil, fmt.Errorf(\"", g.pick(plainVerbs), " ", g.noun(), " %s: %w\", ", g.name(), ", err)")
			g.put(depth, "}")
		case 6:
			g.put(depth, "for i, ", g.noun(), " := range ", g.name(), "s {")
			g.block(depth+1, 1+g.intn(3))
			g.put(depth, "}")
		case 7:
			g.put(depth, "switch ", g.name(), " {")
			for range 1 + g.intn(3) {
				g.put(depth, "case \"", g.noun(), "\", \"", g.noun(), "\":")
				g.block(depth+1, 1+g.intn(2))
			}
			g.put(depth, "default:")
			g.put(depth+1, "return nil, errors.New(\"", g.words(2, 6), "\")")
			g.put(depth, "}")
		default:
			g.put(depth, "if ", g.name(), " > ", g.number(), " && !", g.name(), " {")
			g.block(depth+1, 1+g.intn(2))
			g.put(depth, "}")
		}
	}
}

// structType writes a commented struct type whose fields and comments are
// aligned with spaces, as gofmt aligns them.
func (g *plainGen) structType() {
	name := title(g.name())
	g.put(0, "// ", name, " holds ", g.words(3, 8), ".")
	g.put(0, "type ", name, " struct {")
	n := 2 + g.intn(6)
	names, types := make([]string, n), make([]string, n)
	wn, wt := 0, 0
	for i := range n {
		names[i], types[i] = title(g.name()), g.pick(plainTypes)
		wn, wt = max(wn, len(names[i])), max(wt, len(types[i]))
	}
	for i := range n {
		g.put(1, pad(names[i], wn+1), pad(types[i], wt+1), "// ", g.words(2, 6))
	}
	g.put(0, "}")
	g.put(0)
}

// constBlock writes a const block whose "=" signs are aligned with spaces.
func (g *plainGen) constBlock() {
	g.put(0, "const (")
	n := 2 + g.intn(5)
	names := make([]string, n)
	w := 0
	for i := range n {
		names[i] = g.name() + title(g.pick(plainVerbs))
		w = max(w, len(names[i]))
	}
	for i := range n {
		g.put(1, pad(names[i], w+1), "= ", g.number())
	}
	g.put(0, ")")
	g.put(0)
}

// pad is s with spaces after it up to width bytes.
func pad(s string, width int) string { return s + strings.Repeat(" ", width-len(s)) }

// title is s with its first letter upper-case (the words are lower-case
// ASCII).
func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
