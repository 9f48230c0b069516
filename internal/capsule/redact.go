package capsule

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/acpmux/acpmux-tui/sessions"
)

// This file keeps credentials out of a capsule. What was said in a chat
// often holds a key the user pasted, a token a tool printed, or .env lines
// the agent repeated; a capsule hands all of it to another harness, so
// whatever looks like a credential is replaced before the capsule is
// stored by a mark that names its kind and keeps nothing of it:
// "[redacted:github-token]". The kind tells the reader and the next agent
// what stood there (which provider's key, which variable's value); even a
// prefix such as "sk-ant-" adds nothing the kind does not say, and keeping
// none means no mark ever holds a part of a secret.

// SecretKind names what a redacted credential looked like; it is the word
// in its mark.
type SecretKind string

// The kinds of credential redacted, in the order a summary lists them.
const (
	SecretPrivateKey  SecretKind = "private-key"         // a PEM private key block, whole
	SecretAnthropic   SecretKind = "anthropic-key"       // sk-ant-…
	SecretOpenAI      SecretKind = "openai-key"          // sk-…, sk-proj-…
	SecretGitHub      SecretKind = "github-token"        // ghp_ gho_ ghu_ ghs_ ghr_ github_pat_
	SecretGitLab      SecretKind = "gitlab-token"        // glpat- gldt- glrt- glptt- …
	SecretAWSKeyID    SecretKind = "aws-key-id"          // AKIA…, ASIA…
	SecretAWSSecret   SecretKind = "aws-secret-key"      // the value of aws_secret_access_key
	SecretGoogle      SecretKind = "google-api-key"      // AIza…
	SecretSlack       SecretKind = "slack-token"         // xoxa- xoxb- xoxp- xoxr- xoxs-
	SecretStripe      SecretKind = "stripe-key"          // sk_live_ rk_live_ (and _test_)
	SecretJWT         SecretKind = "jwt"                 // eyJ….eyJ….…
	SecretBearer      SecretKind = "bearer-token"        // Authorization: Bearer …
	SecretBasicAuth   SecretKind = "basic-auth"          // Authorization: Basic …
	SecretURLPassword SecretKind = "url-password"        // scheme://user:PASSWORD@host
	SecretValue       SecretKind = "secret-value"        // X_KEY=, X_TOKEN=, X_SECRET=, XPASSWORD=, DB_PASS=, pwd:
	SecretEntropy     SecretKind = "high-entropy-string" // a long random-looking run
)

// secretKinds lists every kind with the words a summary uses for one and
// for many.
var secretKinds = []struct {
	kind      SecretKind
	one, many string
}{
	{SecretPrivateKey, "private key", "private keys"},
	{SecretAnthropic, "Anthropic key", "Anthropic keys"},
	{SecretOpenAI, "OpenAI key", "OpenAI keys"},
	{SecretGitHub, "GitHub token", "GitHub tokens"},
	{SecretGitLab, "GitLab token", "GitLab tokens"},
	{SecretAWSKeyID, "AWS key id", "AWS key ids"},
	{SecretAWSSecret, "AWS secret key", "AWS secret keys"},
	{SecretGoogle, "Google API key", "Google API keys"},
	{SecretSlack, "Slack token", "Slack tokens"},
	{SecretStripe, "Stripe key", "Stripe keys"},
	{SecretJWT, "JWT", "JWTs"},
	{SecretBearer, "bearer token", "bearer tokens"},
	{SecretBasicAuth, "Basic auth credential", "Basic auth credentials"},
	{SecretURLPassword, "password in a URL", "passwords in URLs"},
	{SecretValue, "secret assignment", "secret assignments"},
	{SecretEntropy, "high-entropy string", "high-entropy strings"},
}

// markOpen starts every redaction mark; markClose ends it.
const markOpen, markClose = "[redacted:", "]"

// MarkOf returns the mark that stands in the text for a credential of kind.
func MarkOf(kind SecretKind) string { return markOpen + string(kind) + markClose }

