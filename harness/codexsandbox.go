package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// This file decides the sandbox a Codex chat runs in. Codex refuses
// --add-dir, and exits, unless its sandbox takes additional writable roots
// ("Error adding directories: Ignoring --add-dir (…) because the effective
// permissions do not allow additional writable roots"); in a folder it does
// not trust its default sandbox is read-only. So a Codex chat with folders
// gets --sandbox workspace-write, unless the user chose a sandbox (in the
// harness's args or Codex's config): that choice stands, and where it cannot
// take writable roots the folders go as a note in Codex's developer
// instructions instead, readable but not writable.

// Codex sandbox modes (--sandbox, sandbox_mode) and the built-in permission
// profiles (default_permissions).
const (
	CodexReadOnly       = "read-only"
	CodexWorkspaceWrite = "workspace-write"
	CodexFullAccess     = "danger-full-access"
)

// Who chose a Codex chat's sandbox, as CodexSandbox.From says it.
const (
	SandboxByAcpmux  = "acpmux-tui, for the folders"
	SandboxByArgs    = "harness args"
	SandboxByDefault = "Codex's default"
)

// CodexSandbox is the sandbox of one start of a Codex chat.
type CodexSandbox struct {
	// Mode is the sandbox mode or permission profile; "" when nothing
	// chose one and Codex picks its own.
	Mode string
	// From says who chose it: SandboxByAcpmux, SandboxByArgs, a Codex
	// config file ("config.toml", "profile NAME"), or SandboxByDefault.
	From string
}

// String is the sandbox as the summary shows it, with who chose it:
// "workspace-write (acpmux-tui, for the folders)", "read-only (config.toml)".
func (c CodexSandbox) String() string {
	if c.Mode == "" {
		return SandboxByDefault
	}
	return c.Mode + " (" + c.From + ")"
}

// TakesWritableRoots reports whether Codex accepts --add-dir in this
// sandbox. Codex's own default (no mode) is read-only in a folder it does
// not trust; a permission profile of the user's own cannot be told from
// outside, so it is not assumed to.
func (c CodexSandbox) TakesWritableRoots() bool {
	switch strings.TrimPrefix(c.Mode, ":") {
	case CodexWorkspaceWrite, "workspace", CodexFullAccess:
		return true
	}
	return false
}

// codexChoice is what the user's harness args and Codex config say of the
// sandbox and the developer instructions.
type codexChoice struct {
	sandbox CodexSandbox
	// instructions are the user's own developer_instructions, which a -c
	// override of ours would replace; set says there are any.
	instructions string
	set          bool
}

// codexArgs is what Codex's own options in the harness args say.
type codexArgs struct {
	bypass, flagSandbox, autoSandbox string
	configSandbox, configPerms       string
	profile                          string
	instructions                     string
	hasInstructions                  bool
}

// parseCodexArgs reads the options that choose a sandbox: --sandbox/-s
// MODE, --full-auto (older Codex: workspace-write), --approve-for-me
// (workspace-write), --dangerously-bypass-approvals-and-sandbox/--yolo,
// -c/--config sandbox_mode=, default_permissions=, developer_instructions=,
// and --profile/-p NAME. It stops at "--".
func parseCodexArgs(args []string) codexArgs {
	var a codexArgs
	value := func(i *int, arg, long, short string) (string, bool) {
		switch {
		case arg == long || arg == short:
			if *i+1 < len(args) {
				*i++
				return args[*i], true
			}
			return "", false
		case strings.HasPrefix(arg, long+"="):
			return arg[len(long)+1:], true
		case len(arg) > 2 && strings.HasPrefix(arg, short) && !strings.HasPrefix(arg, "--"):
			return strings.TrimPrefix(arg[2:], "="), true
		}
		return "", false
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		switch arg {
		case "--dangerously-bypass-approvals-and-sandbox", "--yolo":
			a.bypass = CodexFullAccess
			continue
		case "--full-auto", "--approve-for-me":
			a.autoSandbox = CodexWorkspaceWrite
			continue
		}
		if v, ok := value(&i, arg, "--sandbox", "-s"); ok {
			a.flagSandbox = v
			continue
		}
		if v, ok := value(&i, arg, "--profile", "-p"); ok {
			a.profile = v
			continue
		}
		if kv, ok := value(&i, arg, "--config", "-c"); ok {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.TrimSpace(k) {
			case "sandbox_mode":
				a.configSandbox = codexConfigValue(v)
			case "default_permissions":
				a.configPerms = codexConfigValue(v)
			case "developer_instructions":
				a.instructions, a.hasInstructions = codexConfigValue(v), true
			}
		}
	}
	return a
}

