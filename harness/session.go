package harness

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/internal/lazyre"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file holds what the harness table knows of each kind's own
// sessions: whether a kind can resume at all, and where Gemini CLI and Codex
// keep the conversations they resume.

// KindResumes reports whether a harness of that kind continues its
// conversation at a later start: Claude Code and Gemini CLI (--resume),
// Codex (codex resume) and ACP agents (session/load or session/resume, as
// the agent supports). A plain harness starts fresh each time.
func KindResumes(kind string) bool {
	switch kind {
	case KindClaude, KindCodex, KindGemini, KindACP:
		return true
	}
	return false
}

// Resumes reports whether this harness continues a chat's conversation at
// a later start (see KindResumes).
func (s Spec) Resumes() bool { return KindResumes(s.Kind) }

// StartsFresh is what the summary pane and `show` say of a chat whose
// harness cannot resume.
const StartsFresh = "starts fresh each time"

// safeSessionID reports whether id can be part of a file name: the one rule
// for a harness's session id (sessions.AgentSessionIDProblem), checked again
// here because a caller may hold an id no chat file has vetted.
func safeSessionID(id string) bool {
	return sessions.AgentSessionIDProblem(id) == ""
}

// homeOf returns the folder a harness takes for its home: the variable
// override when the environment sets it, else $HOME.
func homeOf(env []string, override string) string {
	if v := lookupEnv(env, override); v != "" {
		return v
	}
	return lookupEnv(env, "HOME")
}

// GeminiHasSession reports whether Gemini CLI, run with the environment env,
// has stored the session id with something to resume in it (Gemini CLI
// refuses --resume of a session without a user or model message): a file
// chats/session-<time>-<first 8 of id>.json or .jsonl in one of the project
// folders under ${GEMINI_CLI_HOME:-$HOME}/.gemini/tmp/, that names the id.
func GeminiHasSession(env []string, id string) bool {
	home := homeOf(env, "GEMINI_CLI_HOME")
	if !safeSessionID(id) || home == "" {
		return false
	}
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	tmp := filepath.Join(home, ".gemini", "tmp")
	projects, err := os.ReadDir(tmp)
	if err != nil {
		return false
	}
	for _, p := range projects {
		chats := filepath.Join(tmp, p.Name(), "chats")
		for _, ext := range []string{".jsonl", ".json"} {
			matches, _ := filepath.Glob(filepath.Join(chats, "session-*-"+globQuote(short)+ext))
			for _, f := range matches {
				if geminiFileHolds(f, id) {
					return true
				}
			}
		}
	}
	return false
}

// globQuote escapes the glob metacharacters of s.
func globQuote(s string) string { return globMeta().ReplaceAllString(s, `\$1`) }

var globMeta = lazyre.New(`([*?\[\\])`)

// maxSessionFile bounds what is read of one harness's session file.
const maxSessionFile = 64 << 20

// geminiFileHolds reports whether a Gemini CLI session file is the session
// id and holds a user or model message. A .json file is one record with its
// messages; a .jsonl file is a record per line (metadata, then messages).
func geminiFileHolds(path string, id string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	type message struct {
		Type string `json:"type"`
	}
	type record struct {
		SessionID string    `json:"sessionId"`
		Type      string    `json:"type"`
		Messages  []message `json:"messages"`
	}
	r := io.LimitReader(f, maxSessionFile)
	if strings.HasSuffix(path, ".json") {
		var rec record
		if json.NewDecoder(r).Decode(&rec) != nil || rec.SessionID != id {
			return false
		}
		for _, m := range rec.Messages {
			if m.Type == "user" || m.Type == "gemini" {
				return true
			}
		}
		return false
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxSessionFile)
	named, spoken := false, false
	for sc.Scan() {
		var rec record
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if rec.SessionID != "" {
			if rec.SessionID != id {
				return false
			}
			named = true
		}
		if rec.Type == "user" || rec.Type == "gemini" {
			spoken = true
		}
	}
	return named && spoken
}

// CodexSession is one conversation Codex stored: the session meta record
// that opens its rollout file.
type CodexSession struct {
	// ID is the session id `codex resume` takes.
	ID string
	// Cwd is the folder Codex ran in.
	Cwd string
	// Started is when Codex began the session (its own clock, UTC).
	Started time.Time
	// ForkedFrom is the session it was forked from, if any.
	ForkedFrom string
	// Path is the rollout file.
	Path string
}

