package transfer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// ImportOptions is what an import needs besides the bundle.
type ImportOptions struct {
	// Chats is the chat service of the agent home the chat comes into: it
	// makes the chat (chatsvc.Service.Import).
	Chats *chatsvc.Service
	// Table is this host's harness table.
	Table *harness.Table
	// Getenv finds where the harness keeps its session logs here (HOME,
	// CLAUDE_CONFIG_DIR, CODEX_HOME).
	Getenv func(string) string
	// Roots are the folders the chat may see here, absolute.
	Roots []string
	// DryRun writes no chat and no session log: the report says what an
	// import would keep and drop.
	DryRun bool
	// Limits bound the bundle; zero fields take bundle.DefaultLimits.
	Limits bundle.Limits
}

// Import reads one bundle from r and adds its chat to the store under a new
// id (origin "import", parent the exported id), keeping only what the guard
// lets through, and puts its conversation back where the harness finds it.
// The bundle is unpacked into a staging folder inside the agent home that is
// removed whatever happens; nothing else is written before the last step,
// the chat's file, and what was written is taken back if that fails. A
// refused bundle or root is a *Refusal.
func Import(r io.Reader, opt ImportOptions) (proto.ImportReport, error) {
	host, _ := os.Hostname()
	rep := proto.ImportReport{Host: host, DryRun: opt.DryRun, Kept: []string{}, Dropped: []proto.Dropped{},
		KeptFiles: []string{}, DroppedFiles: []proto.Dropped{}, Notes: []string{}}
	roots, err := CanonicalRoots(opt.Roots)
	if err != nil {
		return rep, err
	}
	stage, cleanup, err := newStaging(opt.Chats.Store().Home())
	if err != nil {
		return rep, fmt.Errorf("import: %w", err)
	}
	defer cleanup()
	up, err := bundle.Unpack(r, stage, opt.Limits)
	if err != nil {
		var be *bundle.Error
		if errors.As(err, &be) {
			return rep, &Refusal{Reason: be.Error(), Err: err}
		}
		return rep, fmt.Errorf("import: %w", err)
	}
	meta, err := sessions.ParseMeta(up.Chat)
	if err != nil {
		return rep, &Refusal{Reason: "bundle member \"chat.toml\": " + err.Error(), Err: err}
	}
	if meta.ID != up.Manifest.ChatID {
		return rep, refusef("chat.toml is chat %s but the manifest names %s", meta.ID, up.Manifest.ChatID)
	}
	if meta.Harness != up.Manifest.Harness {
		return rep, refusef("chat.toml's harness %s is not the manifest's %s", quote(meta.Harness), quote(up.Manifest.Harness))
	}
	in := &importer{opt: opt, roots: roots, up: up, meta: meta, rep: &rep}
	if err := in.run(); err != nil {
		return rep, err
	}
	return rep, nil
}

// importer is one import under way.
type importer struct {
	opt   ImportOptions
	roots []string
	up    *bundle.Unpacked
	meta  *sessions.Meta
	rep   *proto.ImportReport

	spec  harness.Spec
	known bool
	env   []string
	// worktree is the exported chat's git worktree when it is kept here
	// (worktree.go).
	worktree *sessions.Worktree
}

func (in *importer) run() error {
	m, rep, store := in.meta, in.rep, in.opt.Chats.Store()
	rep.Harness, rep.Parent = m.Harness, m.ID
	in.spec, in.known = in.opt.Table.Get(m.Harness)
	getenv := in.opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	in.env = capsule.Env(in.spec, getenv)
	if !in.known {
		rep.Notes = append(rep.Notes, fmt.Sprintf("harness %s is not in this host's harness table: the chat keeps it; add [harness.%s] to the config before starting it", quote(m.Harness), m.Harness))
	}
	rep.Notes = append(rep.Notes, notesFrom(in.up.Manifest.Notes)...)
	// A bundle cannot turn a sandbox off: the chat is sandboxed here when
	// it was there, or when this host sandboxes such chats.
	rep.SandboxWas = m.Sandbox
	rep.Sandbox = m.Sandbox || in.opt.Chats.Sandboxed(sessions.NewChat{Harness: m.Harness})
	switch {
	case m.Sandbox:
		rep.Notes = append(rep.Notes, "the chat was sandboxed and is sandboxed here: it writes only in its folders and files")
	case rep.Sandbox:
		rep.Notes = append(rep.Notes, "the chat was not sandboxed; this host's config sandboxes chats of harness "+quote(m.Harness)+", so it is sandboxed here")
	}
	noProject := in.up.Manifest.NoProject
	cwd := ""
	if !noProject {
		c, keep, notes, err := importCwd(store, in.roots, m)
		if err != nil {
			return err
		}
		cwd, in.worktree = c, keep
		rep.Notes = append(rep.Notes, notes...)
	}
	rep.Notes = append(rep.Notes, baselineNote(m)...)
	rep.Cwd, rep.CwdFresh = cwd, noProject
	rep.Kept, rep.Dropped = guardList(store, in.roots, cwd, m.AdditionalDirectories, false)
	rep.KeptFiles, rep.DroppedFiles = guardList(store, in.roots, cwd, m.AdditionalFiles, true)
	name, err := store.DerivedName(m, sessions.OriginImport, "")
	if err != nil {
		return fmt.Errorf("import: name the chat: %w", err)
	}
	rep.Name = name
	if in.opt.DryRun {
		in.plan(cwd)
		return nil
	}
	return in.create(cwd, noProject)
}

