// Package harness is the harness table: how each harness is started and how a
// chat's folders reach it (argv flags, an environment variable, the ACP field
// or a context note).
package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Transports.
const (
	TransportPty = "pty"
	TransportACP = "acp"
)

// Kinds decide how folders and session ids reach a harness.
const (
	KindClaude = "claude"
	KindCodex  = "codex"
	KindGemini = "gemini"
	KindPlain  = "plain"
	KindACP    = "acp"
)

// Ways folders reach a harness, as reported in foldersVia.
const (
	ViaArgv = "argv"
	ViaACP  = "acp"
	ViaFlag = "flag"
	ViaEnv  = "env"
	ViaNote = "note"
	ViaNone = "none"
)

// EnvAdditionalDirectories carries a plain harness's folders, colon-separated.
const EnvAdditionalDirectories = "ACPMUX_ADDITIONAL_DIRECTORIES"

// Spec is one entry of the harness table.
type Spec struct {
	Name      string
	Command   string
	Args      []string
	Env       map[string]string
	Kind      string
	Transport string
	// FolderFlag is the command-line flag given once per folder ("--add-dir"),
	// or empty when folders go another way.
	FolderFlag string
	// AdvertisesFolders records what an ACP harness is known to do with the
	// additionalDirectories field: true when it advertises the capability.
	// The mux learns the truth at initialize; this is the table's expectation.
	AdvertisesFolders bool
	// Sandbox is the config's `sandbox` for this harness: whether its new
	// chats are sandboxed (nil: the config's top-level default decides).
	Sandbox *bool
	// SandboxState is the config's `sandbox_state`: where the harness
	// keeps its own state, which a sandboxed chat may write (bound.go);
	// nil keeps the built-in list.
	SandboxState []string
}

// Builtins returns the built-in harness table (docs/harnesses.md).
func Builtins() []Spec {
	return []Spec{
		{Name: "claude", Command: "claude", Kind: KindClaude, Transport: TransportPty, FolderFlag: "--add-dir"},
		{Name: "codex", Command: "codex", Kind: KindCodex, Transport: TransportPty, FolderFlag: "--add-dir"},
		{Name: "gemini", Command: "gemini", Kind: KindGemini, Transport: TransportPty, FolderFlag: "--include-directories"},
		{Name: "shell", Command: "$SHELL", Kind: KindPlain, Transport: TransportPty},
		{Name: "claude-acp", Command: "claude-agent-acp", Kind: KindACP, Transport: TransportACP, AdvertisesFolders: true},
		{Name: "codex-acp", Command: "codex-acp", Kind: KindACP, Transport: TransportACP}, // folders: writable roots (codexacp.go) and the note
		{Name: "gemini-acp", Command: "gemini", Args: []string{"--acp"}, Kind: KindACP, Transport: TransportACP, FolderFlag: "--include-directories"},
		{Name: "opencode", Command: "opencode", Args: []string{"acp"}, Kind: KindACP, Transport: TransportACP},
		{Name: "pi", Command: "pi-acp", Kind: KindACP, Transport: TransportACP},
	}
}

// folderFlagOf is the flag a kind takes per folder.
func folderFlagOf(kind string) string {
	switch kind {
	case KindClaude, KindCodex:
		return "--add-dir"
	case KindGemini:
		return "--include-directories"
	}
	return ""
}

// Table is the harness table in effect: the built-ins with the config's
// `[harness.NAME]` overrides and additions.
type Table struct {
	specs map[string]Spec
	order []string
}

