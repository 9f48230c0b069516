// Package transfer moves one chat between agent homes and machines: Export
// writes its bundle (internal/bundle) with the conversation in the best form
// there is, and Import reads one back under the guard, so that a bundle
// never widens what a chat sees nor writes outside the agent home and the
// one session folder its harness reads. The commands (`export`, `import`)
// and the server's `_acpmux/export` and `_acpmux/import` both use it.
package transfer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Live is what a running server holds of a chat at the moment of an export:
// an ACP chat's transcript (each entry as its last complete update left it)
// and whether a turn was running, or a pty chat's scrollback as plain lines.
type Live struct {
	Transcript  []proto.Entry
	Lines       []string
	TurnRunning bool
}

// ExportOptions is what an export needs besides the chat.
type ExportOptions struct {
	// Store is the agent home the chat is in.
	Store *sessions.Store
	// Table is the harness table: how the chat's harness keeps its
	// conversation.
	Table *harness.Table
	// Getenv finds the harness's session logs (HOME, CLAUDE_CONFIG_DIR,
	// CODEX_HOME), as capsule.Env reads them.
	Getenv func(string) string
	// Live is what a running server holds of the chat; nil when none runs
	// it.
	Live *Live
	// Version is acpmux-tui's version, for the manifest's producer.
	Version string
}

// NoteTurnCut is the note of an export taken while an ACP turn ran.
const NoteTurnCut = "an ACP turn was in progress: exported up to its last complete update"

// member is one conversation file of a bundle to be: its name, its size
// and how to read exactly that many bytes.
type member struct {
	name string
	size int64
	open func() (io.ReadCloser, error)
}

// conversation is what an export carries of the chat's conversation.
type conversation struct {
	kind    bundle.ConversationKind
	source  bundle.Source
	members []member
	notes   []string
}

