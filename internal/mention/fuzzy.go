package mention

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the fuzzy matcher of mentions, as Zed's mentions match: the
// query's characters must appear in the candidate in order (a
// subsequence, case folded), and a match scores higher for runs of
// contiguous characters, for characters at the start of a path segment or
// word, and for falling in the file's base name. It is a few loops over
// the candidate, so twenty thousand paths filter within a key press.

// Bonuses of Score. A run bonus grows with the run, so "pars" in
// "parser.go" beats "p…a…r…s" spread over a long path.
const (
	scoreMatch    = 1  // each matched character
	scoreRun      = 4  // each character right after the previous match
	scoreBoundary = 6  // a character at the start of a segment or word
	scoreBase     = 2  // a character inside the base name
	scoreBaseAll  = 12 // the whole query inside the base name
	scoreBaseHead = 20 // the base name starts with the query
)

// Score scores candidate for query: ok is false when query is not a
// subsequence of candidate (case folded). An empty query matches all
// with score 0. Higher is better; ties are left to the caller.
func Score(query, candidate string) (score int, ok bool) {
	return match(Query(query), NewTarget(candidate))
}

// Query is a query made ready for matching: its runes, case folded.
func Query(query string) []rune { return []rune(strings.ToLower(query)) }

// Target is a candidate made ready for matching once: its runes case
// folded and where its base name starts. A listing keeps one per file, so
// a key press filters without allocating.
type Target struct {
	runes []rune
	base  int
}

// NewTarget makes candidate ready for matching.
func NewTarget(candidate string) Target {
	c := []rune(strings.ToLower(candidate))
	base := 0
	for i, r := range c {
		if r == '/' && i+1 < len(c) {
			base = i + 1
		}
	}
	return Target{c, base}
}

// match is Score of a folded query q (Query) and a target.
func match(q []rune, t Target) (score int, ok bool) {
	if len(q) == 0 {
		return 0, true
	}
	c, base := t.runes, t.base
	if !isSubsequence(q, c) {
		return 0, false
	}
	// Two alignments: the query matched from the start of the base name
	// (when it fits there: the match users mean most), and from the start
	// of the path. The better one counts.
	best := -1
	if s, ok := bestAlign(q, c, base, base); ok {
		best = s + scoreBaseAll
		if hasRunePrefix(c[base:], q) {
			best += scoreBaseHead
		}
	}
	if s, ok := bestAlign(q, c, 0, base); ok && s > best {
		best = s
	}
	return best, true
}

// isSubsequence reports whether q's runes appear in c in order.
func isSubsequence(q, c []rune) bool {
	i := 0
	for _, r := range c {
		if r == q[i] {
			i++
			if i == len(q) {
				return true
			}
		}
	}
	return false
}

func hasRunePrefix(s, prefix []rune) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

// alignScore matches q in c from position from, each character at its
// earliest place after the previous one or, with prefer, at a later place
// in the same segment that continues a run or starts a segment; base is
// where the base name starts.
func alignScore(q, c []rune, from, base int, prefer bool) (int, bool) {
	score, prev := 0, -2
	i := from
	for _, r := range q {
		at := -1
		for j := i; j < len(c); j++ {
			if c[j] == r {
				if at < 0 {
					at = j
				}
				if !prefer || j == prev+1 || boundaryAt(c, j) {
					at = j
					break
				}
			}
			if at >= 0 && isSep(c[j]) {
				break
			}
		}
		if at < 0 {
			return 0, false
		}
		score += scoreMatch
		if at == prev+1 {
			score += scoreRun
		}
		if boundaryAt(c, at) {
			score += scoreBoundary
		}
		if at >= base {
			score += scoreBase
		}
		prev, i = at, at+1
	}
	return score, true
}

// bestAlign is alignScore with places preferred, else (when preferring
// spent a character the rest needed) the plain earliest match.
func bestAlign(q, c []rune, from, base int) (int, bool) {
	if s, ok := alignScore(q, c, from, base, true); ok {
		return s, true
	}
	return alignScore(q, c, from, base, false)
}

// boundaryAt reports whether c[j] starts a segment or word: the path's
// first character, or one after a separator.
func boundaryAt(c []rune, j int) bool {
	return j == 0 || isSep(c[j-1])
}

func isSep(r rune) bool {
	return r == '/' || r == '_' || r == '-' || r == '.' || r == ' ' || !(unicode.IsLetter(r) || unicode.IsDigit(r))
}

// HasPrefixFold reports whether s starts with prefix, case folded.
func HasPrefixFold(s, prefix string) bool {
	if len(prefix) > len(s) {
		return false
	}
	// Byte lengths may differ under folding for a few scripts; compare
	// rune by rune.
	for prefix != "" {
		pr, pn := utf8.DecodeRuneInString(prefix)
		sr, sn := utf8.DecodeRuneInString(s)
		if sn == 0 || unicode.ToLower(pr) != unicode.ToLower(sr) {
			return false
		}
		prefix, s = prefix[pn:], s[sn:]
	}
	return true
}