// codexConfigValue reads the value of a -c override as Codex does: as
// TOML, or, when that fails, the raw string.
func codexConfigValue(v string) string {
	var doc struct {
		V any `toml:"v"`
	}
	if _, err := toml.Decode("v = "+v, &doc); err == nil {
		if s, ok := doc.V.(string); ok {
			return s
		}
	}
	return v
}

// codexConfigFile is what one Codex config file says of the sandbox and
// the developer instructions.
type codexConfigFile struct {
	SandboxMode           string  `toml:"sandbox_mode"`
	DefaultPermissions    string  `toml:"default_permissions"`
	DeveloperInstructions *string `toml:"developer_instructions"`
}

// readCodexConfig reads a Codex config file, bounded and only if it is a
// regular file; a missing or unreadable one says nothing (Codex reports a
// broken config itself, on the chat's screen).
func readCodexConfig(path string) (codexConfigFile, bool) {
	var cfg codexConfigFile
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > codexConfigMax {
		return cfg, false
	}
	if _, err := toml.DecodeFile(path, &cfg); err != nil {
		return codexConfigFile{}, false
	}
	return cfg, true
}

// codexUserChoice is the sandbox and developer instructions the user chose
// for a Codex run with args and the environment env: the harness args
// first, then the profile the args name ($CODEX_HOME/NAME.config.toml,
// layered on the base), then $CODEX_HOME/config.toml.
func codexUserChoice(args, env []string) codexChoice {
	a := parseCodexArgs(args)
	var c codexChoice
	if a.hasInstructions {
		c.instructions, c.set = a.instructions, true
	}
	for _, mode := range []string{a.bypass, a.flagSandbox, a.autoSandbox, a.configSandbox, a.configPerms} {
		if mode != "" {
			c.sandbox = CodexSandbox{Mode: mode, From: SandboxByArgs}
			break
		}
	}
	home := codexHome(env)
	if home == "" {
		return c
	}
	type layer struct{ name, path string }
	var layers []layer
	if a.profile != "" && !strings.ContainsAny(a.profile, `/\`) {
		layers = append(layers, layer{"profile " + a.profile, filepath.Join(home, a.profile+".config.toml")})
	}
	layers = append(layers, layer{"config.toml", filepath.Join(home, "config.toml")})
	for _, l := range layers {
		cfg, ok := readCodexConfig(l.path)
		if !ok {
			continue
		}
		if c.sandbox.Mode == "" {
			if mode := firstNonEmptyString(cfg.SandboxMode, cfg.DefaultPermissions); mode != "" {
				c.sandbox = CodexSandbox{Mode: mode, From: l.name}
			}
		}
		if !c.set && cfg.DeveloperInstructions != nil {
			c.instructions, c.set = *cfg.DeveloperInstructions, true
		}
	}
	return c
}

func firstNonEmptyString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// CodexFoldersNote is the head of the note that tells Codex of folders it
// may read but not write: it goes in its developer instructions.
const CodexFoldersNote = "[acpmux-tui] Besides the working folder, this chat may read files in these folders; its sandbox (%s) does not let it write there:\n"

// CodexFilesSandboxNote follows the files note when Codex's sandbox does
// not let it write everywhere: writing a file outside its folders may need
// the user's approval, or be refused.
const CodexFilesSandboxNote = "\nIts sandbox (%s) may ask for approval, or refuse, before it writes a file outside its folders."

// codexInstructions is the -c override that gives Codex, after the user's
// own developer instructions (which it replaces), the folders its sandbox
// cannot take as a note (dirs, when there are any) and the chat's single
// files (files, when there are any).
func codexInstructions(own string, hasOwn bool, sb CodexSandbox, dirs, files []string) string {
	var b strings.Builder
	if hasOwn && own != "" {
		b.WriteString(own)
		b.WriteString("\n\n")
	}
	if len(dirs) > 0 {
		fmt.Fprintf(&b, CodexFoldersNote, sb.Mode)
		for _, d := range dirs {
			b.WriteString("- " + d + "\n")
		}
	}
	if len(files) > 0 {
		if len(dirs) > 0 {
			b.WriteString("\n")
		}
		b.WriteString(FilesNote(files))
		if strings.TrimPrefix(sb.Mode, ":") != CodexFullAccess {
			mode := sb.Mode
			if mode == "" {
				mode = SandboxByDefault
			}
			fmt.Fprintf(&b, CodexFilesSandboxNote, mode)
		}
	}
	return "developer_instructions=" + tomlString(strings.TrimSuffix(b.String(), "\n"))
}

// tomlString writes s as a TOML basic string, which -c parses: quotes,
// backslashes and control characters escaped.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