// notesFrom keeps the exporting side's notes as one-line text.
func notesFrom(notes []string) []string {
	out := []string{}
	for _, n := range notes {
		if len(n) > 1000 {
			n = n[:1000] + "…"
		}
		out = append(out, "exported with the note: "+fmt.Sprintf("%+q", n))
	}
	return out
}

// convPlan is how the conversation comes over.
type convPlan struct {
	kind bundle.ConversationKind
	how  string
	// session is the staged session log to put at target (exact Claude
	// Code or Codex); keepSID keeps agent_session_id.
	session, target string
	keepSID         bool
	// capsule is set when a capsule is the first message (or, for an
	// exact ACP chat, the fallback should session/load fail).
	capsule bool
}

// plan decides how the conversation comes over into a chat in cwd ("" for
// a fresh home folder, not made yet on a dry run) and fills the report's
// conversation fields.
func (in *importer) plan(cwd string) convPlan {
	p := in.planConversation(cwd)
	in.rep.Conversation, in.rep.How = string(p.kind), p.how
	return p
}

func (in *importer) planConversation(cwd string) convPlan {
	man, sid := in.up.Manifest, in.meta.AgentSessionID
	staged := in.staged(bundle.SessionMember)
	if man.Conversation == bundle.KindExact && sid != "" {
		if in.acp() {
			return in.planACP(cwd, sid, staged)
		}
		if man.Source == bundle.SourceClaudeSession || man.Source == bundle.SourceCodexSession {
			if staged == "" {
				return in.asCapsule("the bundle says exact but holds no session log")
			}
			target, why := in.sessionTarget(cwd, sid, man.Source == bundle.SourceClaudeSession)
			if why != "" {
				return in.asCapsule(why)
			}
			if man.Source == bundle.SourceClaudeSession {
				return convPlan{kind: bundle.KindExact, session: staged, target: target, keepSID: true,
					how: fmt.Sprintf("Claude Code's session log was put at %s: the first start resumes it (--resume %s)", target, sid)}
			}
			return convPlan{kind: bundle.KindExact, session: staged, target: target, keepSID: true,
				how: fmt.Sprintf("Codex's session file was put at %s: the first start resumes it (codex resume %s)", target, sid)}
		}
	}
	if man.Conversation == bundle.KindNone || !in.hasCapsuleSource() {
		return convPlan{kind: bundle.KindNone, how: "no conversation came over: the chat starts a fresh one"}
	}
	return in.asCapsule("")
}

// acp reports whether the chat's conversation is an ACP agent's: its
// harness here speaks ACP, or, a harness this host does not know, the
// bundle holds an ACP transcript.
func (in *importer) acp() bool {
	if in.known {
		return in.spec.Transport == harness.TransportACP
	}
	return in.up.Manifest.Source == bundle.SourceACPTranscript
}

