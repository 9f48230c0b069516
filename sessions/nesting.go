package sessions

import (
	"bytes"
	"fmt"
)

// maxNesting is the deepest a chat file may nest, counting each array, inline
// table and table-name bracket as one level and each dot in a key as one
// more. The TOML parser recurses once per level of arrays and inline tables
// (two megabytes of "[" overflow its stack, a fatal error no recover
// catches), and its work on one dotted key grows faster than the key (1,000
// parts take it most of a second, 10,000 over a minute), so deeper text is
// refused before it reaches the parser. A chat file written by acpmux-tui
// nests two levels deep.
const maxNesting = 32

// nestingError refuses text nested deeper than maxNesting.
func nestingError(line int) error {
	return fmt.Errorf("line %d: nested deeper than %d levels of arrays, tables and dotted keys", line, maxNesting)
}

// nestFrame is one open bracket: what it opens and how many levels it adds
// (one, plus the dots of the key whose value it is).
type nestFrame struct {
	kind   byte // '[' array, '{' inline table, 'h' table name
	levels int
}

// checkNesting refuses TOML text nested deeper than maxNesting, in one pass
// that reads the text as the parser's lexer does: a bracket or a dot inside a
// string or a comment is text, a dot in a value (1.5, a time's fraction) is
// not a level, and strings end where the lexer ends them (escapes in basic
// strings, up to two quotes just inside a multi-line string's closing
// delimiter). Where the text is not valid TOML the count may be off, but only
// after the point where the parser stops with its own error, so valid text is
// never refused below the limit, and text the parser would recurse through
// past the limit is always refused.
func checkNesting(data []byte) error {
	var (
		stack   [maxNesting + 1]nestFrame
		open    int    // frames on the stack
		levels  int    // levels of the open frames
		dots    int    // dots in the key being read
		keyDots int    // dots of the key whose value comes next, after "="
		inKey   = true // a key is read here (not a value)
		line    = 1
	)
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '#': // a comment, to the end of the line
			end := bytes.IndexAny(data[i:], "\r\n")
			if end < 0 {
				return nil
			}
			i += end
			continue
		case '"', '\'': // a string: a key or a value; its dots and brackets are text
			var lines int
			i, lines = skipString(data, i)
			line += lines
			continue
		case '\n':
			line++
			if open == 0 {
				inKey, dots, keyDots = true, 0, 0
			}
		case '=':
			keyDots, dots, inKey = dots, 0, false
		case ',':
			dots, keyDots = 0, 0
			inKey = open > 0 && stack[open-1].kind == '{'
		case '.':
			if inKey {
				dots++
				if levels+dots > maxNesting {
					return nestingError(line)
				}
			}
		case '[', '{':
			f := nestFrame{kind: c, levels: 1 + keyDots}
			if c == '[' && ((open == 0 && inKey) || (open > 0 && stack[open-1].kind == 'h')) {
				// "[table]" or "[[table]]": a table's name, a key.
				f = nestFrame{kind: 'h', levels: 1}
			}
			if levels+f.levels > maxNesting {
				return nestingError(line)
			}
			stack[open] = f
			open++
			levels += f.levels
			inKey = f.kind != '['
			dots, keyDots = 0, 0
		case ']', '}':
			if open > 0 {
				open--
				levels -= stack[open].levels
			}
			dots, keyDots, inKey = 0, 0, false
		}
		i++
	}
	return nil
}

// skipString returns the index just past the string that starts at data[i]
// (a quote) and the newlines inside it. A single-line string also ends at a
// newline, where the lexer stops with an error.
func skipString(data []byte, i int) (end, lines int) {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		// A multi-line string: it ends at the first run of three or more
		// quotes, after the whole run (up to two quotes are its text).
		for j := i + 3; j < len(data); j++ {
			switch data[j] {
			case '\\':
				if q == '"' {
					if j+1 < len(data) && data[j+1] == '\n' {
						lines++
					}
					j++ // an escaped character, a quote or a newline
				}
			case '\n':
				lines++
			case q:
				run := 1
				for j+run < len(data) && data[j+run] == q {
					run++
				}
				if run >= 3 {
					return j + run, lines
				}
				j += run - 1
			}
		}
		return len(data), lines
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case '\n':
			return j, lines
		case q:
			return j + 1, lines
		}
	}
	return len(data), lines
}
