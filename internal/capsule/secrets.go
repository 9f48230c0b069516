package capsule

import (
	"bytes"
	"encoding/base64"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/lazyre"
)

// This file holds the detectors of Redact: what a credential looks like,
// kind by kind, and what is left alone.

// detectors find credentials, most specific first; each runs on the text
// the ones before it left, so a key already marked is not found again as
// a random string.
var detectors = []func(string) []span{
	findPrivateKeys,
	findAssignments,
	findTokens,
	findBearer,
	findBasicAuth,
	findURLPasswords,
	findHighEntropy,
}

// Private key blocks.

var (
	pemBeginRE = lazyre.New(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	pemEndRE   = lazyre.New(`-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

// pemSpan bounds how far a private key's END line is looked for: the
// largest keys in use are a few KiB.
const pemSpan = 32 << 10

// findPrivateKeys finds private key blocks, from BEGIN to END whole; a
// block cut before its END (a clipped message) is marked from its BEGIN
// line through the base64 lines after it.
func findPrivateKeys(text string) []span {
	if !strings.Contains(text, "PRIVATE KEY") {
		return nil
	}
	ends := pemEndRE().FindAllStringIndex(text, -1) // found once: many BEGINs cost no more
	var spans []span
	for at := 0; at < len(text); {
		loc := pemBeginRE().FindStringIndex(text[at:])
		if loc == nil {
			break
		}
		start, end := at+loc[0], at+loc[1]
		i := sort.Search(len(ends), func(i int) bool { return ends[i][0] >= end })
		if i < len(ends) && ends[i][1]-end <= pemSpan {
			end = ends[i][1]
		} else {
			end = pemBodyEnd(text, end)
		}
		spans = append(spans, span{start, end, SecretPrivateKey})
		at = end
	}
	return spans
}

// pemBodyEnd extends a BEGIN line with no END over what follows it that
// looks like a key's body: base64 (and escaped newlines, "\n", for a key
// quoted in JSON) on its own line, and the lines after it that are only
// base64, each perhaps behind a Markdown quote's "> ".
func pemBodyEnd(text string, i int) int {
	for i < len(text) && isPEMByte(text[i]) {
		i++
	}
	for i < len(text) && text[i] == '\n' {
		line := text[i+1:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		body := strings.TrimLeft(line, "> \t")
		if body == "" || strings.TrimLeft(body, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
			break
		}
		i += 1 + len(line)
	}
	return i
}

func isPEMByte(c byte) bool {
	return isAlnum(c) || c == '+' || c == '/' || c == '=' || c == '\\'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Provider tokens.

// tokenRule finds one provider's credentials; shape, when set, is what
// the part after the prefix must be (a word with a prefix like "sk-" is
// common in prose and code).
type tokenRule struct {
	kind   SecretKind
	hints  []string              // one of these is in every match: a cheap test first
	re     func() *regexp.Regexp // compiled on first use
	prefix int                   // bytes of the fixed prefix, for shape
	shape  func(rest string) bool
}

// tokenRules find the provider keys and tokens. An "sk-ant-" key is Anthropic's whatever its length: the Anthropic rule
// takes every one the OpenAI rule would (sk- and 20 more), and the OpenAI
// rule takes none (two rules that find the same span keep the first).
var tokenRules = []tokenRule{
	{SecretAnthropic, []string{"sk-ant-"}, lazyre.New(`\bsk-ant-[A-Za-z0-9_-]{16,}`), 7, nil},
	{SecretOpenAI, []string{"sk-"}, lazyre.New(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), 3, notAnthropic},
	{SecretGitHub, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, lazyre.New(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`), 4, nil},
	{SecretGitHub, []string{"github_pat_"}, lazyre.New(`\bgithub_pat_[A-Za-z0-9_]{30,}\b`), 11, nil},
	// GitLab's prefixes: personal, OAuth application, deploy, runner,
	// CI/CD job, trigger, feed, incoming mail, agent, SCIM and feature
	// flag tokens; the newer ones carry dot-separated parts.
	{SecretGitLab, []string{"glpat-", "gloas-", "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-", "glsoat-", "glffct-"},
		lazyre.New(`\bgl(?:pat|oas|dt|rt|cbt|ptt|ft|imt|agent|soat|ffct)-[0-9A-Za-z_-]{20,}(?:\.[0-9A-Za-z_-]+)*`), 0, notWords},
	{SecretAWSKeyID, []string{"AKIA", "ASIA"}, lazyre.New(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`), 4, nil},
	{SecretGoogle, []string{"AIza"}, lazyre.New(`\bAIza[0-9A-Za-z_-]{35,}`), 4, nil},
	{SecretSlack, []string{"xox"}, lazyre.New(`\bxox[abprs]-[0-9A-Za-z-]{10,}`), 5, nil},
	{SecretStripe, []string{"k_live_", "k_test_"}, lazyre.New(`\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}\b`), 8, nil},
	{SecretJWT, []string{"eyJ"}, lazyre.New(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), 0, nil},
}

// notAnthropic is the OpenAI rule's test of what follows "sk-": random
// (mixedClasses), and not Anthropic's "ant-".
func notAnthropic(rest string) bool {
	return !strings.HasPrefix(rest, "ant-") && mixedClasses(rest)
}

// notWords is true of a token that has two of digits, lower- and
// upper-case letters: a random one almost always does (all but a few in a
// million of 20 characters), a hyphenated name of lower-case words never.
func notWords(s string) bool {
	var digit, lower, upper int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = 1
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		}
	}
	return digit+lower+upper >= 2
}

// hinted reports whether text holds one of hints.
func hinted(text string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(text, h) {
			return true
		}
	}
	return false
}

// findTokens finds provider keys and tokens by their prefixes.
func findTokens(text string) []span {
	var spans []span
	for _, r := range tokenRules {
		if !hinted(text, r.hints) {
			continue
		}
		for _, loc := range r.re().FindAllStringIndex(text, -1) {
			if r.shape != nil && !r.shape(text[loc[0]+r.prefix:loc[1]]) {
				continue
			}
			spans = append(spans, span{loc[0], loc[1], r.kind})
		}
	}
	return sortSpans(spans)
}

// tokenKind reports the provider kind of a value that is one token whole.
func tokenKind(v string) (SecretKind, bool) {
	for _, s := range findTokens(v) {
		if s.start == 0 && s.end == len(v) {
			return s.kind, true
		}
	}
	return "", false
}

// sortSpans orders spans and drops those inside or across an earlier one;
// of two spans with the same bounds, the one found first stays (the rules
// are in order, most specific first).
func sortSpans(spans []span) []span {
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	out := spans[:0]
	end := 0
	for _, s := range spans {
		if s.start >= end {
			out = append(out, s)
			end = s.end
		}
	}
	return out
}

// mixedClasses reports whether s has a digit, a lower-case and an
// upper-case letter, as a random key almost always does and a
// hyphenated-words name almost never.
func mixedClasses(s string) bool {
	var digit, lower, upper bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		digit = digit || c >= '0' && c <= '9'
		lower = lower || c >= 'a' && c <= 'z'
		upper = upper || c >= 'A' && c <= 'Z'
	}
	return digit && lower && upper
}

// Bearer tokens and passwords in URLs.

var (
	bearerRE      = lazyre.New(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{16,})`)
	urlPasswordRE = lazyre.New(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@\[\]]*:([^\s/@\[\]]+)@`)
)

// findBearer finds the token after "Bearer" (an Authorization header in a
// curl command); the word stays.
func findBearer(text string) []span {
	if !hinted(text, []string{"earer", "EARER"}) {
		return nil
	}
	return groupSpans(text, bearerRE(), SecretBearer)
}

// basicRE finds the credentials after "Basic": base64 of "user:password".
var basicRE = lazyre.New(`(?i)\bbasic[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9+/=_-]|$)`)

// findBasicAuth finds the credentials of HTTP's Basic scheme, base64 of
// "user:password" (the word stays): on a line that names an Authorization
// header (`curl -H "Authorization: Basic …"`, a header dump, JSON), or
// anywhere when they decode to a user and a password. "basic" is a common
// word: what follows it in a sentence is neither.
func findBasicAuth(text string) []span {
	if !hinted(text, []string{"asic", "ASIC"}) {
		return nil
	}
	var spans []span
	for _, m := range basicRE().FindAllStringSubmatchIndex(text, -1) {
		start, end := m[2], m[3]
		if strings.Contains(lineBefore(text, m[0]), "authorization") || userPassword(text[start:end]) {
			spans = append(spans, span{start, end, SecretBasicAuth})
		}
	}
	return spans
}

// lineBefore is the text of the line of text before i, lower case, at
// most its last 256 bytes (a header's name is near its value).
func lineBefore(text string, i int) string {
	line := text[max(0, i-256):i]
	return strings.ToLower(line[strings.LastIndexByte(line, '\n')+1:])
}

// userPassword reports whether s is base64 of printable "user:password".
func userPassword(s string) bool {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
			return false
		}
	}
	colon := bytes.IndexByte(raw, ':')
	if colon <= 0 || colon == len(raw)-1 {
		return false
	}
	for _, c := range raw {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// findURLPasswords finds the password of scheme://user:password@host; the
// user and host stay. A password that is a placeholder
// (`https://user:password@example.com` in a manual) stays too.
func findURLPasswords(text string) []span {
	if !strings.Contains(text, "://") {
		return nil
	}
	spans := groupSpans(text, urlPasswordRE(), SecretURLPassword)
	out := spans[:0]
	for _, s := range spans {
		if !placeholderWords[strings.ToLower(text[s.start:s.end])] {
			out = append(out, s)
		}
	}
	return out
}

