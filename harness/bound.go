package harness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file computes a sandboxed chat's bound (package sandbox): what its
// harness may write — the chat's folder, its added folders and files, its
// scratch TMPDIR and the harness's own state — and what it may not read,
// the agent home. Every start computes it from the chat's stored lists, as
// every start computes the argv.

// builtinState is where each built-in harness keeps its own state, which a
// sandboxed chat may write: a trailing "/" marks a folder, made when
// missing; a file is writable in place when it exists. An entry may give
// alternatives split by "|": the first whose $VARIABLE is set in the
// harness's environment is taken ("$CODEX_HOME/|~/.codex/"); "~" is $HOME.
// `[harness.NAME] sandbox_state` replaces a harness's list.
var builtinState = map[string][]string{
	"claude":     claudeState,
	"claude-acp": claudeState,
	"codex":      codexState,
	"codex-acp":  codexState,
	"gemini":     geminiState,
	"gemini-acp": geminiState,
	"opencode": {
		"$XDG_DATA_HOME/opencode/|~/.local/share/opencode/", "$XDG_CONFIG_HOME/opencode/|~/.config/opencode/",
		"$XDG_STATE_HOME/opencode/|~/.local/state/opencode/", "$XDG_CACHE_HOME/opencode/|~/.cache/opencode/",
	},
	"pi":    {"~/.pi/"},
	"shell": nil,
}

var (
	// Claude Code keeps its settings, sessions and todos in ~/.claude (or
	// $CLAUDE_CONFIG_DIR, which then holds its .claude.json too), its
	// account and per-project state in ~/.claude.json, its debug and MCP
	// logs in ~/.cache/claude-cli-nodejs.
	claudeState = []string{"$CLAUDE_CONFIG_DIR/|~/.claude/", "~/.claude.json", "$XDG_CACHE_HOME/claude-cli-nodejs/|~/.cache/claude-cli-nodejs/"}
	codexState  = []string{"$CODEX_HOME/|~/.codex/"}
	// stateSeeds are the state files a start makes when missing, with
	// their first text: the bound cannot let a harness create a file
	// beside others (~/.claude.json in ~), only write one in place, and
	// Claude Code without its file would start as new at every start.
	stateSeeds  = map[string]string{"~/.claude.json": "{}\n"}
	geminiState = []string{"$GEMINI_CLI_HOME/.gemini/|~/.gemini/"}
)

// expandState is a state entry's path in the environment env: its first
// alternative that can be read there ("" when none can).
func expandState(entry string, env []string) string {
	for _, alt := range strings.Split(entry, "|") {
		head, rest, _ := strings.Cut(alt, "/")
		switch {
		case head == "~":
			if home := lookupEnv(env, "HOME"); home != "" {
				return home + "/" + rest
			}
		case strings.HasPrefix(head, "$"):
			if v := lookupEnv(env, head[1:]); v != "" {
				return v + "/" + rest
			}
		default:
			return alt
		}
	}
	return ""
}

// StateEntries is the harness's state list: the config's sandbox_state when
// it set one, else the built-in one of its name.
func (s Spec) StateEntries() []string {
	if s.SandboxState != nil {
		return s.SandboxState
	}
	return builtinState[s.Name]
}

// ChatBound is a sandboxed chat's bound and how it is shown.
type ChatBound struct {
	sandbox.Bound
	// Scratch is the chat's own TMPDIR: <agent home>/tmp/<id>.
	Scratch string
	// Summary is the bound in one line: "landlock · writes: folder,
	// 2 folders, 1 file, tmp, ~/.claude · .git/hooks read-only".
	Summary string
}

