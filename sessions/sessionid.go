package sessions

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxAgentSessionIDBytes is the longest session id a harness may give a
// chat (agent_session_id), in bytes. Real agents use a UUID (36 bytes) or
// a short prefixed token; the bound keeps a hostile one from filling lists
// and file names.
const MaxAgentSessionIDBytes = 256

// AgentSessionIDProblem returns why id cannot be kept as a chat's
// agent_session_id, or "" when it can. The id comes from a harness (an ACP
// agent's answer to session/new, load or fork, or a harness's own files) or
// from a chat file, and becomes part of a file name (Claude Code's
// <id>.jsonl), an argument (--resume ID) and a line on the screen; so it must
// be valid UTF-8, 1 to MaxAgentSessionIDBytes bytes of printable characters
// (no control character, no escape sequence, no format character such as a
// bidirectional override), hold no "/" or "\" and no "..", and not start
// with "-" (it would read as an option where it is an argument).
func AgentSessionIDProblem(id string) string {
	switch {
	case id == "":
		return "is empty"
	case len(id) > MaxAgentSessionIDBytes:
		return fmt.Sprintf("is %d bytes, at most %d", len(id), MaxAgentSessionIDBytes)
	case !utf8.ValidString(id):
		return "is not valid UTF-8"
	}
	if i := strings.IndexFunc(id, func(r rune) bool { return !unicode.IsPrint(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return fmt.Sprintf("has a character that is not printable (%U)", r)
	}
	switch {
	case strings.ContainsAny(id, `/\`):
		return `has a "/" or "\": it is used in file names`
	case strings.Contains(id, ".."):
		return `has "..": it is used in file names`
	case id == ".":
		return `is ".": it is used in file names`
	case strings.HasPrefix(id, "-"):
		return `starts with "-": it would read as an option`
	}
	return ""
}

// CheckAgentSessionID returns an error saying why id cannot be kept as a
// chat's agent_session_id (see AgentSessionIDProblem), quoting it with
// every control character escaped, or nil.
func CheckAgentSessionID(id string) error {
	if reason := AgentSessionIDProblem(id); reason != "" {
		return fmt.Errorf("session id %s %s", QuoteAgentText(id), reason)
	}
	return nil
}

// QuoteAgentText quotes text that came from a harness for an error message:
// Go-quoted, so no control character or escape sequence reaches a terminal,
// and cut to about 200 bytes.
func QuoteAgentText(s string) string {
	return fmt.Sprintf("%+q", clip(s))
}
