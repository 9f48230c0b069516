package search

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Live is what a server holds of the chats it runs: an ACP chat's
// transcript, a pty chat's scrollback and screen as plain lines (the mux
// answers both; nil for a chat it does not hold).
type Live interface {
	Transcript(id string) []proto.Entry
	History(id string, maxBytes int) []string
}

// Chat is one chat to search: its file, its harness, and the environment
// its harness finds its session logs in (capsule.Env).
type Chat struct {
	Meta *sessions.Meta
	Spec harness.Spec
	Env  []string
}

// Options bound a search and say where its live text comes from.
type Options struct {
	// MaxPerChat and MaxHits bound the hits listed per chat and in all
	// (0: proto's defaults).
	MaxPerChat, MaxHits int
	// Live is the server's mux; nil searches the files alone (no screen,
	// no transcript the server holds).
	Live Live
	// Workers is how many chats are searched at once (0: GOMAXPROCS).
	Workers int
}

// ChatsOf are the chats of entries as Run takes them, each with its
// harness in table (a harness the table lacks: none, so no log) and the
// environment getenv gives it. Broken chat files are left out: they have
// nothing to search.
func ChatsOf(entries []sessions.Entry, table *harness.Table, getenv func(string) string) []Chat {
	out := make([]Chat, 0, len(entries))
	for _, e := range entries {
		if e.Meta == nil {
			continue
		}
		spec, _ := table.Get(e.Meta.Harness)
		out = append(out, Chat{Meta: e.Meta, Spec: spec, Env: capsule.Env(spec, getenv)})
	}
	return out
}

// Run searches chats for q, in their order, and answers the chats with
// hits. Chats are searched Workers at a time; once MaxHits hits are
// listed, no further chat is begun and the result says it was cut.
func Run(q Query, chats []Chat, opt Options) proto.SearchResult {
	if opt.MaxPerChat <= 0 {
		opt.MaxPerChat = proto.DefaultSearchPerChat
	}
	if opt.MaxHits <= 0 {
		opt.MaxHits = proto.DefaultSearchHits
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	found := make([]chatHits, len(chats))
	loc := &locator{claude: map[string]map[string]string{}}
	var next, listed atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(chats)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for listed.Load() < int64(opt.MaxHits) {
				i := int(next.Add(1) - 1)
				if i >= len(chats) {
					return
				}
				found[i] = scanChat(q, chats[i], opt, loc)
				found[i].scanned = true
				listed.Add(int64(len(found[i].chat.Hits)))
			}
		}()
	}
	wg.Wait()

	res := proto.SearchResult{Chats: []proto.SearchChat{}, Screens: opt.Live != nil}
	for i := range found {
		f := &found[i]
		if !f.scanned {
			res.Cut = true
			break
		}
		res.Notes = append(res.Notes, f.notes...)
		if len(f.chat.Hits) == 0 {
			continue
		}
		if room := opt.MaxHits - res.Hits; len(f.chat.Hits) > room {
			f.chat.More += len(f.chat.Hits) - room
			f.chat.Hits = f.chat.Hits[:room]
			res.Cut = true
		}
		if len(f.chat.Hits) > 0 {
			res.Chats = append(res.Chats, f.chat)
			res.Hits += len(f.chat.Hits)
		}
	}
	return res
}

// chatHits is what the search of one chat found.
type chatHits struct {
	chat    proto.SearchChat
	notes   []string
	scanned bool
}

// collector gathers one chat's hits: the first max listed, the rest
// counted; a line already listed (an ACP chat's transcript and its log
// often say the same) is not listed again.
type collector struct {
	q    Query
	max  int
	out  *proto.SearchChat
	seen map[string]struct{}
}

// line looks for a hit in one line of outside text.
func (k *collector) line(where proto.SearchWhere, s string) {
	s = Clean(s)
	start, end, ok := k.q.Match(s)
	if !ok {
		return
	}
	if _, dup := k.seen[s]; dup {
		return
	}
	if len(k.out.Hits) >= k.max {
		k.out.More++
		return
	}
	if k.seen == nil {
		k.seen = map[string]struct{}{}
	}
	k.seen[s] = struct{}{}
	k.out.Hits = append(k.out.Hits, proto.SearchHit{Where: where, Excerpt: Excerpt(s, start, end)})
}

// text looks for hits in each line of a message.
func (k *collector) text(where proto.SearchWhere, s string) {
	for s != "" {
		l, rest, _ := strings.Cut(s, "\n")
		k.line(where, l)
		s = rest
	}
}

