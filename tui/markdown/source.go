package markdown

import "strings"

// This file reads a message's source without laying it out: where a
// streamed message may be laid out in two parts, and its code blocks (what
// a copy of one takes).

// Split returns the last offset at or after from where src divides into
// two parts that Render lays out, one under the other with a blank line
// between, as it lays out the whole (src clean, as plaintext.Foreign leaves
// it: an escape sequence cut in two would read otherwise): the start of a complete line, after a
// blank line, outside any code fence, that starts a block of its own (at
// the margin, and not a list item, a quote or a setext underline that
// could belong to what is above). from must be such an offset, or 0. A
// streamed message is laid out once up to its last split and again only
// past it as chunks arrive.
func Split(src string, from int) int {
	best := from
	inFence, blank := false, false
	var fch byte
	var fn int
	for i := from; i < len(src); {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			break // the last line may still grow
		}
		line := src[i : i+j]
		next := i + j + 1
		switch {
		case inFence:
			if fenceClose(line, fch, fn) {
				inFence = false
			}
			blank = false
		case isBlank(line):
			blank = true
		default:
			if blank && startsOwnBlock(line) {
				best = i
			}
			if ch, n, _, ok := fenceOpen(strings.TrimLeft(line, " ")); ok && indentOf(line) <= 3 {
				inFence, fch, fn = true, ch, n
			}
			blank = false
		}
		i = next
	}
	return best
}

// startsOwnBlock reports whether line, after a blank line, starts a block
// that nothing above can take in.
func startsOwnBlock(line string) bool {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return false
	}
	switch c := line[0]; {
	case c == '-' || c == '*' || c == '+' || c == '>' || c == '=' || c == '|' || c >= '0' && c <= '9':
		return false
	}
	return true
}

// CodeBlocks returns the text of each fenced code block of src, in order,
// as the source holds it (its fence lines left out, its indent kept as
// the fence's was taken off): what a copy of a code block takes.
func CodeBlocks(src string) []string {
	var out []string
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		ind := indentOf(lines[i])
		ch, n, _, ok := fenceOpen(lines[i][ind:])
		if !ok {
			continue
		}
		var code []string
		j := i + 1
		for j < len(lines) && !fenceClose(strings.TrimLeft(lines[j], " "), ch, n) {
			code = append(code, cutIndent(lines[j], ind))
			j++
		}
		out = append(out, strings.Join(code, "\n"))
		i = j
	}
	return out
}