// placeholderWords are what manuals write where a secret goes.
var placeholderWords = map[string]bool{
	"password": true, "pass": true, "passwd": true, "pwd": true, "secret": true, "token": true,
	"changeme": true, "example": true, "xxx": true, "xxxx": true, "xxxxxx": true, "xxxxxxxx": true,
}

// groupSpans marks the first group of each match of re.
func groupSpans(text string, re *regexp.Regexp, kind SecretKind) []span {
	var spans []span
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		if strings.Contains(text[m[2]:m[3]], markOpen) {
			continue
		}
		spans = append(spans, span{m[2], m[3], kind})
	}
	return spans
}

// Long random strings.

// minEntropyRun is the shortest run of base64 or hex characters that may
// be taken for a random secret.
const minEntropyRun = 32

// findHighEntropy finds long runs of base64-like characters that look
// random: no credential prefix, but the shape of one (a secret access key,
// a session cookie, a webhook secret). It keeps false positives low:
//   - a run of hex digits (and hyphens) is never redacted: a git commit, a
//     UUID, a checksum look just like a hex secret, and a capsule needs them;
//   - the run must mix digits, lower- and upper-case letters;
//   - its Shannon entropy, in bits per character, must be close to that of
//     random text of its length (entropyFloor), which words, paths and
//     identifiers are not;
//   - most of it must not be lower-case words (a CamelCase or snake_case
//     identifier, a path).
func findHighEntropy(text string) []span {
	var spans []span
	for i := 0; i < len(text); {
		if !isRunByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isRunByte(text[j]) {
			j++
		}
		spans = append(spans, randomRuns(text, i, j)...)
		i = j
	}
	return spans
}