// codexHome is Codex's folder when run with the environment env:
// ${CODEX_HOME:-$HOME/.codex}.
func codexHome(env []string) string {
	if v := lookupEnv(env, "CODEX_HOME"); v != "" {
		return v
	}
	if home := lookupEnv(env, "HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
}

// codexSessionsRoot is where Codex, run with the environment env, keeps its
// rollout files.
func codexSessionsRoot(env []string) string {
	if h := codexHome(env); h != "" {
		return filepath.Join(h, "sessions")
	}
	return ""
}

// codexRollout matches a rollout file's name:
// rollout-YYYY-MM-DDThh-mm-ss-<session id>.jsonl, the time in Codex's local
// time zone.
var codexRollout = lazyre.New(`^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9A-Za-z-]{8,64})\.jsonl$`)

// codexID is the shape of a Codex session id (a UUID).
var codexID = lazyre.New(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)

// CodexHasSession reports whether Codex, run with the environment env, has
// a rollout file for the session id whose meta record names it, which
// `codex resume` needs.
func CodexHasSession(env []string, id string) bool {
	path := CodexSessionLog(env, id)
	if path == "" {
		return false
	}
	s, ok := readCodexMeta(path)
	return ok && s.ID == id
}

// CodexSessionLog returns the rollout file named for Codex session id
// under the sessions root of env (a regular file; the walk follows no
// link), or "".
func CodexSessionLog(env []string, id string) string {
	if !codexID().MatchString(id) {
		return ""
	}
	found := ""
	walkCodexRollouts(env, time.Time{}, time.Time{}, func(path string, fileID string) bool {
		if fileID == id {
			found = path
		}
		return found == ""
	})
	return found
}

// FindCodexSessions returns the sessions Codex, run with the environment
// env, began in the folder cwd between from and to (inclusive; a zero from
// or to is no bound), read from the session meta record at the head of each
// rollout file under ${CODEX_HOME:-$HOME/.codex}/sessions/YYYY/MM/DD/. Codex
// writes a rollout file once the conversation has a first message, but
// dates it (and its meta record) from when the session began.
func FindCodexSessions(env []string, cwd string, from, to time.Time) []CodexSession {
	want := canonicalPath(cwd)
	var out []CodexSession
	walkCodexRollouts(env, from, to, func(path string, _ string) bool {
		s, ok := readCodexMeta(path)
		if !ok || canonicalPath(s.Cwd) != want {
			return true
		}
		// Codex writes the time to the millisecond, cut not rounded.
		if !from.IsZero() && s.Started.Before(from.Truncate(time.Millisecond)) || !to.IsZero() && s.Started.After(to) {
			return true
		}
		out = append(out, s)
		return true
	})
	return out
}

// canonicalPath is p with symlinks resolved where it still exists, cleaned.
func canonicalPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return filepath.Clean(r)
	}
	return filepath.Clean(p)
}

// walkCodexRollouts calls visit with each rollout file under the sessions
// root whose day folder and file name could fall between from and to (a day
// of slack either side: the folders and names are in Codex's local time),
// until visit returns false.
func walkCodexRollouts(env []string, from, to time.Time, visit func(path, id string) bool) {
	root := codexSessionsRoot(env)
	if root == "" {
		return
	}
	lo, hi := "", ""
	if !from.IsZero() {
		lo = from.UTC().AddDate(0, 0, -1).Format("2006-01-02")
	}
	if !to.IsZero() {
		hi = to.UTC().AddDate(0, 0, 1).Format("2006-01-02")
	}
	inRange := func(day string) bool {
		return (lo == "" || day >= lo[:len(day)]) && (hi == "" || day <= hi[:len(day)])
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			// YYYY, YYYY/MM, YYYY/MM/DD: prune the days out of range.
			if len(parts) > 3 || !inRange(strings.Join(parts, "-")) {
				return fs.SkipDir
			}
			return nil
		}
		sub := codexRollout().FindStringSubmatch(d.Name())
		if sub == nil || !d.Type().IsRegular() || !inRange(sub[1][:10]) {
			return nil
		}
		if !visit(path, sub[2]) {
			return fs.SkipAll
		}
		return nil
	})
}

// maxCodexMetaLine bounds the first line of a rollout file: the session meta
// record carries the base instructions, tens of KiB.
const maxCodexMetaLine = 4 << 20

// readCodexMeta reads the session meta record on the first line of a
// rollout file.
func readCodexMeta(path string) (CodexSession, bool) {
	f, err := os.Open(path)
	if err != nil {
		return CodexSession{}, false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, maxCodexMetaLine), 64<<10).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return CodexSession{}, false
	}
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			ID         string `json:"id"`
			ForkedFrom string `json:"forked_from_id"`
			Timestamp  string `json:"timestamp"`
			Cwd        string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "session_meta" || !codexID().MatchString(rec.Payload.ID) || rec.Payload.Cwd == "" {
		return CodexSession{}, false
	}
	started, err := time.Parse(time.RFC3339Nano, rec.Payload.Timestamp)
	if err != nil {
		return CodexSession{}, false
	}
	return CodexSession{ID: rec.Payload.ID, Cwd: rec.Payload.Cwd, Started: started, ForkedFrom: rec.Payload.ForkedFrom, Path: path}, true
}