// Bound computes chat m's bound for a start with the environment env,
// under the agent home. With prepare, it first makes what must exist (the
// scratch folder, the state folders, a repository's .git/hooks): a start
// does; `show` does not, and lists what a start would use. Every path is
// resolved, so a symlink cannot widen the bound. A folder of the chat that
// holds the agent home cannot be sandboxed: Landlock cannot hide a folder
// inside one it lets write.
func (s Spec) Bound(m *sessions.Meta, home string, env []string, prepare bool) (ChatBound, error) {
	b := ChatBound{Scratch: sessions.ScratchDir(home, m.ID)}
	hidden := home
	if c, err := filepath.EvalSymlinks(home); err == nil {
		hidden = c
	}
	b.Hidden = []string{hidden}
	if prepare {
		if err := os.MkdirAll(b.Scratch, 0o700); err != nil {
			return b, fmt.Errorf("the chat's scratch folder: %w", err)
		}
	}
	resolve := func(p string) string {
		if c, err := filepath.EvalSymlinks(p); err == nil {
			return c
		}
		return filepath.Clean(p)
	}
	var shown []string
	add := func(dir string) {
		b.Writable = append(b.Writable, resolve(dir))
	}
	add(b.Scratch) // first: Prove writes its canary here
	add(m.Cwd)
	shown = append(shown, "folder")
	for _, d := range m.AdditionalDirectories {
		add(d)
	}
	if n := len(m.AdditionalDirectories); n > 0 {
		shown = append(shown, plural(n, "folder"))
	}
	for _, f := range m.AdditionalFiles {
		b.WritableFiles = append(b.WritableFiles, resolve(f))
	}
	if n := len(m.AdditionalFiles); n > 0 {
		shown = append(shown, plural(n, "file"))
	}
	shown = append(shown, "tmp")
	userHome := lookupEnv(env, "HOME")
	for _, e := range s.StateEntries() {
		p := expandState(e, env)
		if p == "" {
			continue // no HOME, no variable: nothing to name
		}
		if !filepath.IsAbs(p) {
			return b, fmt.Errorf("state path %q of harness %s is not absolute", e, s.Name)
		}
		dir := strings.HasSuffix(p, "/")
		p = filepath.Clean(p)
		if dir && prepare {
			if err := os.MkdirAll(p, 0o700); err != nil {
				return b, fmt.Errorf("the harness's state folder: %w", err)
			}
		}
		if seed, ok := stateSeeds[e]; ok && prepare && s.SandboxState == nil {
			if err := seedFile(p, seed); err != nil {
				return b, fmt.Errorf("the harness's state file: %w", err)
			}
		}
		st, err := os.Stat(p)
		switch {
		case err != nil && !prepare:
		case err != nil:
			continue // a state file not made yet stays out of reach
		case st.IsDir():
			dir = true
		default:
			dir = false
		}
		if dir {
			add(p)
		} else {
			b.WritableFiles = append(b.WritableFiles, resolve(p))
		}
		shown = append(shown, tildePath(p, userHome))
	}
	for _, w := range b.Writable {
		if w == "/" || within(hidden, w) {
			return b, fmt.Errorf("%s holds the agent home %s, which a sandboxed chat may not read: give the chat another folder", w, hidden)
		}
	}
	guarded, err := b.guardGit(m, prepare)
	if err != nil {
		return b, err
	}
	// Its hooks reach the server's hook-only socket at the socket's name:
	// nothing it runs can make, start or change a chat, which would run
	// outside its bound.
	if _, err := os.Lstat(proto.HookSocketPath(home)); err == nil || !prepare {
		b.BindOver = append(b.BindOver, sandbox.BindMount{From: proto.HookSocketPath(hidden), To: proto.SocketPath(hidden)})
	}
	b.Summary = "landlock · writes: " + strings.Join(shown, ", ")
	if guarded > 0 {
		b.Summary += " · .git/hooks read-only"
	}
	return b, nil
}

