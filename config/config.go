package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// DefaultScrollback is the number of lines a chat's terminal keeps above the
// screen unless the config says otherwise.
const DefaultScrollback = 10000

// Config is the parsed config file. The zero value plus Defaults is what a
// missing file means.
type Config struct {
	// DefaultHarness is the harness a new chat gets when none is named.
	DefaultHarness string `toml:"default_harness"`
	// DefaultACPHarness is the harness a chat made through the ACP door
	// (`acpmux-tui acp`, ACP on the socket) gets when the client names none.
	DefaultACPHarness string `toml:"default_acp_harness"`
	// Scrollback is the number of lines kept above each pty chat's screen.
	Scrollback int `toml:"scrollback"`
	// Harness overrides or adds harness table entries by name.
	Harness map[string]HarnessConfig `toml:"harness"`
	// Pool holds the prewarmed-harness settings.
	Pool PoolConfig `toml:"pool"`
	// Keys rebinds actions: action name to one key or a list of keys.
	Keys map[string]KeyList `toml:"keys"`
	// ACP holds the limits put on ACP agents.
	ACP ACPConfig `toml:"acp"`
	// Notify says how a chat that needs its user is announced.
	Notify NotifyConfig `toml:"notify"`
	// Host names other machines, reached over OpenSSH, by name.
	Host map[string]HostConfig `toml:"host"`
	// Worktree is `worktree = true` or the `[worktree]` table: git
	// worktrees for chats (see WorktreeConfig).
	Worktree WorktreeConfig `toml:"worktree"`
	// Web is the `[web]` table: the web door (see WebConfig).
	Web WebConfig `toml:"web"`
	// Sandbox is whether new chats are sandboxed (Landlock: they write
	// only in their folders and files) unless their harness's `sandbox`
	// or the command says otherwise. Default false.
	Sandbox bool `toml:"sandbox"`

	// src is the text the config was parsed from, so a check made later
	// (the harness table's) can name the line of the key it refuses.
	src []byte
}

// NotifyConfig is the `[notify]` table. A chat that asks for its user, or
// finishes a turn, while nobody looks at it is announced: by an open TUI
// through the terminal (a desktop notification, OSC 777 or OSC 9, and the
// bell) unless Terminal is false, and by the server running Command, if
// set, with the title and the body as two more arguments.
type NotifyConfig struct {
	Command  []string `toml:"command"`
	On       []string `toml:"on"`
	Terminal *bool    `toml:"terminal"`
}

// NotifyStatuses are the statuses [notify] on may name.
var NotifyStatuses = []string{"asking", "waiting"}

// NotifiesOn reports whether a chat going to status is announced.
func (n NotifyConfig) NotifiesOn(status string) bool {
	if n.On == nil {
		return contains(NotifyStatuses, status)
	}
	return contains(n.On, status)
}

// TerminalNotifications reports whether an open TUI announces through the
// terminal (default true).
func (n NotifyConfig) TerminalNotifications() bool { return n.Terminal == nil || *n.Terminal }

// Limits on ACP agents.
//
// MaxAgentMessageBytes bounds one JSON-RPC message (one line) from an agent
// (8 MiB): the wire guard reads no more of a line, and the ACP SDK behind it
// holds at most 10 MiB. DefaultMaxFileBytes, the default of max_file_bytes,
// is set from it: half, so that an fs/write_text_file request carrying that
// much content still fits in one message when JSON escaping doubles it
// (a newline, tab, quote or backslash is two bytes in a JSON string; only
// other control characters, as six-byte \u escapes, grow it more). A request
// over the message limit is answered with an error that names both limits,
// and the agent keeps running.
const (
	DefaultInitTimeout   = 30 * time.Second
	MaxAgentMessageBytes = 8 << 20
	DefaultMaxFileBytes  = MaxAgentMessageBytes / 2
)

// ACPConfig is the `[acp]` table: how long an agent may take to answer
// initialize, and the largest file fs/read_text_file serves.
type ACPConfig struct {
	// InitTimeout bounds the wait for an agent's answer to initialize.
	InitTimeout Duration `toml:"init_timeout"`
	// MaxFileBytes is the largest file an agent may read or write through
	// fs/read_text_file and fs/write_text_file. A write is bounded by
	// MaxAgentMessageBytes too, whatever this says.
	MaxFileBytes int64 `toml:"max_file_bytes"`
}

// Duration is a time.Duration written as "30s" or "2m" in the config file.
type Duration struct{ time.Duration }

