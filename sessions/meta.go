// Package sessions holds the chat model, the shared folder validator and the
// TOML store of chats under the agent home. It knows nothing of the TUI or the
// mux. A chat as the server's socket and `--json` carry it (proto.ChatJSON)
// and each entry a refusal names (proto.FolderProblem) are the protocol's
// types: this package makes them.
package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/acpmux/acpmux-tui/proto"
)

// FormatVersion is the version of the chat file format this build writes.
const FormatVersion = 1

// Origins a chat can come from, kept in Meta.Origin.
const (
	OriginFork    = "fork"
	OriginSide    = "side"
	OriginHandoff = "handoff"
	OriginImport  = "import"
	// OriginACP is a chat an ACP client made through the door (session/new
	// on `acpmux-tui acp` or on the socket).
	OriginACP = "acp"
)

// ValidID reports whether id is usable as a chat id and so as a file name:
// 1 to 64 of [a-z0-9-], never "." or "..". A loop, not a regular
// expression: `ls` asks it of every chat file (a regexp's match was 3 % of
// its CPU at 1,000 chats, compiling it 1 %).
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Meta is one chat's metadata, the contents of chats/<id>.toml.
type Meta struct {
	Version int    `toml:"version"`
	ID      string `toml:"id"`
	Name    string `toml:"name"`
	// Title is the title the chat's agent gave its session (an ACP
	// session_info_update), cleaned and bounded as it came in (AgentTitle);
	// "" when it gave none. The user's Name wins where set (Label).
	Title                 string   `toml:"title,omitempty"`
	Harness               string   `toml:"harness"`
	Cwd                   string   `toml:"cwd"`
	AdditionalDirectories []string `toml:"additional_directories"`
	// AdditionalFiles are the single files the chat sees besides its
	// folders: validated like them (Store.ValidateFiles), regular files.
	AdditionalFiles []string  `toml:"additional_files,omitempty"`
	Created         time.Time `toml:"created"`
	Parent          string    `toml:"parent,omitempty"`
	Origin          string    `toml:"origin,omitempty"`
	AgentSessionID  string    `toml:"agent_session_id,omitempty"`
	// FoldersVia is the way folders reached the harness at its last start
	// (argv, env, acp, flag or note), whether or not it had folders then;
	// empty before the first start.
	FoldersVia string `toml:"folders_via,omitempty"`
	// FilesVia is the way the chat's single files reached the harness at
	// its last start: "acp" (resource_link blocks, served by fs/*), "flag"
	// (a note in a system-prompt flag, and the env), or "env"
	// (ACPMUX_ADDITIONAL_FILES only); empty before a start with files.
	FilesVia string `toml:"files_via,omitempty"`
	// Capsule is set on a chat whose first message is a capsule of its
	// parent's conversation (a handoff, or a fork on a harness with no
	// native fork): chats/<id>.handoff.md, then .handoff.sent.md once sent.
	Capsule bool `toml:"capsule,omitempty"`
	// Baseline is what the chat's folders were at its first start.
	Baseline *Baseline `toml:"baseline,omitempty"`
	// Worktree is the git worktree made for the chat (its cwd), if any.
	Worktree *Worktree `toml:"worktree,omitempty"`
	// Sandbox is set on a sandboxed chat: its harness starts under
	// Landlock, writing only in its folders, its files, its scratch
	// folder and the harness's own state (harness.Spec.Bound).
	Sandbox bool `toml:"sandbox,omitempty"`
	// ContextUsed and ContextSize are the tokens in the chat's context
	// and its window's size, Cost and CostCurrency the cost of its session
	// so far, as its agent (usage_update) or its harness's session log last
	// said them: the chat's usage (Usage), kept so that `usage` counts a
	// chat after its server has ended. Zero and "" when never said.
	ContextUsed  int64   `toml:"context_used,omitzero"`
	ContextSize  int64   `toml:"context_size,omitzero"`
	Cost         float64 `toml:"cost,omitzero"`
	CostCurrency string  `toml:"cost_currency,omitempty"`

	// extra holds keys this version does not know, kept on rewrite.
	extra map[string]any
}

