package markdown

import "strings"

// A small highlighter of our own for the languages agents write most:
// keywords, strings, comments and numbers, a line at a time, with a block
// comment or a triple-quoted string carried to the next line. No lexer
// tables are built: each language is a few constant strings.

// lang is what the highlighter knows of a language.
type lang struct {
	keywords  string // space-separated, with a space at each end
	line      string // a line comment's opener ("//", "#"), "" for none
	block     bool   // /* block comments */
	backtick  bool   // `raw strings`
	triple    bool   // """triple-quoted strings"""
	yamlKeys  bool   // "key:" painted as a keyword
	diffLines bool   // whole lines by their first character
}

const (
	kwGo     = " break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota any error string int int64 uint8 byte rune bool float64 "
	kwPython = " and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False self "
	kwJS     = " async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while yield null undefined true false interface type enum implements readonly as "
	kwSh     = " if then else elif fi case esac for while until do done in function return local export set unset echo exit cd source true false "
	kwRust   = " as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err "
	kwC      = " auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while NULL true false bool "
	kwJSON   = " true false null "
	kwYAML   = " true false null yes no on off "
)

// langOf returns the language a fence's info string names, and whether it
// is one the highlighter knows.
func langOf(info string) (lang, bool) {
	switch strings.ToLower(info) {
	case "go", "golang":
		return lang{keywords: kwGo, line: "//", block: true, backtick: true}, true
	case "python", "py", "python3":
		return lang{keywords: kwPython, line: "#", triple: true}, true
	case "js", "javascript", "jsx", "mjs", "cjs", "ts", "typescript", "tsx":
		return lang{keywords: kwJS, line: "//", block: true, backtick: true}, true
	case "sh", "bash", "shell", "zsh", "console", "shell-session":
		return lang{keywords: kwSh, line: "#"}, true
	case "rust", "rs":
		return lang{keywords: kwRust, line: "//", block: true}, true
	case "c", "h", "cpp", "c++", "cc", "hpp":
		return lang{keywords: kwC, line: "//", block: true}, true
	case "json", "jsonc":
		return lang{keywords: kwJSON, line: "//"}, true
	case "yaml", "yml":
		return lang{keywords: kwYAML, line: "#", yamlKeys: true}, true
	case "diff", "patch":
		return lang{diffLines: true}, true
	}
	return lang{}, false
}

// hlState is what one line leaves open for the next.
type hlState uint8

const (
	inCode    hlState = iota
	inBlock           // inside /* */
	inTriple          // inside """ """
	inTriple1         // inside ''' '''
)

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// highlight writes line in l's colours to b and returns the state the
// next line starts in.
func (s *Styles) highlight(b *strings.Builder, l lang, line string, st hlState) hlState {
	if l.diffLines {
		c := Class(0)
		switch {
		case strings.HasPrefix(line, "@@"):
			c = Hunk
		case strings.HasPrefix(line, "+"):
			c = Added
		case strings.HasPrefix(line, "-"):
			c = Removed
		}
		s.paintTo(b, c, line)
		return inCode
	}
	i, start := 0, 0
	plain := func(end int) {
		b.WriteString(line[start:end])
	}
	// A state carried over first.
	switch st {
	case inBlock:
		end := strings.Index(line, "*/")
		if end < 0 {
			s.paintTo(b, Comment, line)
			return inBlock
		}
		s.paintTo(b, Comment, line[:end+2])
		i, start = end+2, end+2
	case inTriple, inTriple1:
		q := `"""`
		if st == inTriple1 {
			q = `'''`
		}
		end := strings.Index(line, q)
		if end < 0 {
			s.paintTo(b, String, line)
			return st
		}
		s.paintTo(b, String, line[:end+3])
		i, start = end+3, end+3
	}
	if l.yamlKeys {
		// key: value — the key painted.
		t := strings.TrimLeft(line[i:], " -")
		if k := strings.Index(t, ":"); k > 0 && !strings.ContainsAny(t[:k], " \"'#") {
			at := len(line) - len(t)
			plain(at)
			s.paintTo(b, Keyword, t[:k])
			i, start = at+k, at+k
		}
	}
	for i < len(line) {
		c := line[i]
		switch {
		case l.line != "" && strings.HasPrefix(line[i:], l.line) && (l.line != "#" || i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			plain(i)
			s.paintTo(b, Comment, line[i:])
			return inCode
		case l.block && strings.HasPrefix(line[i:], "/*"):
			plain(i)
			end := strings.Index(line[i+2:], "*/")
			if end < 0 {
				s.paintTo(b, Comment, line[i:])
				return inBlock
			}
			s.paintTo(b, Comment, line[i:i+2+end+2])
			i += 2 + end + 2
			start = i
		case l.triple && (strings.HasPrefix(line[i:], `"""`) || strings.HasPrefix(line[i:], `'''`)):
			plain(i)
			q := line[i : i+3]
			end := strings.Index(line[i+3:], q)
			if end < 0 {
				s.paintTo(b, String, line[i:])
				if q == `'''` {
					return inTriple1
				}
				return inTriple
			}
			s.paintTo(b, String, line[i:i+3+end+3])
			i += 3 + end + 3
			start = i
		case c == '"' || c == '\'' || c == '`' && l.backtick:
			plain(i)
			j := i + 1
			for j < len(line) && line[j] != c {
				if line[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(line))
			s.paintTo(b, String, line[i:j])
			i, start = j, j
		case c >= '0' && c <= '9' && (i == 0 || !isIdent(line[i-1])):
			plain(i)
			j := i + 1
			for j < len(line) && (isIdent(line[j]) || line[j] == '.') {
				j++
			}
			s.paintTo(b, Number, line[i:j])
			i, start = j, j
		case isIdent(c):
			j := i + 1
			for j < len(line) && isIdent(line[j]) {
				j++
			}
			if hasWord(l.keywords, line[i:j]) {
				plain(i)
				s.paintTo(b, Keyword, line[i:j])
				start = j
			}
			i = j
		default:
			i++
		}
	}
	plain(len(line))
	return inCode
}

// hasWord reports whether w is one of list's space-separated words (list
// starts and ends with a space).
func hasWord(list, w string) bool {
	for i := 0; i < len(list); {
		k := strings.Index(list[i:], w)
		if k < 0 {
			return false
		}
		k += i
		if k > 0 && list[k-1] == ' ' && k+len(w) < len(list) && list[k+len(w)] == ' ' {
			return true
		}
		i = k + 1
	}
	return false
}