// Redactions counts the credentials redacted in a text, by kind.
type Redactions map[SecretKind]int

// Total is the number of redactions of every kind.
func (r Redactions) Total() int {
	n := 0
	for _, c := range r {
		n += c
	}
	return n
}

// String says how many credentials were redacted and of which kinds:
// "3 redactions: 1 GitHub token, 2 secret assignments", or "no redactions".
func (r Redactions) String() string {
	total := r.Total()
	if total == 0 {
		return "no redactions"
	}
	var parts []string
	for _, k := range secretKinds {
		switch n := r[k.kind]; n {
		case 0:
		case 1:
			parts = append(parts, "1 "+k.one)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, k.many))
		}
	}
	word := "redactions"
	if total == 1 {
		word = "redaction"
	}
	return fmt.Sprintf("%d %s: %s", total, word, strings.Join(parts, ", "))
}

// Mark is one redaction mark found in a text: text[Start:End] is
// MarkOf(Kind).
type Mark struct {
	Kind       SecretKind
	Start, End int
}

// markRE finds the marks of the known kinds (an unknown word in brackets
// is just text), compiled on first use.
var markRE = sync.OnceValue(func() *regexp.Regexp {
	var kinds []string
	for _, k := range secretKinds {
		kinds = append(kinds, regexp.QuoteMeta(string(k.kind)))
	}
	return regexp.MustCompile(regexp.QuoteMeta(markOpen) + "(" + strings.Join(kinds, "|") + ")" + regexp.QuoteMeta(markClose))
})

// Marks finds every redaction mark in text, in order. It is how a capsule
// as stored (or as edited) says what was redacted: the count a user is
// shown is the count of marks in what is sent.
func Marks(text string) []Mark {
	if !strings.Contains(text, markOpen) {
		return nil
	}
	var marks []Mark
	for _, m := range markRE().FindAllStringSubmatchIndex(text, -1) {
		marks = append(marks, Mark{Kind: SecretKind(text[m[2]:m[3]]), Start: m[0], End: m[1]})
	}
	return marks
}

// CountMarks counts the redaction marks in text by kind.
func CountMarks(text string) Redactions {
	r := Redactions{}
	for _, m := range Marks(text) {
		r[m.Kind]++
	}
	return r
}

// maxRedactPasses bounds the passes of Redact: one replacement can join
// text into something a detector finds (rarely); a few passes settle it.
const maxRedactPasses = 4

// Redact replaces whatever in text looks like a credential with the mark
// of its kind and strips the bidirectional controls (sessions.StripBidi).
// A credential is found in what the text shows: characters shown as
// nothing (a zero-width space, a soft hyphen, invisible.go) do not hide
// one, and go with the credential they were in. It returns the new text
// and what it replaced. Redacting its result again changes nothing: no
// mark looks like a credential.
func Redact(text string) (string, Redactions) {
	text = sessions.StripBidi(text)
	counts := Redactions{}
	for range maxRedactPasses {
		out := text
		for _, find := range detectors {
			out = redactFound(out, find, counts)
		}
		if out == text {
			break
		}
		text = out
	}
	return text, counts
}

// redactFound marks in text what find finds in what text shows.
func redactFound(text string, find func(string) []span, counts Redactions) string {
	s := shown(text)
	spans := find(s.text)
	for i := range spans {
		spans[i] = s.original(spans[i])
	}
	return replaceSpans(text, spans, counts)
}

// span is a credential found at text[start:end].
type span struct {
	start, end int
	kind       SecretKind
}

// replaceSpans puts marks in place of spans (sorted, not overlapping) and
// counts them.
func replaceSpans(text string, spans []span, counts Redactions) string {
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, s := range spans {
		if s.start < at {
			continue
		}
		b.WriteString(text[at:s.start])
		b.WriteString(MarkOf(s.kind))
		counts[s.kind]++
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String()
}