var knownKeys = map[string]bool{
	"version": true, "id": true, "name": true, "title": true, "harness": true, "cwd": true,
	"additional_directories": true, "additional_files": true, "created": true, "parent": true,
	"origin": true, "agent_session_id": true, "folders_via": true, "files_via": true, "capsule": true,
	"baseline": true, "worktree": true, "sandbox": true,
	"context_used": true, "context_size": true, "cost": true, "cost_currency": true,
}

// foldersVias are the values folders_via may hold.
var foldersVias = []string{"argv", "env", "acp", "flag", "note"}

// filesVias are the values files_via may hold.
var filesVias = []string{"acp", "flag", "env"}

// Clone returns a deep copy of m.
func (m *Meta) Clone() *Meta {
	c := *m
	c.AdditionalDirectories = append([]string(nil), m.AdditionalDirectories...)
	c.AdditionalFiles = append([]string(nil), m.AdditionalFiles...)
	c.Baseline = m.Baseline.Clone()
	if m.Worktree != nil {
		w := *m.Worktree
		c.Worktree = &w
	}
	if m.extra != nil {
		c.extra = make(map[string]any, len(m.extra))
		for k, v := range m.extra {
			c.extra[k] = v
		}
	}
	return &c
}

// ExtraKeys returns the names of the keys kept from a newer version.
func (m *Meta) ExtraKeys() []string {
	keys := make([]string, 0, len(m.extra))
	for k := range m.extra {
		keys = append(keys, k)
	}
	return keys
}

