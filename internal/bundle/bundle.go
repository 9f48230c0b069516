// Package bundle reads and writes one chat's bundle, the tar.gz file that
// `acpmux-tui export` writes and `acpmux-tui import` reads.
//
// A bundle holds, in this order: manifest.json (first, at most 1 MiB),
// chat.toml (the chat's TOML file as stored), then zero or more
// conversation/<name> files. The manifest lists every member after it, in
// order. A bundle is outside input: Unpack refuses anything else, streams
// each member to disk with a bounded buffer, counts what it unpacks against
// Limits, and writes only inside the staging folder it is given.
package bundle

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/internal/lazyre"
	"github.com/acpmux/acpmux-tui/sessions"
)

// FormatVersion is the bundle format this acpmux-tui writes and the newest it
// reads.
const FormatVersion = 1

// MaxManifestBytes is the largest manifest.json Unpack reads (1 MiB).
const MaxManifestBytes = 1 << 20

// Member names that have a fixed meaning.
const (
	// ManifestName is the first member: the Manifest as JSON.
	ManifestName = "manifest.json"
	// ChatName is the chat's TOML file as stored.
	ChatName = "chat.toml"
	// ConversationDir is the folder every conversation file lives in.
	ConversationDir = "conversation"
)

// Conventional conversation member names.
const (
	// SessionMember is a Claude Code or Codex session file, byte for byte.
	SessionMember = "conversation/session.jsonl"
	// TranscriptMember is an ACP chat's transcript, one JSON object per line.
	TranscriptMember = "conversation/transcript.jsonl"
	// CapsuleMember is a capsule text: the first message on the other side.
	CapsuleMember = "conversation/capsule.md"
	// ScrollbackMember is a pty chat's scrollback as plain text.
	ScrollbackMember = "conversation/scrollback.txt"
)

// ConversationKind says how a conversation comes over: exactly (the other
// side resumes it), as a capsule (a first message), or not at all.
type ConversationKind string

// The conversation kinds a manifest may name.
const (
	KindExact   ConversationKind = "exact"
	KindCapsule ConversationKind = "capsule"
	KindNone    ConversationKind = "none"
)

// Source says what the conversation/ members hold.
type Source = string

// The sources a manifest may name; SourceNone goes with KindNone.
const (
	SourceClaudeSession Source = "claude-session"
	SourceCodexSession  Source = "codex-session"
	SourceACPTranscript Source = "acp-transcript"
	SourceScrollback    Source = "scrollback"
	SourceNone          Source = ""
)

// Manifest is manifest.json, the first member of a bundle.
type Manifest struct {
	// Format is FormatVersion; a newer one is refused.
	Format int `json:"format"`
	// Producer is "acpmux-tui <version>".
	Producer string `json:"producer"`
	// Host is os.Hostname() where the bundle was exported.
	Host string `json:"host"`
	// Exported is when the bundle was written.
	Exported time.Time `json:"exported"`
	// ChatID is the exported chat's id; it must satisfy sessions.ValidID.
	ChatID string `json:"chatId"`
	// Harness is the chat's harness name.
	Harness string `json:"harness"`
	// Conversation says how the conversation comes over.
	Conversation ConversationKind `json:"conversation"`
	// Source says what conversation/ holds.
	Source Source `json:"source"`
	// Notes are sentences for the report, e.g. that an ACP turn was in
	// progress and the export stopped at its last complete update.
	Notes []string `json:"notes,omitempty"`
	// Members names every member after the manifest, in order: chat.toml
	// first, then the conversation files.
	Members []string `json:"members"`
	// NoProject is set when the chat ran in its own homes/<id> folder, not
	// a project: an import gives it a fresh home folder of its own.
	NoProject bool `json:"noProject,omitempty"`
}

// Limits bound what Unpack accepts: the number of tar members (the manifest
// and a conversation/ folder entry included), the bytes of any one member,
// and the bytes of all members together. The sizes are counted while
// copying, never taken from the tar headers alone. A zero field takes
// DefaultLimits' value.
type Limits struct {
	Members     int
	MemberBytes int64
	TotalBytes  int64
}

// DefaultLimits are the limits an import uses.
var DefaultLimits = Limits{Members: 16, MemberBytes: 512 << 20, TotalBytes: 512 << 20}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	if l.Members <= 0 {
		l.Members = DefaultLimits.Members
	}
	if l.MemberBytes <= 0 {
		l.MemberBytes = DefaultLimits.MemberBytes
	}
	if l.TotalBytes <= 0 {
		l.TotalBytes = DefaultLimits.TotalBytes
	}
	return l
}

// Error is a refused bundle: the member it is about (empty when the refusal
// is about the bundle as a whole) and the reason, in words for a user.
type Error struct {
	// Member is the tar member's name as found (shortened if very long).
	Member string
	// Reason says why, e.g. "climbing name refused".
	Reason string
	// Err is the underlying error, if any.
	Err error
}