// planACP plans an exact ACP chat: its session id is kept, so the first
// start loads it; the agent's own session log, when the bundle has it, is
// put where the agent reads it; and a capsule comes along should the load
// fail.
func (in *importer) planACP(cwd, sid, staged string) convPlan {
	p := convPlan{kind: bundle.KindExact, keepSID: true}
	how := fmt.Sprintf("the agent's session %s is kept: the first start loads it (session/load)", quote(sid))
	if staged != "" {
		target, why := in.sessionTarget(cwd, sid, !isCodexRollout(staged))
		if why == "" {
			p.session, p.target = staged, target
			how += "; its session log, which the agent reads, was put at " + target
		} else {
			how += "; its session log was not put back (" + why + ")"
		}
	}
	if in.hasCapsuleSource() {
		p.capsule = true
		how += "; should the agent not have it, a new session starts with a capsule of the conversation as its first message"
	} else {
		how += "; should the agent not have it, a new session starts without the conversation"
	}
	p.how = how
	return p
}

// sessionTarget is where a staged session log for sid goes here (Claude
// Code's for the chat's folder cwd, or Codex's), or why it cannot go.
func (in *importer) sessionTarget(cwd, sid string, claude bool) (string, string) {
	var target, existing string
	var err error
	if claude {
		existing = harness.ClaudeSessionLog(in.env, sid)
		if cwd == "" {
			// A fresh home folder: its name is known once it is made.
			cwd = filepath.Join(in.opt.Chats.Store().Home(), "homes", "NEW")
		}
		target, err = claudeTarget(in.env, cwd, sid)
	} else {
		existing = harness.CodexSessionLog(in.env, sid)
		target, err = codexTarget(in.env, sid, time.Now())
	}
	switch {
	case err != nil:
		return "", err.Error()
	case existing != "":
		return "", fmt.Sprintf("a session log for %s is already on this host (%s): it is never overwritten nor shared", quote(sid), existing)
	}
	return target, ""
}

// isCodexRollout reports whether a staged session log is a Codex rollout
// file (its first record is session_meta) rather than Claude Code's.
func isCodexRollout(path string) bool {
	f, err := openRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(io.LimitReader(f, 64<<10), 64<<10).ReadBytes('\n')
	var rec struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &rec) == nil && rec.Type == "session_meta"
}

// asCapsule plans a capsule as the first message; why says why the
// conversation could not come over exactly ("" when it was a capsule).
func (in *importer) asCapsule(why string) convPlan {
	if !in.hasCapsuleSource() {
		return convPlan{kind: bundle.KindNone, how: "no conversation came over (" + why + "): the chat starts a fresh one"}
	}
	how := "a capsule of what was said becomes the chat's first message"
	if why != "" {
		how = "not exactly (" + why + "): " + how
	}
	if in.known && !in.spec.TakesInitialPrompt() {
		how += fmt.Sprintf(", but %s takes no first message: it stays in the chat's capsule file", in.meta.Harness)
	}
	return convPlan{kind: bundle.KindCapsule, capsule: true, how: how}
}

// staged returns the staged path of the conversation member name, or "".
func (in *importer) staged(name string) string {
	if slices.Contains(in.up.Conversation, name) {
		return filepath.Join(in.up.Dir, name)
	}
	return ""
}

// hasCapsuleSource reports whether the bundle holds anything a capsule can
// be made from.
func (in *importer) hasCapsuleSource() bool {
	for _, n := range []string{bundle.TranscriptMember, bundle.ScrollbackMember, bundle.CapsuleMember, bundle.SessionMember} {
		if in.staged(n) != "" {
			return true
		}
	}
	return false
}

// create writes the chat: a fresh home folder if it has no project, the
// session log in place, then the chat's file (with its capsule) last; a
// failure takes back what was written.
func (in *importer) create(cwd string, noProject bool) (err error) {
	store, m, rep := in.opt.Chats.Store(), in.meta, in.rep
	id := ""
	if noProject {
		id, cwd, err = store.ReserveHome()
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer func() {
			if err != nil {
				store.ReleaseHome(id)
			}
		}()
	}
	p := in.plan(cwd)
	if p.session != "" {
		undo, perr := placeFile(p.session, p.target)
		switch {
		case perr != nil && in.acp():
			// The agent may have the session still; the capsule stays.
			p.session = ""
			in.rep.How += "; but its session log could not be put back: " + perr.Error()
		case perr != nil:
			p = in.asCapsule(perr.Error())
			in.rep.Conversation, in.rep.How = string(p.kind), p.how
		default:
			defer func() {
				if err != nil {
					undo()
				}
			}()
		}
	}
	text := ""
	if p.capsule {
		text = in.capsuleText(cwd, noProject, rep.Kept)
		if text == "" && !p.keepSID {
			p = convPlan{kind: bundle.KindNone, how: "no conversation came over (nothing of it could be read): the chat starts a fresh one"}
			rep.Conversation, rep.How = string(p.kind), p.how
		}
	}
	n := sessions.NewChat{ID: id, Name: rep.Name, Harness: m.Harness, AdditionalDirectories: rep.Kept,
		AdditionalFiles: rep.KeptFiles, Parent: m.ID, Origin: sessions.OriginImport, Capsule: text, Sandbox: &rep.Sandbox}
	if !noProject {
		n.Cwd = cwd
	}
	if p.keepSID {
		n.AgentSessionID = m.AgentSessionID
	}
	made, err := in.opt.Chats.Import(n, in.worktree)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	rep.ID, rep.Cwd = made.ID, made.Cwd
	rep.Kept = append([]string{}, made.AdditionalDirectories...)
	rep.KeptFiles = append([]string{}, made.AdditionalFiles...)
	return nil
}

