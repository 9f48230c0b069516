package harness

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// This file gives a codex-acp chat its folders as Codex's writable roots.
// codex-acp (Zed's ACP adapter for Codex, 0.16.0) does not advertise
// sessionCapabilities.additionalDirectories, so the ACP field cannot carry
// the folders; it takes Codex's config overrides on its command line
// (`-c key=value`, the value read as TOML). A chat with folders gets
//
//	-c sandbox_mode="workspace-write"      unless the user chose a sandbox
//	-c sandbox_workspace_write.writable_roots=["/own/root", "/folder/a", …]
//
// besides the note at the head of its first prompt (FoldersVia says
// "note"). In a folder it does not trust codex-acp starts read-only, its
// "read-only" mode, where the roots do nothing: so the workspace-write
// sandbox, as a Codex chat in a terminal gets it (codexSandbox), and a
// sandbox the user chose stands. The override replaces the user's own
// writable_roots, so those come first in the list.
//
// codex-acp builds each mode's sandbox from that config: a session/set_mode
// (or the "mode" config option) back to "auto" has the roots again, and
// "read-only" and "full-access" take none. No mode change drops them, so
// nothing re-applies them after one; every start builds them again.

// CodexWritableRootsKey is the Codex config key of the writable roots of
// its workspace-write sandbox.
const CodexWritableRootsKey = "sandbox_workspace_write.writable_roots"

// IsCodexACP reports whether the harness runs codex-acp, whatever its name
// in the table: an ACP harness whose command, or one of its args before
// "--" (a launcher: `node …/codex-acp.js`, `npx @zed-industries/codex-acp`),
// is named codex-acp, with any folder or npm scope before it and a ".js",
// ".exe" or npm "@version" after it.
func (s Spec) IsCodexACP() bool {
	if s.Transport != TransportACP {
		return false
	}
	if isCodexACPName(s.Command) {
		return true
	}
	for _, a := range s.Args {
		if a == "--" {
			break
		}
		if isCodexACPName(a) {
			return true
		}
	}
	return false
}

// isCodexACPName reports whether a command or argument names codex-acp.
func isCodexACPName(p string) bool {
	base := p[strings.LastIndexAny(p, `/\`)+1:]
	if i := strings.LastIndexByte(base, '@'); i > 0 {
		base = base[:i] // codex-acp@0.16.0
	}
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".js"), ".exe")
	return base == "codex-acp"
}

// codexACPSandbox gives a codex-acp start with folders the overrides above,
// after its argv, and records the sandbox in the launch: FoldersReadOnly
// when the user's sandbox takes no writable roots (the roots still go, for
// a later change of mode).
func (l *Launch) codexACPSandbox(args, dirs []string) []string {
	argv := l.Argv
	if len(dirs) == 0 {
		return argv
	}
	sb := codexUserChoice(args, l.Env).sandbox
	if sb.Mode == "" {
		sb = CodexSandbox{Mode: CodexWorkspaceWrite, From: SandboxByAcpmux}
		argv = append(argv, "-c", "sandbox_mode="+tomlString(CodexWorkspaceWrite))
	}
	l.Sandbox = sb.String()
	l.FoldersReadOnly = !sb.TakesWritableRoots()
	return append(argv, "-c", codexWritableRoots(codexUserRoots(args, l.Env), dirs))
}

// codexWritableRoots is the -c override that makes own and then dirs,
// each once, Codex's writable roots: a TOML array of basic strings.
func codexWritableRoots(own, dirs []string) string {
	seen := map[string]bool{}
	var b strings.Builder
	b.WriteString(CodexWritableRootsKey + "=[")
	for _, r := range append(append([]string{}, own...), dirs...) {
		if seen[r] {
			continue
		}
		if len(seen) > 0 {
			b.WriteString(", ")
		}
		seen[r] = true
		b.WriteString(tomlString(r))
	}
	b.WriteByte(']')
	return b.String()
}

// codexUserRoots is the writable_roots the user gave Codex, which the
// override replaces: the last -c/--config override of them in the harness
// args (as a dotted key or in a sandbox_workspace_write table), else
// [sandbox_workspace_write] writable_roots in $CODEX_HOME/config.toml.
func codexUserRoots(args, env []string) []string {
	var roots []string
	found := false
	for _, kv := range codexOverrides(args) {
		k, v, _ := strings.Cut(kv, "=")
		var doc struct {
			V any `toml:"v"`
		}
		if _, err := toml.Decode("v = "+v, &doc); err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case CodexWritableRootsKey:
			roots, found = tomlStrings(doc.V), true
		case "sandbox_workspace_write":
			if t, ok := doc.V.(map[string]any); ok {
				if r, ok := t["writable_roots"]; ok {
					roots, found = tomlStrings(r), true
				}
			}
		}
	}
	if found {
		return roots
	}
	home := codexHome(env)
	if home == "" {
		return nil
	}
	path := filepath.Join(home, "config.toml")
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > codexConfigMax {
		return nil
	}
	var cfg struct {
		SandboxWorkspaceWrite struct {
			WritableRoots []string `toml:"writable_roots"`
		} `toml:"sandbox_workspace_write"`
	}
	if _, err := toml.DecodeFile(path, &cfg); err != nil {
		return nil
	}
	return cfg.SandboxWorkspaceWrite.WritableRoots
}

// codexOverrides is the key=value of every -c/--config option in args, in
// order, up to "--".
func codexOverrides(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return out
		case a == "-c" || a == "--config":
			if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case strings.HasPrefix(a, "--config="):
			out = append(out, strings.TrimPrefix(a, "--config="))
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			out = append(out, strings.TrimPrefix(a[2:], "="))
		}
	}
	return out
}

// tomlStrings is the strings of a decoded TOML array, in order; an entry
// that is not a string is left out.
func tomlStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