// UnmarshalText reads a Go duration such as "30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// HarnessConfig is one `[harness.NAME]` table. Empty fields keep the built-in
// value of a harness of that name.
type HarnessConfig struct {
	Command   string            `toml:"command"`
	Args      []string          `toml:"args"`
	Env       map[string]string `toml:"env"`
	Kind      string            `toml:"kind"`
	Transport string            `toml:"transport"`
	// Sandbox, when set, decides whether this harness's new chats are
	// sandboxed, over the top-level `sandbox`.
	Sandbox *bool `toml:"sandbox"`
	// SandboxState replaces the built-in list of where the harness keeps
	// its own state, which a sandboxed chat may write: "~/.tool/" (a
	// folder, made when missing) or "~/.tool.json" (a file, writable in
	// place when it exists).
	SandboxState []string `toml:"sandbox_state"`
}

// PoolConfig is the `[pool]` table.
type PoolConfig struct {
	// Size is how many prewarmed harnesses to keep: one number for every
	// harness, or a table of harness name to number.
	Size PoolSize `toml:"size"`
}

// PoolSize is a pool size for every harness, or per harness.
type PoolSize struct {
	All        int
	PerHarness map[string]int
}

// For returns the pool size of one harness.
func (p PoolSize) For(harness string) int {
	if n, ok := p.PerHarness[harness]; ok {
		return n
	}
	return p.All
}

// UnmarshalTOML reads `size = 2` or `size = { claude = 1, shell = 2 }`.
func (p *PoolSize) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 || v > 16 {
			return fmt.Errorf("pool size %d out of range 0-16", v)
		}
		p.All = int(v)
	case map[string]any:
		p.PerHarness = map[string]int{}
		for name, n := range v {
			i, ok := n.(int64)
			if !ok || i < 0 || i > 16 {
				return fmt.Errorf("pool size of %q: want a number 0-16, got %v", name, n)
			}
			p.PerHarness[name] = int(i)
		}
	default:
		return fmt.Errorf("pool size: want a number or a table of harness = number, got %T", v)
	}
	return nil
}

// KeyList is one or more key names.
type KeyList []string

// UnmarshalTOML reads `quit = "q"` or `quit = ["q", "ctrl+c"]`.
func (k *KeyList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*k = KeyList{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("want key names, got %T", e)
			}
			*k = append(*k, s)
		}
	default:
		return fmt.Errorf("want a key name or a list of them, got %T", v)
	}
	if len(*k) == 0 {
		return errors.New("empty key list")
	}
	return nil
}

// Transports and kinds a harness may name.
var (
	Transports = []string{"pty", "acp"}
	Kinds      = []string{"claude", "codex", "gemini", "plain", "acp"}
)

// Load reads the config file at path. A missing file means the built-in
// defaults. An unknown key or a bad value is an error naming the key and its
// line, never a silent default.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return FromFile(path, data, missing)
}

