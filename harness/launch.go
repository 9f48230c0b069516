package harness

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpmux/acpmux-tui/sessions"
)

// Launch is everything needed to exec a harness: never a shell string.
type Launch struct {
	// Path is the program, resolved on PATH.
	Path string
	// Argv is the full argument vector, Argv[0] the command as named.
	Argv []string
	// Env is the full environment.
	Env []string
	// Dir is the working directory: the chat's own folder.
	Dir string
	// NewSessionID is set when this start gave the harness a new session id
	// (Claude Code's --session-id) that the caller must store.
	NewSessionID string
}

// LaunchOptions are the per-start inputs to BuildLaunch.
type LaunchOptions struct {
	// Getenv reads the environment acpmux-tui runs in.
	Getenv func(string) string
	// Environ is the environment inherited by the harness.
	Environ []string
	// NewSessionID returns a fresh session id (a UUID) for a first start.
	NewSessionID func() string
}

// BuildLaunch builds the argv, environment and folder of one start of the
// chat's harness. Every start calls it, so every start gets the stored
// folders: per folder the harness's flag (--add-dir, --include-directories),
// or for a plain harness the colon-separated ACPMUX_ADDITIONAL_DIRECTORIES.
// Claude Code gets --session-id at its first start and --resume after.
func (s Spec) BuildLaunch(m *sessions.Meta, o LaunchOptions) (Launch, error) {
	path, err := s.ResolveCommand(o.Getenv)
	if err != nil {
		return Launch{}, err
	}
	l := Launch{Path: path, Dir: m.Cwd}
	argv0 := s.Command
	if argv0 == "$SHELL" || strings.HasPrefix(argv0, "$") {
		argv0 = path
	}
	l.Argv = append([]string{argv0}, s.Args...)
	if s.Kind == KindClaude {
		if m.AgentSessionID == "" {
			l.NewSessionID = o.NewSessionID()
			l.Argv = append(l.Argv, "--session-id", l.NewSessionID)
		} else {
			l.Argv = append(l.Argv, "--resume", m.AgentSessionID)
		}
	}
	if s.FolderFlag != "" {
		for _, d := range m.AdditionalDirectories {
			l.Argv = append(l.Argv, s.FolderFlag, d)
		}
	}
	l.Env = s.environment(m, o.Environ)
	return l, nil
}

// environment is the inherited environment without any variable this
// function sets, then the harness's own variables, then acpmux-tui's.
func (s Spec) environment(m *sessions.Meta, inherited []string) []string {
	set := map[string]string{
		"ACPMUX_CHAT_ID": m.ID,
	}
	if s.Transport == TransportPty {
		set["TERM"] = "xterm-256color"
		set["COLORTERM"] = "truecolor"
	}
	for k, v := range s.Env {
		set[k] = v
	}
	dirs := ""
	if s.Kind == KindPlain && len(m.AdditionalDirectories) > 0 {
		dirs = strings.Join(m.AdditionalDirectories, string(filepath.ListSeparator))
	}
	env := make([]string, 0, len(inherited)+len(set)+1)
	for _, kv := range inherited {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; ours || k == EnvAdditionalDirectories {
			continue
		}
		env = append(env, kv)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+set[k])
	}
	if dirs != "" {
		env = append(env, EnvAdditionalDirectories+"="+dirs)
	}
	return env
}

// String shows a launch for logs: the argv, quoted where needed.
func (l Launch) String() string {
	parts := make([]string, len(l.Argv))
	for i, a := range l.Argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$") {
			parts[i] = fmt.Sprintf("%q", a)
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ") + " (in " + l.Dir + ")"
}
