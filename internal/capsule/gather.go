package capsule

import (
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Parent is what is known of the chat a capsule is made from.
type Parent struct {
	Meta *sessions.Meta
	// Spec is its harness.
	Spec harness.Spec
	// Transcript is an ACP chat's transcript, from the mux that runs it
	// (nil when none runs it).
	Transcript []proto.Entry
	// Lines are a pty chat's scrollback and screen as plain lines, from the
	// mux that runs it (nil when none does).
	Lines []string
	// Env is the environment the harness ran with, where its own session
	// logs are found.
	Env []string
}

// Gather reads what was said in the parent chat from the best source
// there is: an ACP chat's transcript; else the harness's own session log
// (Claude Code's, also written by claude-agent-acp, or Codex's rollout
// file) for the session id stored with the chat; else the terminal's
// scrollback.
func Gather(p Parent) Conversation {
	if p.Spec.Transport == harness.TransportACP && len(p.Transcript) > 0 {
		return FromTranscript(p.Transcript)
	}
	id := ""
	if p.Meta != nil {
		id = p.Meta.AgentSessionID
	}
	if id != "" {
		if p.Spec.Kind == harness.KindClaude || p.Spec.Transport == harness.TransportACP {
			if path := harness.ClaudeSessionLog(p.Env, id); path != "" {
				return FromClaudeLog(path)
			}
		}
		if p.Spec.Kind == harness.KindCodex || p.Spec.Transport == harness.TransportACP {
			if path := harness.CodexSessionLog(p.Env, id); path != "" {
				return FromCodexLog(path)
			}
		}
	}
	if len(p.Lines) > 0 {
		return FromLines(p.Lines)
	}
	return Conversation{Note: "Nothing of the earlier conversation could be read: it has no transcript, session log or terminal text that acpmux-tui can see."}
}

// InfoFor describes a capsule from parent that opens a chat derived from
// it (see sessions.Store.Derive): under harnessName, in cwd (the parent's
// project when "", or an empty folder of its own when noProject), with the
// parent's folders less the new chat's own.
func InfoFor(kind Kind, parent *sessions.Meta, harnessName, cwd string, noProject bool) Info {
	if cwd == "" && !noProject {
		cwd = parent.Cwd
	}
	var folders []string
	for _, d := range parent.AdditionalDirectories {
		if d != cwd {
			folders = append(folders, d)
		}
	}
	if harnessName == "" {
		harnessName = parent.Harness
	}
	return Info{
		Kind: kind, ParentID: parent.ID, ParentName: parent.Name, ParentHarness: parent.Harness,
		Harness: harnessName, Cwd: cwd, Folders: folders,
	}
}

// HistoryBytes is how much of a pty chat's terminal text is worth asking
// the mux for: more than the capsule quotes.
const HistoryBytes = 256 << 10

// Env is the environment in which a harness of spec finds its session
// logs: HOME, CLAUDE_CONFIG_DIR and CODEX_HOME as getenv has them, unless
// the harness's own settings set them.
func Env(spec harness.Spec, getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		v := getenv(k)
		if s, ok := spec.Env[k]; ok {
			v = s
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ForDerivation decides whether a chat derived from parent starts with a
// capsule, and builds it: a handoff always has one; a fork has one when its
// harness cannot branch the conversation itself (or, an ACP agent, may not:
// the mux drops it when session/fork works) and something was said; a side
// chat never does. It returns "" for none.
func ForDerivation(p Parent, origin, harnessName, cwd string, noProject bool) string {
	var kind Kind
	switch origin {
	case sessions.OriginHandoff:
		kind = KindHandoff
	case sessions.OriginFork:
		if native, _ := p.Spec.NativeFork(); native {
			return ""
		}
		kind = KindFork
	default:
		return ""
	}
	conv := Gather(p)
	if kind == KindFork && conv.Empty() {
		return "" // nothing said: nothing to carry
	}
	return Build(InfoFor(kind, p.Meta, harnessName, cwd, noProject), conv)
}