// ParseMeta reads a chat file's bytes. It checks the shape of every known key
// and keeps unknown ones; it never touches the file system. Text over
// MaxChatFileBytes, text with a NUL byte and text nested deeper than the
// parser can safely recurse are refused before they reach the TOML parser.
func ParseMeta(data []byte) (*Meta, error) {
	if len(data) > MaxChatFileBytes {
		return nil, sizeError(int64(len(data)))
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, fmt.Errorf("NUL byte at offset %d: not a TOML text file", i)
	}
	if err := checkNesting(data); err != nil {
		return nil, err
	}
	// The files this store writes are decoded without the TOML parser;
	// anything else goes through it (fastmeta.go).
	m, ok := decodeCanonical(data)
	if !ok {
		var err error
		if m, err = decodeTOML(data); err != nil {
			return nil, err
		}
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeTOML decodes a chat file with the TOML parser, keeping the keys it
// does not know; it does not check the chat's rules.
func decodeTOML(data []byte) (*Meta, error) {
	text := string(data)
	var m Meta
	md, err := toml.Decode(text, &m)
	if err != nil {
		return nil, clipError{err}
	}
	if err := oneSpellingEach(md.Keys()); err != nil {
		return nil, clipError{err}
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		var all map[string]any
		if _, err := toml.Decode(text, &all); err != nil {
			return nil, clipError{err}
		}
		for k, v := range all {
			// A known key spelt in another case (the only spelling in
			// the file: oneSpellingEach) was decoded into its field; kept
			// too, a rewrite would write it twice.
			if !knownKeys[strings.ToLower(k)] {
				if m.extra == nil {
					m.extra = map[string]any{}
				}
				m.extra[k] = v
			}
		}
	}
	return &m, nil
}

// oneSpellingEach refuses two keys that differ only in case (`iD` and
// `id`): the TOML parser fills Meta's fields without regard to case, in an
// order of its own, so which of the two a field held would change from one
// read of the file to the next. A table a dotted key or header makes
// without naming it (`re` of `[re.p]`) counts as a key: a rewrite names
// it, and would then clash with a `[Re]` the file had.
func oneSpellingEach(keys []toml.Key) error {
	seen := make(map[string]string, len(keys))
	for _, k := range keys {
		for n := 1; n <= len(k); n++ {
			key := k[:n].String()
			folded := strings.ToLower(key)
			if prev, ok := seen[folded]; ok && prev != key {
				return fmt.Errorf("keys %q and %q differ only in case: one of them must go", prev, key)
			}
			seen[folded] = key
		}
	}
	return nil
}

// maxErrorBytes bounds the text of a parse error: the TOML parser quotes the
// last key it read, and a key may be a megabyte long.
const maxErrorBytes = 1024

// clipError keeps the parser's error, its text cut in the middle to about
// maxErrorBytes: the head says where, the tail says what went wrong.
type clipError struct{ err error }

func (e clipError) Error() string {
	msg := e.err.Error()
	if len(msg) <= maxErrorBytes {
		return msg
	}
	head := cutAtRune(msg, maxErrorBytes/2)
	from := len(msg) - maxErrorBytes/2
	for from < len(msg) && !utf8.RuneStart(msg[from]) {
		from++
	}
	return fmt.Sprintf("%s…(%d bytes cut)…%s", head, from-len(head), msg[from:])
}

func (e clipError) Unwrap() error { return e.err }

// MaxNameBytes is the longest chat name, in bytes. A name is one line of
// text shown in lists, so it is bounded and holds no control characters.
const MaxNameBytes = 1024

// FitName returns base followed by suffix, with base cut on a character
// boundary (and marked "…") when the whole would pass MaxNameBytes: the name
// of a chat derived from another, "base · fork", stays a valid name however
// long base is.
func FitName(base, suffix string) string {
	if len(base)+len(suffix) <= MaxNameBytes {
		return base + suffix
	}
	const mark = "…"
	if room := MaxNameBytes - len(suffix) - len(mark); room >= 0 {
		return cutAtRune(base, room) + mark + suffix
	}
	return cutAtRune(suffix, MaxNameBytes)
}

// cutAtRune returns s cut to at most n bytes, on a character boundary.
func cutAtRune(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// check verifies what every stored chat must satisfy.
func (m *Meta) check() error {
	switch {
	case m.Version == 0:
		return errors.New("missing key version")
	case m.Version > FormatVersion:
		return fmt.Errorf("version %d is newer than this acpmux-tui reads (%d)", m.Version, FormatVersion)
	case m.Version < 0:
		return fmt.Errorf("bad version %d", m.Version)
	case !ValidID(m.ID):
		return fmt.Errorf("bad id %q: want 1-64 of [a-z0-9-]", clip(m.ID))
	case m.Harness == "":
		return errors.New("missing key harness")
	case m.Cwd == "" || !filepath.IsAbs(m.Cwd):
		return fmt.Errorf("cwd %q is not an absolute path", clip(m.Cwd))
	case len(m.AdditionalDirectories) > MaxFolders:
		return fmt.Errorf("%d additional_directories, at most %d", len(m.AdditionalDirectories), MaxFolders)
	}
	for i, d := range m.AdditionalDirectories {
		if reason := syntaxProblem(d); reason != "" {
			return fmt.Errorf("additional_directories[%d] %q: %s", i, clip(d), reason)
		}
	}
	if len(m.AdditionalFiles) > MaxFiles {
		return fmt.Errorf("%d additional_files, at most %d", len(m.AdditionalFiles), MaxFiles)
	}
	for i, f := range m.AdditionalFiles {
		if reason := syntaxProblem(f); reason != "" {
			return fmt.Errorf("additional_files[%d] %q: %s", i, clip(f), reason)
		}
	}
	// TOML holds only UTF-8: a name with other bytes would make a file that
	// no longer parses.
	for _, kv := range [...][2]string{{"name", m.Name}, {"title", m.Title}, {"harness", m.Harness}, {"parent", m.Parent}, {"agent_session_id", m.AgentSessionID}} {
		if !utf8.ValidString(kv[1]) {
			return fmt.Errorf("%s %q is not valid UTF-8", kv[0], clip(kv[1]))
		}
	}
	if reason := nameProblem(m.Name); reason != "" {
		return errors.New(reason)
	}
	if reason := titleProblem(m.Title); reason != "" {
		return errors.New(reason)
	}
	if m.AgentSessionID != "" {
		if reason := AgentSessionIDProblem(m.AgentSessionID); reason != "" {
			return fmt.Errorf("agent_session_id %s %s", QuoteAgentText(m.AgentSessionID), reason)
		}
	}
	switch m.Origin {
	case "", OriginFork, OriginSide, OriginHandoff, OriginImport, OriginACP:
	default:
		return fmt.Errorf("unknown origin %q", clip(m.Origin))
	}
	if m.FoldersVia != "" && !slices.Contains(foldersVias, m.FoldersVia) {
		return fmt.Errorf("folders_via %q is not one of %s", clip(m.FoldersVia), strings.Join(foldersVias, ", "))
	}
	if m.FilesVia != "" && !slices.Contains(filesVias, m.FilesVia) {
		return fmt.Errorf("files_via %q is not one of %s", clip(m.FilesVia), strings.Join(filesVias, ", "))
	}
	if err := m.checkUsage(); err != nil {
		return err
	}
	if err := m.Baseline.check(); err != nil {
		return err
	}
	if m.Worktree != nil {
		return m.Worktree.check()
	}
	return nil
}

// Marshal writes m as TOML: the known keys in the order of
// docs/chat-files.md, then any keys kept from a newer version.
func (m *Meta) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	c := *m
	if c.AdditionalDirectories == nil {
		c.AdditionalDirectories = []string{}
	}
	c.Created = c.Created.UTC()
	// The tables go last, after the kept keys: a plain key written after a
	// table header would land inside that table.
	c.Baseline = nil
	c.Worktree = nil
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode chat %s: %w", m.ID, err)
	}
	if len(m.extra) > 0 {
		if err := enc.Encode(m.extra); err != nil {
			return nil, fmt.Errorf("encode chat %s: kept keys: %w", m.ID, err)
		}
	}
	if m.Baseline != nil {
		if err := enc.Encode(struct {
			Baseline *Baseline `toml:"baseline"`
		}{m.Baseline}); err != nil {
			return nil, fmt.Errorf("encode chat %s: baseline: %w", m.ID, err)
		}
	}
	if m.Worktree != nil {
		if err := enc.Encode(map[string]*Worktree{"worktree": m.Worktree}); err != nil {
			return nil, fmt.Errorf("encode chat %s: worktree: %w", m.ID, err)
		}
	}
	if b := buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// JSON returns the entry as printed by `--json`; status and foldersVia come
// from the mux and the harness table.
func (e Entry) JSON(status, foldersVia string) proto.ChatJSON {
	j := proto.ChatJSON{ID: e.ID, AdditionalDirectories: []string{}, AdditionalFiles: []string{}, Status: status, FoldersVia: foldersVia}
	if e.Broken != nil {
		j.Broken = e.Broken.Error()
		j.Status = "broken"
		return j
	}
	m := e.Meta
	j.Name, j.Title, j.Harness, j.Cwd = m.Name, m.Title, m.Harness, m.Cwd
	j.AdditionalDirectories = append(j.AdditionalDirectories, m.AdditionalDirectories...)
	j.AdditionalFiles = append(j.AdditionalFiles, m.AdditionalFiles...)
	j.FilesVia = "none"
	if len(m.AdditionalFiles) > 0 {
		// Empty until the first start with files says how they went.
		j.FilesVia = m.FilesVia
	}
	j.Parent, j.Origin, j.AgentSessionID = m.Parent, m.Origin, m.AgentSessionID
	j.NoProject, j.HasCapsule = e.NoProject, m.Capsule
	j.Worktree = m.Worktree.JSON()
	j.Baseline = m.Baseline.JSON()
	j.Created = m.Created.UTC().Format(time.RFC3339)
	j.Usage = m.Usage()
	return j
}