// NewTable builds the table from the built-ins and the config.
func NewTable(cfg *config.Config) (*Table, error) {
	t := &Table{specs: map[string]Spec{}}
	for _, s := range Builtins() {
		t.specs[s.Name] = s
		t.order = append(t.order, s.Name)
	}
	names := make([]string, 0, len(cfg.Harness))
	for name := range cfg.Harness {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := cfg.Harness[name]
		s, ok := t.specs[name]
		if !ok {
			if o.Command == "" {
				return nil, cfg.KeyError([]string{"harness", name, "command"}, "a new harness needs a command")
			}
			s = Spec{Name: name, Kind: KindPlain, Transport: TransportPty}
			t.order = append(t.order, name)
		}
		if o.Command != "" {
			s.Command = o.Command
		}
		if o.Args != nil {
			s.Args = append([]string(nil), o.Args...)
		}
		if o.Env != nil {
			s.Env = o.Env
		}
		if o.Kind != "" && o.Kind != s.Kind {
			s.Kind = o.Kind
			s.FolderFlag = folderFlagOf(o.Kind)
			s.AdvertisesFolders = false
		}
		if o.Transport != "" {
			s.Transport = o.Transport
		}
		if o.Sandbox != nil {
			v := *o.Sandbox
			s.Sandbox = &v
		}
		if o.SandboxState != nil {
			s.SandboxState = append([]string{}, o.SandboxState...)
		}
		if s.Kind == KindACP && s.Transport != TransportACP {
			return nil, cfg.KeyError([]string{"harness", name, "kind"}, "kind acp needs transport acp")
		}
		if s.Transport == TransportACP && s.Kind != KindACP {
			// An ACP transport speaks ACP whatever the kind says of its CLI.
			s.Kind = KindACP
		}
		t.specs[name] = s
	}
	if d := cfg.DefaultHarness; d != "" {
		if _, ok := t.specs[d]; !ok {
			return nil, cfg.KeyError([]string{"default_harness"}, "%q names no harness (known: %s)", d, strings.Join(t.order, ", "))
		}
	}
	if d := cfg.DefaultACPHarness; d != "" {
		s, ok := t.specs[d]
		if !ok {
			return nil, cfg.KeyError([]string{"default_acp_harness"}, "%q names no harness (known: %s)", d, strings.Join(t.order, ", "))
		}
		if s.Transport != TransportACP {
			return nil, cfg.KeyError([]string{"default_acp_harness"}, "%q runs in a terminal (transport pty): the ACP door needs an ACP harness", d)
		}
	}
	return t, nil
}

// Load reads the config file at path (config.Load) and builds the harness
// table from it: what the CLI and the server both do, so `harnesses` and a
// start agree. A refusal names the file, the line and the key.
func Load(path string) (*config.Config, *Table, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, nil, err
	}
	return withTable(path, cfg)
}

// FromFile is Load of what the file held when it was read
// (config.FromFile): a caller that compares the bytes it read parses
// those, not the file again.
func FromFile(path string, data []byte, missing bool) (*config.Config, *Table, error) {
	cfg, err := config.FromFile(path, data, missing)
	if err != nil {
		return nil, nil, err
	}
	return withTable(path, cfg)
}