// maxScrollbackBytes is how much of a bundle's scrollback a capsule reads:
// its tail, as much as a server's history holds.
const maxScrollbackBytes = proto.MaxHistoryBytes

// maxTranscriptLine bounds one line of a bundle's transcript.jsonl.
const maxTranscriptLine = 8 << 20

// maxTranscriptEntries is how many of a transcript's last entries a
// capsule reads, as many as a server keeps.
const maxTranscriptEntries = 5000

// capsuleText is the capsule that opens the imported chat, made here from
// the bundle's conversation (so it names the folders this chat has), or
// the exporting side's capsule.md when nothing else can be read; "" when
// none can be made.
func (in *importer) capsuleText(cwd string, noProject bool, folders []string) string {
	info := capsule.Info{Kind: capsule.KindImport, ParentID: in.meta.ID, ParentName: in.meta.Name,
		ParentHarness: in.meta.Harness, Harness: in.meta.Harness, Cwd: cwd, Folders: folders}
	if noProject {
		info.Cwd = ""
	}
	var conv capsule.Conversation
	switch {
	case in.staged(bundle.TranscriptMember) != "":
		conv = capsule.FromTranscript(readTranscript(in.staged(bundle.TranscriptMember)))
	case in.staged(bundle.SessionMember) != "" && in.up.Manifest.Source == bundle.SourceClaudeSession:
		conv = capsule.FromClaudeLog(in.staged(bundle.SessionMember))
	case in.staged(bundle.SessionMember) != "" && in.up.Manifest.Source == bundle.SourceCodexSession:
		conv = capsule.FromCodexLog(in.staged(bundle.SessionMember))
	case in.staged(bundle.ScrollbackMember) != "":
		conv = capsule.FromLines(readTail(in.staged(bundle.ScrollbackMember), maxScrollbackBytes))
	}
	if !conv.Empty() {
		return capsule.Build(info, conv)
	}
	if p := in.staged(bundle.CapsuleMember); p != "" {
		if text := readCapsuleMember(p); text != "" {
			return text
		}
	}
	return ""
}

// readTranscript reads a staged transcript.jsonl: its last
// maxTranscriptEntries entries that parse; a line that does not is skipped.
func readTranscript(path string) []proto.Entry {
	f, err := openRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxTranscriptLine)
	var out []proto.Entry
	for sc.Scan() {
		var e proto.Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		out = append(out, e)
		if len(out) > 2*maxTranscriptEntries {
			out = append(out[:0:0], out[len(out)-maxTranscriptEntries:]...)
		}
	}
	if len(out) > maxTranscriptEntries {
		out = out[len(out)-maxTranscriptEntries:]
	}
	return out
}

// readTail reads the last maxBytes of a staged text file as lines.
func readTail(path string, maxBytes int64) []string {
	f, err := openRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxBytes {
		if _, err := f.Seek(fi.Size()-maxBytes, io.SeekStart); err != nil {
			return nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), int(maxBytes)+1)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// readCapsuleMember reads the exporting side's capsule.md: at most
// sessions.MaxCapsuleBytes of text, redacted again here (a bundle is
// never trusted to have done it); "" if it is not a capsule.
func readCapsuleMember(path string) string {
	f, err := openRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, sessions.MaxCapsuleBytes+1))
	if err != nil || sessions.CheckCapsule(string(data)) != nil {
		return ""
	}
	text, _ := capsule.Redact(string(data))
	if sessions.CheckCapsule(text) != nil {
		return ""
	}
	return text
}