// scanChat searches one chat: its file's fields, then its transcript,
// its session log and its screen.
func scanChat(q Query, c Chat, opt Options, loc *locator) chatHits {
	m := c.Meta
	h := chatHits{chat: proto.SearchChat{ID: m.ID, Name: Clean(m.Name), Title: Clean(m.Title), Harness: Clean(m.Harness)}}
	k := &collector{q: q, max: opt.MaxPerChat, out: &h.chat}
	k.line(proto.SearchName, m.Name)
	k.line(proto.SearchTitle, m.Title)
	k.line(proto.SearchFolder, m.Cwd)
	for _, d := range m.AdditionalDirectories {
		k.line(proto.SearchFolder, d)
	}
	for _, f := range m.AdditionalFiles {
		k.line(proto.SearchFolder, f)
	}
	if opt.Live != nil {
		if entries := opt.Live.Transcript(m.ID); len(entries) > 0 {
			conv := capsule.FromTranscript(entries)
			for _, msg := range conv.Messages {
				k.text(proto.SearchConversation, msg.Text)
			}
		}
	}
	for _, l := range loc.logs(c) {
		if note := scanLog(k, l); note != "" {
			h.notes = append(h.notes, fmt.Sprintf("chat %s: %s", m.ID, note))
		}
	}
	if opt.Live != nil {
		for _, l := range opt.Live.History(m.ID, proto.MaxHistoryBytes) {
			k.line(proto.SearchScreen, l)
		}
	}
	return h
}

// sessionLog is a harness's session log of a chat.
type sessionLog struct {
	path  string
	codex bool
}

// scanLog searches a session log line by line, streamed and bounded as
// capsule reads it (capsule.ReadLog): a line of JSON that cannot hold
// every word is not decoded. It returns a note when the log was not read
// whole.
func scanLog(k *collector, l sessionLog) string {
	var conv capsule.Conversation
	gap, err := capsule.ReadLog(l.path, func(line []byte) {
		if !k.q.MatchRaw(line) {
			return
		}
		conv.Messages, conv.Files = conv.Messages[:0], conv.Files[:0]
		if l.codex {
			conv.ParseCodexLine(line)
		} else {
			conv.ParseClaudeLine(line)
		}
		for _, msg := range conv.Messages {
			k.text(proto.SearchLog, msg.Text)
		}
	})
	switch {
	case err != nil:
		return "its session log could not be read: " + Clean(err.Error())
	case gap:
		return "its session log is too big to search whole: its head and tail were searched"
	}
	return ""
}

// locator finds chats' session logs. Claude Code's are found by listing
// each projects folder once per search (harness.ClaudeSessionLog lists it
// once per chat); Codex's through harness.CodexSessionLog.
type locator struct {
	mu sync.Mutex
	// claude maps a Claude config folder to its logs by session id.
	claude map[string]map[string]string
}

// logs are the session logs of chat c: Claude Code's for a claude chat
// or an ACP chat (claude-agent-acp writes them too), Codex's for a codex
// chat or one run by codex-acp.
func (loc *locator) logs(c Chat) []sessionLog {
	id := c.Meta.AgentSessionID
	if id == "" {
		return nil
	}
	var out []sessionLog
	if c.Spec.Kind == harness.KindClaude || c.Spec.Transport == harness.TransportACP {
		if p := loc.claudeLog(c.Env, id); p != "" {
			out = append(out, sessionLog{path: p})
		}
	}
	if len(out) == 0 && (c.Spec.Kind == harness.KindCodex || c.Spec.IsCodexACP()) {
		if p := harness.CodexSessionLog(c.Env, id); p != "" {
			out = append(out, sessionLog{path: p, codex: true})
		}
	}
	return out
}

// claudeLog is the path of Claude Code's log of session id, found as
// harness.ClaudeSessionLog finds it: projects/*/<id>.jsonl under
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func (loc *locator) claudeLog(env []string, id string) string {
	root := lookupEnv(env, "CLAUDE_CONFIG_DIR")
	if root == "" {
		home := lookupEnv(env, "HOME")
		if home == "" {
			return ""
		}
		root = filepath.Join(home, ".claude")
	}
	loc.mu.Lock()
	defer loc.mu.Unlock()
	byID, ok := loc.claude[root]
	if !ok {
		byID = listClaudeLogs(filepath.Join(root, "projects"))
		loc.claude[root] = byID
	}
	return byID[id]
}

// listClaudeLogs maps each session id to its log under projects: the
// first project folder (in name order) that has it, as ReadDir gives them.
func listClaudeLogs(projects string) map[string]string {
	out := map[string]string{}
	dirs, err := os.ReadDir(projects)
	if err != nil {
		return out
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(projects, d.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			id, ok := strings.CutSuffix(f.Name(), ".jsonl")
			if !ok || !f.Type().IsRegular() {
				continue
			}
			if _, twice := out[id]; !twice {
				out[id] = filepath.Join(projects, d.Name(), f.Name())
			}
		}
	}
	return out
}

// lookupEnv is the last value of key in an environment list.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