// guardGit keeps, in each of the chat's folders that is a git working tree,
// .git/hooks and .git/config read-only and .git where it is (sandbox.Bound
// ReadOnly and Pinned): a hook planted there would run outside the bound
// the next time the user runs git. A linked worktree's .git file is kept
// read-only too (it names the repository), and its repository's common
// folder is made writable, so commits work, with the same guard. It
// reports how many repositories are guarded.
func (b *ChatBound) guardGit(m *sessions.Meta, prepare bool) (int, error) {
	folders := append([]string{m.Cwd}, m.AdditionalDirectories...)
	seen := map[string]bool{}
	n := 0
	guard := func(gitDir string) error {
		if seen[gitDir] {
			return nil
		}
		seen[gitDir] = true
		hooks := filepath.Join(gitDir, "hooks")
		if prepare {
			if err := os.MkdirAll(hooks, 0o755); err != nil {
				return fmt.Errorf("%s: %w", hooks, err)
			}
		}
		b.Pinned = append(b.Pinned, gitDir)
		b.ReadOnly = append(b.ReadOnly, hooks)
		if _, err := os.Stat(filepath.Join(gitDir, "config")); err == nil {
			b.ReadOnly = append(b.ReadOnly, filepath.Join(gitDir, "config"))
		}
		n++
		return nil
	}
	for _, f := range folders {
		f, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue // a start refuses a missing folder before this
		}
		dotGit := filepath.Join(f, ".git")
		st, err := os.Lstat(dotGit)
		switch {
		case err != nil:
			continue
		case st.IsDir():
			if err := guard(dotGit); err != nil {
				return n, err
			}
		case st.Mode().IsRegular():
			common, err := commonDir(dotGit)
			if err != nil {
				return n, fmt.Errorf("%s: %w", dotGit, err)
			}
			b.ReadOnly = append(b.ReadOnly, dotGit)
			if !b.writable(common) {
				b.Writable = append(b.Writable, common)
			}
			if err := guard(common); err != nil {
				return n, err
			}
		}
	}
	// Pinned folders are mounted outermost first.
	sort.SliceStable(b.Pinned, func(i, j int) bool { return len(b.Pinned[i]) < len(b.Pinned[j]) })
	return n, nil
}

// writable reports whether p lies in one of the bound's writable folders.
func (b *ChatBound) writable(p string) bool {
	for _, w := range b.Writable {
		if within(p, w) {
			return true
		}
	}
	return false
}

// commonDir reads a linked worktree's (or submodule's) .git file and
// returns its repository's common git folder, resolved.
func commonDir(dotGitFile string) (string, error) {
	f, err := os.Open(dotGitFile)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir: ")
	if !ok {
		return "", errors.New("not a gitdir file")
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(filepath.Dir(dotGitFile), gitDir)
	}
	common := gitDir
	if rel, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(rel))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return filepath.EvalSymlinks(common)
}

// seedFile makes file p with text unless it exists.
func seedFile(p, text string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// tildePath writes p under the user's home as ~/….
func tildePath(p, home string) string {
	if home != "" && home != "/" && within(p, home) {
		return "~" + strings.TrimPrefix(p, home)
	}
	return p
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Sandboxed reports whether a new chat on this harness is sandboxed when
// nobody asks either way: the harness's `sandbox`, else the config's.
func (s Spec) Sandboxed(cfg *config.Config) bool {
	if s.Sandbox != nil {
		return *s.Sandbox
	}
	return cfg != nil && cfg.Sandbox
}

// SandboxJSON is chat m's bound as `show` and `ls --json` print it (nil
// for a chat that is not sandboxed), computed as a start would, with the
// environment inherited, without making anything.
func (s Spec) SandboxJSON(m *sessions.Meta, home string, inherited []string) *proto.SandboxJSON {
	if m == nil || !m.Sandbox {
		return nil
	}
	b, err := s.Bound(m, home, s.environment(m, inherited), false)
	j := &proto.SandboxJSON{Summary: b.Summary, Writable: nonNil(b.Writable), WritableFiles: nonNil(b.WritableFiles),
		Hidden: nonNil(b.Hidden), ReadOnly: nonNil(b.ReadOnly)}
	if err != nil {
		j.Summary, j.Refused = "landlock · refused", err.Error()
	}
	return j
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