// Error returns `bundle member "NAME": REASON`, or the reason alone when no
// member is named.
func (e *Error) Error() string {
	if e.Member == "" {
		return e.Reason
	}
	return fmt.Sprintf("bundle member %q: %s", e.Member, e.Reason)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// maxShownName is how much of a hostile member name an error repeats.
const maxShownName = 200

// refuse returns an *Error about member.
func refuse(member, reason string, err error) *Error {
	if len(member) > maxShownName {
		member = member[:maxShownName] + "…"
	}
	return &Error{Member: member, Reason: reason, Err: err}
}

// conversationName is the rule for the <name> in conversation/<name>.
var conversationName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkName says why name may not be a member of a bundle, or "" if it may:
// manifest.json, chat.toml or conversation/<name>.
func checkName(name string) string {
	if why := unsafeName(name); why != "" {
		return why
	}
	return allowedName(name)
}

// unsafeName says why name could reach outside the folder it is unpacked
// in or mean another name on another system, or "" if it cannot. These
// reasons come before any other, so a user hears about the worst of a
// hostile name.
func unsafeName(name string) string {
	switch {
	case name == "":
		return "empty name refused"
	case strings.IndexByte(name, 0) >= 0:
		return "NUL byte in name refused"
	case strings.IndexByte(name, '\\') >= 0:
		return "backslash in name refused"
	case strings.HasPrefix(name, "/"):
		return "absolute name refused"
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "climbing name refused"
		}
	}
	return ""
}

// allowedName says why name, already safe, is not one a bundle may hold, or
// "" if it is.
func allowedName(name string) string {
	if name == ManifestName || name == ChatName {
		return ""
	}
	if rest, ok := strings.CutPrefix(name, ConversationDir+"/"); ok && conversationName().MatchString(rest) {
		return ""
	}
	return "name not allowed (a bundle holds manifest.json, chat.toml and conversation/NAME, NAME of [A-Za-z0-9._-], at most 64)"
}

// isConversationDir reports whether name is the one folder entry a bundle
// may hold, as tar tools write it.
func isConversationDir(name string) bool {
	return name == ConversationDir || name == ConversationDir+"/"
}

// checkManifest refuses a manifest this acpmux-tui cannot read or that
// breaks the format's rules; it allows at most maxMembers members after
// the manifest.
func checkManifest(m *Manifest, maxMembers int) error {
	if m.Format > FormatVersion {
		return refuse("", fmt.Sprintf("bundle format %d is newer than this acpmux-tui reads (%d): update acpmux-tui", m.Format, FormatVersion), nil)
	}
	if m.Format < 1 {
		return refuse(ManifestName, fmt.Sprintf("format %d is not a bundle format (this acpmux-tui reads %d)", m.Format, FormatVersion), nil)
	}
	if !sessions.ValidID(m.ChatID) {
		return refuse(ManifestName, fmt.Sprintf("chatId %s is not a chat id (1 to 64 of a-z, 0-9 and -)", quoteShort(m.ChatID)), nil)
	}
	switch m.Conversation {
	case KindExact, KindCapsule, KindNone:
	default:
		return refuse(ManifestName, fmt.Sprintf("conversation %s is not exact, capsule or none", quoteShort(string(m.Conversation))), nil)
	}
	switch m.Source {
	case SourceClaudeSession, SourceCodexSession, SourceACPTranscript, SourceScrollback, SourceNone:
	default:
		return refuse(ManifestName, fmt.Sprintf("source %s is not one this acpmux-tui knows", quoteShort(m.Source)), nil)
	}
	if len(m.Members) > maxMembers {
		return refuse(ManifestName, fmt.Sprintf("lists %d members, over the limit of %d", len(m.Members), maxMembers), nil)
	}
	if len(m.Members) == 0 || m.Members[0] != ChatName {
		return refuse(ManifestName, "members must start with chat.toml (missing chat.toml)", nil)
	}
	seen := make(map[string]bool, len(m.Members))
	for i, name := range m.Members {
		if why := checkName(name); why != "" {
			return refuse(ManifestName, fmt.Sprintf("members[%d] %s: %s", i, quoteShort(name), why), nil)
		}
		if name == ManifestName {
			return refuse(ManifestName, fmt.Sprintf("members[%d] lists manifest.json, which is only first", i), nil)
		}
		if i > 0 && name == ChatName {
			return refuse(ManifestName, fmt.Sprintf("members[%d] lists chat.toml again", i), nil)
		}
		if seen[name] {
			return refuse(ManifestName, fmt.Sprintf("members[%d] %s is listed twice", i, quoteShort(name)), nil)
		}
		seen[name] = true
	}
	return nil
}

// quoteShort quotes s for an error, shortened if very long.
func quoteShort(s string) string {
	if len(s) > maxShownName {
		s = s[:maxShownName] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// encodeManifest is the manifest.json member's bytes.
func encodeManifest(m *Manifest) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode bundle manifest: %w", err)
	}
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("encode bundle manifest: %d bytes, over the 1 MiB limit", len(data))
	}
	return data, nil
}
