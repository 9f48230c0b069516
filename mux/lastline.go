package mux

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/sandbox"
)

// This file chooses the line a pty harness printed that says why it
// ended (State.LastOutput): the summary quotes it and `show` prints it.
// The last line printed is often not that line: the real Claude Code,
// offline, prints "Unable to connect to Anthropic services" and "Failed to
// connect to api.anthropic.com: ENOTFOUND", then advice, then last a URL.

// whyWindow is how many of the last non-empty lines a run printed are
// looked at for the one that says why: its last words, not an error
// message the conversation showed long before.
const whyWindow = 8

// maxWhyRunes bounds the line kept, in characters: it is one line of a
// summary and of `show`.
const maxWhyRunes = 300

// errorWords are what a line that says why a program ended holds (matched
// lower-cased): error words, and the error codes Node and libc print.
var errorWords = []string{
	"error", "unable", "failed", "failure", "fatal", "panic", "exception",
	"cannot", "can't", "could not", "couldn't", "denied", "not found", "no such",
	"invalid", "refused", "unauthorized", "forbidden", "timed out", "not allowed",
	"enotfound", "econnrefused", "econnreset", "etimedout", "eai_again",
	"eacces", "eperm", "enoent", "ehostunreach", "enetunreach",
}

// urlLine is a line that is a link and nothing else.
var urlLine = regexp.MustCompile(`^(?:[a-z][a-z0-9+.-]*://|www\.)\S*$`)

// whyLine returns, of lines (what a run printed, top to bottom, each as
// plain text), the one that says why the run ended, cleaned to one line
// (cleanWhy): of the last whyWindow non-empty lines, the last that reads
// as an error (errorLike); else the last that is neither a bare link nor
// decoration (a rule, a box's edge); else the last non-empty line; "" when
// every line is empty.
func whyLine(lines []string) string {
	var tail []string // cleaned, last first
	for i := len(lines) - 1; i >= 0 && len(tail) < whyWindow; i-- {
		if l := cleanWhy(lines[i]); l != "" {
			tail = append(tail, l)
		}
	}
	if len(tail) == 0 {
		return ""
	}
	for _, l := range tail {
		if errorLike(l) {
			return l
		}
	}
	for _, l := range tail {
		if !urlLine.MatchString(l) && !decoration(l) {
			return l
		}
	}
	return tail[0]
}

// errorLike reports whether line reads as an error: the sandbox wrapper's
// refusal, or a line with an error word in it.
func errorLike(line string) bool {
	if strings.HasPrefix(line, sandbox.RefusedPrefix) {
		return true
	}
	lower := strings.ToLower(line)
	for _, w := range errorWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// decoration reports whether line has no letter or digit: a rule, a box's
// edge, a spinner, punctuation.
func decoration(line string) bool {
	return strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
}

// cleanWhy makes a screen line one line fit to keep and show: escape
// sequences, control and bidirectional characters taken out, a box's
// edges (│ … │) taken off, each run of blanks made one space, cut to
// maxWhyRunes characters (marked "…").
func cleanWhy(line string) string {
	line = strings.Map(func(r rune) rune {
		switch {
		case plaintext.IsBidi(r), unicode.IsControl(r):
			return -1
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, plaintext.Line(line))
	line = strings.TrimFunc(line, func(r rune) bool { return unicode.IsSpace(r) || boxEdge(r) })
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) <= maxWhyRunes {
		return line
	}
	n := 0
	for i := range line {
		if n == maxWhyRunes-1 {
			return strings.TrimSpace(line[:i]) + "…"
		}
		n++
	}
	return line
}

// boxEdge reports whether r draws a box (U+2500–U+257F) or a block
// (U+2580–U+259F): the frame a harness draws around a message.
func boxEdge(r rune) bool { return r >= 0x2500 && r <= 0x259f }