func withTable(path string, cfg *config.Config) (*config.Config, *Table, error) {
	t, err := NewTable(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, t, nil
}

// TableOf makes a table of specs, in their order: a client's copy of the
// table a server has in effect, as its answers describe it. A name given
// twice is kept once, where it first came.
func TableOf(specs []Spec) *Table {
	t := &Table{specs: map[string]Spec{}}
	for _, s := range specs {
		if _, twice := t.specs[s.Name]; twice {
			continue
		}
		t.specs[s.Name] = s
		t.order = append(t.order, s.Name)
	}
	return t
}

// Get returns the harness of that name.
func (t *Table) Get(name string) (Spec, bool) {
	s, ok := t.specs[name]
	return s, ok
}

// All returns the table in order: the built-ins, then added harnesses.
func (t *Table) All() []Spec {
	out := make([]Spec, len(t.order))
	for i, n := range t.order {
		out[i] = t.specs[n]
	}
	return out
}

// Names returns the harness names in table order.
func (t *Table) Names() []string { return append([]string(nil), t.order...) }

// Default picks the harness of a new chat when none is named: the config's
// default_harness, else the first agent found on PATH, else shell, so a new
// user always sees a chat start.
func (t *Table) Default(cfg *config.Config, getenv func(string) string) string {
	if cfg.DefaultHarness != "" {
		return cfg.DefaultHarness
	}
	for _, n := range []string{"claude", "codex", "gemini"} {
		if s, ok := t.specs[n]; ok && s.Found(getenv) {
			return n
		}
	}
	return "shell"
}

// DefaultACP is the harness a chat made through the ACP door gets when the
// client names none: the config's default_acp_harness; else its
// default_harness when that speaks ACP; else the first ACP harness of the
// table, in its order, whose program is installed. It is "" when no ACP
// harness is installed.
func (t *Table) DefaultACP(cfg *config.Config, getenv func(string) string) string {
	if cfg.DefaultACPHarness != "" {
		return cfg.DefaultACPHarness
	}
	if s, ok := t.specs[cfg.DefaultHarness]; ok && s.Transport == TransportACP {
		return cfg.DefaultHarness
	}
	for _, n := range t.order {
		if s := t.specs[n]; s.Transport == TransportACP && s.Found(getenv) {
			return n
		}
	}
	return ""
}

// ResolveCommand returns the program to exec: $SHELL expanded (to /bin/sh when
// unset), then looked up on PATH.
func (s Spec) ResolveCommand(getenv func(string) string) (string, error) {
	cmd := s.Command
	if cmd == "$SHELL" {
		cmd = getenv("SHELL")
		if cmd == "" {
			cmd = "/bin/sh"
		}
	}
	if strings.HasPrefix(cmd, "$") {
		cmd = getenv(cmd[1:])
	}
	if cmd == "" {
		return "", fmt.Errorf("harness %s: empty command", s.Name)
	}
	path, err := lookPath(cmd, getenv("PATH"))
	if err != nil {
		return "", fmt.Errorf("harness %s: %w", s.Name, err)
	}
	return path, nil
}

// lookPath finds an executable as exec.LookPath does, but on the PATH given,
// so the environment acpmux-tui passes on is the one searched.
func lookPath(cmd, pathList string) (string, error) {
	if strings.Contains(cmd, "/") {
		if isExecutable(cmd) {
			return cmd, nil
		}
		return "", fmt.Errorf("%s: %w", cmd, exec.ErrNotFound)
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, cmd); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found on PATH: %w", cmd, exec.ErrNotFound)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0
}

// Found reports whether the harness's command is installed.
func (s Spec) Found(getenv func(string) string) bool {
	_, err := s.ResolveCommand(getenv)
	return err == nil
}

// ChatFoldersVia says how chat m's folders reach this harness: "none" when
// it has no folders; else the way they went at its last start, recorded
// then (Meta.FoldersVia); else, before its first start, the table's
// expectation, with expected set.
func (s Spec) ChatFoldersVia(m *sessions.Meta) (via string, expected bool) {
	n := len(m.AdditionalDirectories)
	switch {
	case n == 0:
		return ViaNone, false
	case m.FoldersVia != "":
		return m.FoldersVia, false
	}
	return s.FoldersVia(n, nil), true
}

// FoldersVia says how a chat's folders reach this harness: "argv", "env",
// "acp", "flag", "note", or "none" when the chat has no folders.
// advertised reports the agent's sessionCapabilities.additionalDirectories
// where it is known (nil: not yet initialized, so the table's expectation).
func (s Spec) FoldersVia(folders int, advertised *bool) string {
	if folders == 0 {
		return ViaNone
	}
	switch s.Kind {
	case KindClaude, KindCodex, KindGemini:
		return ViaArgv
	case KindPlain:
		return ViaEnv
	}
	adv := s.AdvertisesFolders
	if advertised != nil {
		adv = *advertised
	}
	switch {
	case adv:
		return ViaACP
	case s.FolderFlag != "":
		return ViaFlag
	default:
		return ViaNote
	}
}