// FromFile is the config of what the file at path held when it was read:
// data, or the defaults when there was no file (missing).
func FromFile(path string, data []byte, missing bool) (*Config, error) {
	if missing {
		return Defaults(), nil
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Defaults returns the configuration a missing config file means.
func Defaults() *Config {
	return &Config{Scrollback: DefaultScrollback, ACP: ACPConfig{
		InitTimeout:  Duration{DefaultInitTimeout},
		MaxFileBytes: DefaultMaxFileBytes,
	}}
}

// Parse reads config file contents and checks every value.
func Parse(data []byte) (*Config, error) {
	c := Defaults()
	md, err := toml.Decode(string(data), c)
	if err != nil {
		return nil, err
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		var msgs []string
		for _, k := range undecoded {
			msgs = append(msgs, fmt.Sprintf("line %d: unknown key %q", keyLine(data, k), k.String()))
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	if err := c.check(data); err != nil {
		return nil, err
	}
	c.src = data
	return c, nil
}

// KeyError is a refusal of the value of key, such as
// ["harness", "aider", "command"], found by a check outside this package:
// "line N: harness.aider.command: why", as Parse words its own.
func (c *Config) KeyError(key []string, format string, args ...any) error {
	k := toml.Key(key)
	msg := fmt.Sprintf("%s: %s", k.String(), fmt.Sprintf(format, args...))
	if n := keyLine(c.src, k); n > 0 {
		return fmt.Errorf("line %d: %s", n, msg)
	}
	return errors.New(msg)
}

func (c *Config) check(data []byte) error {
	bad := func(key toml.Key, format string, args ...any) error {
		return fmt.Errorf("line %d: %s: %s", keyLine(data, key), key.String(), fmt.Sprintf(format, args...))
	}
	if c.Scrollback < 0 || c.Scrollback > 1_000_000 {
		return bad(toml.Key{"scrollback"}, "%d out of range 0-1000000", c.Scrollback)
	}
	if d := c.ACP.InitTimeout.Duration; d < time.Second || d > time.Hour {
		return bad(toml.Key{"acp", "init_timeout"}, "%v out of range 1s-1h", d)
	}
	if n := c.ACP.MaxFileBytes; n < 1 || n > 1<<30 {
		return bad(toml.Key{"acp", "max_file_bytes"}, "%d out of range 1-1073741824", n)
	}
	for _, st := range c.Notify.On {
		if !contains(NotifyStatuses, st) {
			return bad(toml.Key{"notify", "on"}, "%q is not one of %s", st, strings.Join(NotifyStatuses, ", "))
		}
	}
	if c.Notify.Command != nil {
		if len(c.Notify.Command) == 0 || c.Notify.Command[0] == "" {
			return bad(toml.Key{"notify", "command"}, "want a program and its arguments, such as [\"notify-send\", \"--app-name=acpmux\"]")
		}
		for _, a := range c.Notify.Command {
			if strings.ContainsRune(a, 0) {
				return bad(toml.Key{"notify", "command"}, "contains a NUL byte")
			}
		}
	}
	names := make([]string, 0, len(c.Harness))
	for name := range c.Harness {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		h := c.Harness[name]
		if !validHarnessName(name) {
			return bad(toml.Key{"harness", name}, "a harness name is 1-32 of [a-z0-9_-]")
		}
		if h.Transport != "" && !contains(Transports, h.Transport) {
			return bad(toml.Key{"harness", name, "transport"}, "%q is not one of %s", h.Transport, strings.Join(Transports, ", "))
		}
		if h.Kind != "" && !contains(Kinds, h.Kind) {
			return bad(toml.Key{"harness", name, "kind"}, "%q is not one of %s", h.Kind, strings.Join(Kinds, ", "))
		}
		if strings.ContainsRune(h.Command, 0) {
			return bad(toml.Key{"harness", name, "command"}, "contains a NUL byte")
		}
		for k := range h.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return bad(toml.Key{"harness", name, "env"}, "bad variable name %q", k)
			}
		}
		for _, p := range h.SandboxState {
			if !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || strings.Contains("/"+p+"/", "/../") {
				return bad(toml.Key{"harness", name, "sandbox_state"}, "%q: want an absolute path or one under ~/, without ..", p)
			}
		}
	}
	if c.DefaultHarness != "" && !validHarnessName(c.DefaultHarness) {
		return bad(toml.Key{"default_harness"}, "%q is not a harness name", c.DefaultHarness)
	}
	if c.DefaultACPHarness != "" && !validHarnessName(c.DefaultACPHarness) {
		return bad(toml.Key{"default_acp_harness"}, "%q is not a harness name", c.DefaultACPHarness)
	}
	if err := c.checkHosts(bad); err != nil {
		return err
	}
	if err := c.checkWeb(bad); err != nil {
		return err
	}
	for action, keys := range c.Keys {
		if !contains(Actions, action) {
			return bad(toml.Key{"keys", action}, "unknown action; actions are %s", strings.Join(Actions, ", "))
		}
		for _, k := range keys {
			if err := checkKeyName(k); err != nil {
				return bad(toml.Key{"keys", action}, "%v", err)
			}
		}
	}
	return nil
}

func validHarnessName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// keyLine finds the line a key is set on, for error messages. It tracks table
// headers and matches the key's last part inside its table; 0 means unknown.
func keyLine(data []byte, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	table, last := strings.Join(key[:len(key)-1], "."), key[len(key)-1]
	want := normaliseKey(strings.Join(key, "."))
	current := ""
	// parent is the line that sets a table holding the key, as in
	// `claude = { kind = "x" }`: the answer when the key has no line of its own.
	parent, parentLen := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			h := strings.Trim(line, "[] \t")
			if i := strings.IndexByte(h, ']'); i >= 0 {
				h = h[:i]
			}
			current = normaliseKey(h)
			if current == want {
				return n
			}
			// A key left out of its table (a command a harness lacks)
			// is named at the table's header.
			if strings.HasPrefix(want, current+".") && len(current) > parentLen {
				parent, parentLen = n, len(current)
			}
			continue
		}
		name, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name = normaliseKey(name)
		full := joinKey(current, name)
		if full == want || (current == table && name == last) || strings.HasPrefix(full, want+".") {
			return n
		}
		if strings.HasPrefix(want, full+".") && len(full) > parentLen {
			parent, parentLen = n, len(full)
		}
	}
	return parent
}

func joinKey(table, name string) string {
	if table == "" {
		return name
	}
	return table + "." + name
}

func normaliseKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