// Export writes chat's bundle to w, streaming each member (a 50 MB session
// log is never held whole), and says what it wrote. Path in the report is
// left for the caller.
func Export(w io.Writer, chat *sessions.Meta, opt ExportOptions) (proto.ExportReport, error) {
	host, _ := os.Hostname()
	rep := proto.ExportReport{ID: chat.ID, Name: chat.Name, Host: host, Notes: []string{}}
	data, err := chat.Marshal()
	if err != nil {
		return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	conv := gatherConversation(chat, opt)
	names := []string{bundle.ChatName}
	for _, m := range conv.members {
		names = append(names, m.name)
	}
	man := bundle.Manifest{
		Format: bundle.FormatVersion, Producer: "acpmux-tui " + opt.Version, Host: host,
		Exported: time.Now().UTC(), ChatID: chat.ID, Harness: chat.Harness,
		Conversation: conv.kind, Source: conv.source, Notes: conv.notes, Members: names,
		NoProject: opt.Store.NoProject(chat),
	}
	cw := &countingWriter{w: w}
	bw, err := bundle.NewWriter(cw, man)
	if err != nil {
		return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	if err := bw.Add(bundle.ChatName, int64(len(data)), strings.NewReader(string(data))); err != nil {
		return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	for _, m := range conv.members {
		if err := addMember(bw, m); err != nil {
			return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
		}
	}
	if err := bw.Close(); err != nil {
		return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	rep.Bytes = cw.n
	rep.Conversation, rep.Source = string(conv.kind), conv.source
	rep.Notes = append(rep.Notes, conv.notes...)
	if note := worktreeWorkNote(chat.Worktree); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	return rep, nil
}

// NoteWorkStaysBehind starts the note of an export whose chat's worktree
// holds work: a bundle carries the chat and its conversation, never its
// worktree's files nor its branch.
const NoteWorkStaysBehind = "the work in its git worktree stays behind (the bundle does not carry it)"

// maxWorkShown bounds the changes, and the commits, a note names.
const maxWorkShown = 3

// worktreeWorkNote says, for a chat with a worktree that holds uncommitted
// changes or commits on no other branch (as rm finds them: worktree.Check),
// that this work stays behind, naming some of it; "" when there is none
// (or git cannot tell).
func worktreeWorkNote(w *sessions.Worktree) string {
	if w == nil || w.Missing() {
		return ""
	}
	work, err := worktree.Check(w.Path, w.Branch, w.Base)
	if err != nil || work.Clean() {
		return ""
	}
	var parts []string
	if n := len(work.Changes); n > 0 {
		parts = append(parts, fmt.Sprintf("%d uncommitted %s (%s)", n, plural(n, "change", "changes"), shortList(work.Changes)))
	}
	if n := len(work.Commits); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s on no other branch (%s)", n, plural(n, "commit", "commits"), shortList(work.Commits)))
	}
	// File names and commit subjects are the agent's: one plain line.
	return plaintext.Line(fmt.Sprintf("%s: %s in %s (branch %s); commit it and push the branch (acpmux-tui commit, push) to reach it from elsewhere",
		NoteWorkStaysBehind, strings.Join(parts, ", "), w.Path, w.Branch))
}

// shortList names the first maxWorkShown items, and how many more there
// are.
func shortList(items []string) string {
	shown := items[:min(len(items), maxWorkShown)]
	s := strings.Join(shown, "; ")
	if more := len(items) - len(shown); more > 0 {
		s += fmt.Sprintf("; %d more", more)
	}
	return s
}

// plural is one or many, for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// addMember streams one conversation member into the bundle.
func addMember(bw *bundle.Writer, m member) error {
	r, err := m.open()
	if err != nil {
		return fmt.Errorf("read %s: %w", m.name, err)
	}
	defer r.Close()
	return bw.Add(m.name, m.size, r)
}

// ExportFile writes chat's bundle to path atomically: a temp file in the
// same folder (0600), synced, renamed over path, the folder synced. Nothing
// is left at path, nor beside it, when the export fails.
func ExportFile(path string, chat *sessions.Meta, opt ExportOptions) (proto.ExportReport, error) {
	if !filepath.IsAbs(path) {
		return proto.ExportReport{}, fmt.Errorf("export chat %s: path %q is not absolute", chat.ID, path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return proto.ExportReport{}, fmt.Errorf("export chat %s: %s is a folder: give a file name", chat.ID, path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return proto.ExportReport{}, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	rep, err := Export(tmp, chat, opt)
	if err != nil {
		return rep, err
	}
	if err := tmp.Sync(); err != nil {
		return rep, fmt.Errorf("export chat %s: sync %s: %w", chat.ID, tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return rep, fmt.Errorf("export chat %s: close %s: %w", chat.ID, tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	done = true
	if err := syncDir(dir); err != nil {
		return rep, fmt.Errorf("export chat %s: %w", chat.ID, err)
	}
	rep.Path = path
	return rep, nil
}

// gatherConversation picks what an export carries: an ACP chat's
// transcript (exact when the agent has a session to load), a Claude Code or
// Codex session log (exact), else a pty chat's scrollback (a capsule).
func gatherConversation(chat *sessions.Meta, opt ExportOptions) conversation {
	spec, known := opt.Table.Get(chat.Harness)
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	env := capsule.Env(spec, getenv)
	live := opt.Live
	if live == nil {
		live = &Live{}
	}
	sid := chat.AgentSessionID
	switch {
	case known && spec.Transport == harness.TransportACP:
		return acpConversation(chat, live, env)
	case known && spec.Kind == harness.KindClaude && sid != "":
		if m, ok := sessionMember(harness.ClaudeSessionLog(env, sid)); ok {
			return conversation{kind: bundle.KindExact, source: bundle.SourceClaudeSession, members: []member{m}}
		}
	case known && spec.Kind == harness.KindCodex && sid != "":
		if m, ok := sessionMember(harness.CodexSessionLog(env, sid)); ok {
			return conversation{kind: bundle.KindExact, source: bundle.SourceCodexSession, members: []member{m}}
		}
	}
	if len(live.Lines) > 0 {
		text := capsule.Build(exportInfo(chat, opt.Store), capsule.FromLines(live.Lines))
		return conversation{kind: bundle.KindCapsule, source: bundle.SourceScrollback,
			members: []member{linesMember(live.Lines), textMember(bundle.CapsuleMember, text)}}
	}
	return conversation{kind: bundle.KindNone, source: bundle.SourceNone}
}

// acpConversation is an ACP chat's: its transcript and a capsule built from
// it when a server holds it, and the agent's own session log where it keeps
// one this side can read (claude-agent-acp keeps Claude Code's, codex-acp
// Codex's), so that the other side's agent can load the session; exact
// when the agent has a session to load.
func acpConversation(chat *sessions.Meta, live *Live, env []string) conversation {
	sid := chat.AgentSessionID
	c := conversation{kind: bundle.KindNone, source: bundle.SourceNone}
	if sid != "" {
		c.kind = bundle.KindExact
	}
	if len(live.Transcript) > 0 {
		if sid == "" {
			c.kind = bundle.KindCapsule
		}
		c.source = bundle.SourceACPTranscript
		text := capsule.Build(exportInfo(chat, nil), capsule.FromTranscript(live.Transcript))
		c.members = []member{transcriptMember(live.Transcript), textMember(bundle.CapsuleMember, text)}
		if live.TurnRunning {
			c.notes = append(c.notes, NoteTurnCut)
		}
	}
	if sid == "" {
		return c
	}
	for _, log := range []struct {
		path   string
		source bundle.Source
	}{{harness.ClaudeSessionLog(env, sid), bundle.SourceClaudeSession}, {harness.CodexSessionLog(env, sid), bundle.SourceCodexSession}} {
		if m, ok := sessionMember(log.path); ok {
			c.members = append(c.members, m)
			if c.source == bundle.SourceNone {
				c.source = log.source
			}
			break
		}
	}
	return c
}

// exportInfo is the capsule's description of the exported chat, as it
// stood here.
func exportInfo(chat *sessions.Meta, store *sessions.Store) capsule.Info {
	cwd := chat.Cwd
	if store != nil && store.NoProject(chat) {
		cwd = ""
	}
	return capsule.Info{Kind: capsule.KindImport, ParentID: chat.ID, ParentName: chat.Name,
		ParentHarness: chat.Harness, Harness: chat.Harness, Cwd: cwd, Folders: chat.AdditionalDirectories}
}

// sessionMember is a harness's session log, byte for byte, as long as it
// was when the export looked at it: a regular file, opened without
// following a link; bytes appended after that are left for the next
// export.
func sessionMember(path string) (member, bool) {
	if path == "" {
		return member{}, false
	}
	f, err := openRegular(path)
	if err != nil {
		return member{}, false
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return member{}, false
	}
	size := fi.Size()
	return member{name: bundle.SessionMember, size: size, open: func() (io.ReadCloser, error) {
		f, err := openRegular(path)
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{io.LimitReader(f, size), f}, nil
	}}, true
}

// openRegular opens path for reading if it is a regular file, never
// following a link at its end nor blocking on a FIFO.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, path)
}

// OpenBundle opens a bundle to import, given by the user: a regular file
// (a FIFO or a device would hold the call), opened without blocking; a
// symlink to one is followed.
func OpenBundle(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist", path)
		}
		return nil, err
	}
	return regularOnly(f, path)
}

// regularOnly returns f if it is a regular file, else closes it.
func regularOnly(f *os.File, path string) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// textMember is a member held as text (a capsule, at most 64 KiB).
func textMember(name, text string) member {
	return member{name: name, size: int64(len(text)), open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(text)), nil
	}}
}

// linesMember is scrollback.txt: the lines, each ended by a newline,
// written as they are read.
func linesMember(lines []string) member {
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	return member{name: bundle.ScrollbackMember, size: size, open: func() (io.ReadCloser, error) {
		return pipe(func(w io.Writer) error {
			for _, l := range lines {
				if _, err := io.WriteString(w, l+"\n"); err != nil {
					return err
				}
			}
			return nil
		}), nil
	}}
}

// transcriptMember is transcript.jsonl: one entry as JSON a line. Its size
// is counted by encoding each entry once; the entries are encoded again as
// they are written, so the whole is never held.
func transcriptMember(entries []proto.Entry) member {
	var size int64
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			continue
		}
		size += int64(len(b)) + 1
	}
	return member{name: bundle.TranscriptMember, size: size, open: func() (io.ReadCloser, error) {
		return pipe(func(w io.Writer) error {
			for _, e := range entries {
				b, err := json.Marshal(e)
				if err != nil {
					continue
				}
				if _, err := w.Write(append(b, '\n')); err != nil {
					return err
				}
			}
			return nil
		}), nil
	}}
}

// pipe runs write in a goroutine and returns the reading end of what it
// writes; closing the reader stops the writer.
func pipe(write func(io.Writer) error) io.ReadCloser {
	r, w := io.Pipe()
	go func() { w.CloseWithError(write(w)) }()
	return r
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// syncDir makes a folder's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Slug is a chat's name as part of a file name: lower case letters, digits
// and single dashes, at most 40 bytes, "chat" when nothing is left.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "chat"
	}
	return s
}

// DefaultFileName is the bundle's name when the user gives none:
// <name slug>-<id>.acpmux.tgz.
func DefaultFileName(chat *sessions.Meta) string {
	return Slug(chat.Name) + "-" + chat.ID + ".acpmux.tgz"
}