// randomRuns applies the rules to the run text[i:j]. A run with a word
// between two slashes (`/src/`, `/blob/`) is a path or a URL: each of its
// parts is judged alone, so a commit id in a link is not taken for a key
// with the words around it; a base64 secret's slashes stand between
// random parts, and it is judged whole.
func randomRuns(text string, i, j int) []span {
	if j-i < minEntropyRun {
		return nil
	}
	run := text[i:j]
	if strings.IndexByte(run, '/') >= 0 && hasWordSegment(run) {
		var spans []span
		for k := i; k < j; {
			e := strings.IndexByte(text[k:j], '/')
			if e < 0 {
				e = j - k
			}
			if seg := strings.TrimRight(text[k:k+e], "="); len(seg) >= minEntropyRun && randomLooking(seg) {
				spans = append(spans, span{k, k + e, SecretEntropy})
			}
			k += e + 1
		}
		return spans
	}
	if seg := strings.TrimRight(run, "="); len(seg) >= minEntropyRun && randomLooking(seg) {
		return []span{{i, j, SecretEntropy}}
	}
	return nil
}

// hasWordSegment reports whether one of the slash-separated parts of run
// is a lower-case word of three letters or more.
func hasWordSegment(run string) bool {
	for _, seg := range strings.Split(run, "/") {
		if len(seg) >= 3 && strings.Trim(seg, "abcdefghijklmnopqrstuvwxyz_-") == "" {
			return true
		}
	}
	return false
}

// isRunByte is a character of base64 (standard or URL-safe) or hex.
func isRunByte(c byte) bool {
	return isAlnum(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

// checksumPrefixes start a Subresource Integrity checksum (a package
// lock's "integrity"): base64 of a hash, public like a hex digest.
var checksumPrefixes = []string{"sha1-", "sha256-", "sha384-", "sha512-"}

// randomLooking applies findHighEntropy's rules to one run.
func randomLooking(run string) bool {
	for _, p := range checksumPrefixes {
		if strings.HasPrefix(run, p) {
			return false
		}
	}
	hex := true
	for i := 0; i < len(run); i++ {
		c := run[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			hex = false
			break
		}
	}
	if hex || !mixedClasses(run) {
		return false
	}
	if shannon(run) < entropyFloor(len(run)) {
		return false
	}
	return wordShare(run) < 0.7
}

// entropyFloor is the least entropy a random run of n characters is taken
// to have: random base64 of 32 characters measures about 4.5 bits a
// character (a few in a hundred under 4.3), of 40 about 4.8; English words,
// paths and identifiers measure 3.9 to 4.3.
func entropyFloor(n int) float64 {
	switch {
	case n < 40:
		return 4.2
	case n < 64:
		return 4.35
	}
	return 4.5
}

// shannon is the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// wordShare is the share of s in words: runs of three lower-case letters
// or more, or of an upper-case letter and two or more (CamelCase). It is
// 0.75 and up for identifiers made of words (BetaMemoryTool20250818View,
// TestRedact_each_kind_2); random base64 is 0.3 on average and under 0.7
// in more than 99 in 100.
func wordShare(s string) float64 {
	inWords := 0
	for i := 0; i < len(s); {
		j := i
		if s[j] >= 'A' && s[j] <= 'Z' {
			j++
		}
		k := j
		for k < len(s) && s[k] >= 'a' && s[k] <= 'z' {
			k++
		}
		switch lower := k - j; {
		case lower >= 3, lower == 2 && j > i:
			inWords += k - i
		}
		if k == i {
			k++
		}
		i = k
	}
	return float64(inWords) / float64(len(s))
}
