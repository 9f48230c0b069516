package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolvePaths(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		vars       map[string]string
		home, conf string
		err        string
	}{
		{
			name: "ACPMUX variables win",
			vars: map[string]string{"ACPMUX_HOME": "/agents", "ACPMUX_CONFIG": "/etc/acpmux.toml", "XDG_DATA_HOME": "/xdg/data", "XDG_CONFIG_HOME": "/xdg/config", "HOME": "/home/me"},
			home: "/agents", conf: "/etc/acpmux.toml",
		},
		{
			name: "XDG next",
			vars: map[string]string{"XDG_DATA_HOME": "/xdg/data", "XDG_CONFIG_HOME": "/xdg/config", "HOME": "/home/me"},
			home: "/xdg/data/acpmux", conf: "/xdg/config/acpmux/config.toml",
		},
		{
			name: "HOME last",
			vars: map[string]string{"HOME": "/home/me"},
			home: "/home/me/.local/share/acpmux", conf: "/home/me/.config/acpmux/config.toml",
		},
		{
			name: "each resolved on its own",
			vars: map[string]string{"ACPMUX_HOME": "/agents", "XDG_CONFIG_HOME": "/xdg/config", "HOME": "/home/me"},
			home: "/agents", conf: "/xdg/config/acpmux/config.toml",
		},
		{
			name: "relative XDG values are ignored",
			vars: map[string]string{"XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "conf", "HOME": "/home/me"},
			home: "/home/me/.local/share/acpmux", conf: "/home/me/.config/acpmux/config.toml",
		},
		{
			name: "a relative ACPMUX_CONFIG is made absolute",
			vars: map[string]string{"ACPMUX_HOME": "/agents", "ACPMUX_CONFIG": "c.toml"},
			home: "/agents", conf: filepath.Join(cwd, "c.toml"),
		},
		{
			name: "a relative ACPMUX_HOME is refused",
			vars: map[string]string{"ACPMUX_HOME": "agents", "HOME": "/home/me"},
			err:  `ACPMUX_HOME must be an absolute path: it is "agents"`,
		},
		{
			name: "ACPMUX_HOME of . is refused",
			vars: map[string]string{"ACPMUX_HOME": "."},
			err:  `ACPMUX_HOME must be an absolute path: it is "."`,
		},
		{
			name: "paths are cleaned",
			vars: map[string]string{"ACPMUX_HOME": "/agents/", "XDG_CONFIG_HOME": "/xdg//config/", "HOME": "/home/me"},
			home: "/agents", conf: "/xdg/config/acpmux/config.toml",
		},
		{name: "nothing set", vars: map[string]string{}, err: "neither ACPMUX_HOME, XDG_DATA_HOME nor HOME is set"},
		{name: "relative HOME", vars: map[string]string{"HOME": "me"}, err: "HOME is not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ResolvePaths(env(tt.vars))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Home != tt.home || p.Config != tt.conf {
				t.Errorf("got %+v, want home %s config %s", p, tt.home, tt.conf)
			}
			if p.Log() != filepath.Join(tt.home, "logs", "acpmux-tui.log") {
				t.Errorf("log %s", p.Log())
			}
		})
	}
}

func TestLoadMissingFileMeansDefaults(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "none", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Scrollback != DefaultScrollback || c.DefaultHarness != "" || len(c.Harness) != 0 || c.Pool.Size.For("claude") != 0 {
		t.Errorf("defaults: %+v", c)
	}
	km := c.KeyMap()
	if !slices.Equal(km.Quit.Keys(), []string{"q"}) || !slices.Equal(km.Down.Keys(), []string{"j", "down"}) {
		t.Errorf("default keys: quit %v down %v", km.Quit.Keys(), km.Down.Keys())
	}
}

func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	text := `default_harness = "claude"
scrollback = 500

[harness.claude]
command = "/opt/claude/bin/claude"
args = ["--model", "opus"]
env = { CLAUDE_CONFIG_DIR = "/home/me/.claude-work" }

[harness.mine]
command = "my-agent"
kind = "acp"
transport = "acp"

[pool]
size = 2

[keys]
quit = ["Q", "ctrl+c"]
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.DefaultHarness != "claude" || c.Scrollback != 500 {
		t.Errorf("%+v", c)
	}
	h := c.Harness["claude"]
	if h.Command != "/opt/claude/bin/claude" || !slices.Equal(h.Args, []string{"--model", "opus"}) || h.Env["CLAUDE_CONFIG_DIR"] != "/home/me/.claude-work" {
		t.Errorf("harness.claude %+v", h)
	}
	if m := c.Harness["mine"]; m.Kind != "acp" || m.Transport != "acp" {
		t.Errorf("harness.mine %+v", m)
	}
	if c.Pool.Size.For("claude") != 2 || c.Pool.Size.For("anything") != 2 {
		t.Errorf("pool %+v", c.Pool)
	}

	// A file that cannot be read is an error naming the file, not defaults.
	if _, err := Load(filepath.Dir(path)); err == nil {
		t.Error("a folder as config file loaded")
	}
	if err := os.WriteFile(path, []byte("bogus = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `line 1: unknown key "bogus"`) {
		t.Errorf("err = %v", err)
	}
}

func TestPoolSizeForms(t *testing.T) {
	tests := []struct {
		text        string
		claude, any int
	}{
		{"[pool]\nsize = 3\n", 3, 3},
		{"[pool]\nsize = { claude = 1, shell = 2 }\n", 1, 0},
		{"[pool.size]\nclaude = 4\n", 4, 0},
		{"", 0, 0},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(tt.text))
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		if c.Pool.Size.For("claude") != tt.claude || c.Pool.Size.For("other") != tt.any {
			t.Errorf("%q: claude %d other %d", tt.text, c.Pool.Size.For("claude"), c.Pool.Size.For("other"))
		}
	}
}

func TestParseErrorsNameKeyAndLine(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"unknown top-level key", "scrollback = 10\n\nbogus = 1\n", []string{"line 3", `unknown key "bogus"`}},
		{"unknown key in a harness", "[harness.claude]\ncommand = \"x\"\ncolour = \"red\"\n", []string{"line 3", `unknown key "harness.claude.colour"`}},
		{"unknown key in an inline harness", "\n[harness]\nmine = { command = \"x\", colour = \"red\" }\n", []string{"line 3", `unknown key "harness.mine.colour"`}},
		{"unknown table", "[bogus]\nx = 1\n", []string{"line 1", `unknown key "bogus"`, "line 2", `unknown key "bogus.x"`}},
		{"unknown key in pool", "[pool]\nsize = 1\nmax = 2\n", []string{"line 3", `unknown key "pool.max"`}},
		{"bad transport", "[harness.claude]\ntransport = \"tcp\"\n", []string{"line 2", "harness.claude.transport", `"tcp" is not one of pty, acp`}},
		{"bad kind", "# comment\n[harness.mine]\ncommand = \"x\"\nkind = \"robot\"\n", []string{"line 4", "harness.mine.kind", `"robot" is not one of claude, codex, gemini, plain, acp`}},
		{"bad kind inline", "[harness]\nmine = { command = \"x\", kind = \"robot\" }\n", []string{"line 2", "harness.mine.kind"}},
		{"bad kind dotted", "harness.mine.kind = \"robot\"\n", []string{"line 1", "harness.mine.kind"}},
		{"bad harness name", "[harness.\"Bad Name\"]\ncommand = \"x\"\n", []string{"line 1", `harness."Bad Name"`, "a harness name is"}},
		{"bad env name", "[harness.x]\ncommand = \"x\"\nenv = { \"A=B\" = \"1\" }\n", []string{"line 3", "harness.x.env", `bad variable name "A=B"`}},
		{"NUL in command", "[harness.x]\ncommand = \"a\\u0000b\"\n", []string{"line 2", "harness.x.command", "NUL"}},
		{"bad key binding", "[keys]\nnew = \"n\"\nquit = \"ctrl+!\"\n", []string{"line 3", "keys.quit", `unknown key "ctrl+!"`}},
		{"bad key in a list", "[keys]\nquit = [\"q\", \"hyper+q\"]\n", []string{"line 2", "keys.quit", `unknown key "hyper+q"`}},
		{"unknown action", "[keys]\nteleport = \"t\"\n", []string{"line 2", "keys.teleport", "unknown action"}},
		{"key binding of a wrong type", "[keys]\nquit = 5\n", []string{"line 2", "keys.quit", "want a key name"}},
		{"empty key list", "[keys]\nquit = []\n", []string{"line 2", "keys.quit", "empty key list"}},
		{"scrollback of a wrong type", "scrollback = \"lots\"\n", []string{"line 1", "scrollback"}},
		{"scrollback out of range", "\nscrollback = -1\n", []string{"line 2", "scrollback", "out of range"}},
		{"pool size out of range", "[pool]\nsize = 99\n", []string{"line 2", "pool.size", "out of range 0-16"}},
		{"pool size of a wrong type", "[pool]\nsize = \"big\"\n", []string{"line 2", "pool.size", "want a number or a table"}},
		{"pool size per harness bad", "[pool]\nsize = { claude = -1 }\n", []string{"line 2", "pool.size", `pool size of "claude"`}},
		{"bad default harness", "default_harness = \"No Such\"\n", []string{"line 1", "default_harness", `"No Such" is not a harness name`}},
		{"syntax error", "[pool\nsize = 1\n", []string{"toml: line "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.text))
			if err == nil {
				t.Fatalf("accepted: %+v", c)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "line 0") {
				t.Errorf("error %q has no line", err)
			}
		})
	}
}

func TestKeyMapRebinding(t *testing.T) {
	c, err := Parse([]byte("[keys]\nquit = [\"Q\", \"ctrl+c\"]\nnew = \"ctrl+n\"\nup = \"alt+k\"\nfilter = \"f5\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	km := c.KeyMap()
	press := func(s string) tea.KeyMsg {
		switch s {
		case "ctrl+c":
			return tea.KeyMsg{Type: tea.KeyCtrlC}
		case "ctrl+n":
			return tea.KeyMsg{Type: tea.KeyCtrlN}
		case "f5":
			return tea.KeyMsg{Type: tea.KeyF5}
		case "alt+k":
			return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k"), Alt: true}
		}
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
	}
	tests := []struct {
		b     key.Binding
		yes   []string
		no    []string
		label string
	}{
		{km.Quit, []string{"Q", "ctrl+c"}, []string{"q"}, "Q/ctrl+c"},
		{km.New, []string{"ctrl+n"}, []string{"n"}, "ctrl+n"},
		{km.Up, []string{"alt+k"}, []string{"k"}, "alt+k"},
		{km.Filter, []string{"f5"}, []string{"/"}, "f5"},
		// Not rebound: the defaults (docs/keys.md).
		{km.Down, []string{"j"}, []string{"alt+k"}, "j/down"},
		{km.AddFolders, []string{"a"}, nil, "a"},
		{km.Delete, []string{"D"}, []string{"d"}, "D"},
		{km.Help, []string{"?"}, nil, "?"},
	}
	for _, tt := range tests {
		for _, k := range tt.yes {
			if !key.Matches(press(k), tt.b) {
				t.Errorf("%s does not match %v", k, tt.b.Keys())
			}
		}
		for _, k := range tt.no {
			if key.Matches(press(k), tt.b) {
				t.Errorf("%s still matches %v", k, tt.b.Keys())
			}
		}
		if tt.b.Help().Key != tt.label {
			t.Errorf("help label %q, want %q", tt.b.Help().Key, tt.label)
		}
	}
	// Every action has a binding with help text.
	for _, a := range Actions {
		if _, ok := defaults[a]; !ok {
			t.Errorf("action %s has no default", a)
		}
	}
}

func TestCheckKeyName(t *testing.T) {
	for _, k := range []string{"q", "Q", "?", "/", "é", "enter", "ctrl+]", "ctrl+a", "alt+x", "alt+ctrl+a", "pgup", "f12", "shift+tab", " "} {
		if err := checkKeyName(k); err != nil {
			t.Errorf("%q refused: %v", k, err)
		}
	}
	for _, k := range []string{"", "qq", "ctrl+", "ctrl+!", "hyper+q", "f13", "\x01", "ctrl+A"} {
		if err := checkKeyName(k); err == nil {
			t.Errorf("%q accepted", k)
		}
	}
}

// FuzzConfigParse feeds arbitrary bytes to the config reader: it must not
// panic, and a config it accepts holds only known transports, kinds and
// actions and yields a key map.
func FuzzConfigParse(f *testing.F) {
	f.Add([]byte("[keys]\nquit = \"q\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if c != nil || err.Error() == "" {
				t.Fatalf("error %q with config %+v", err, c)
			}
			return
		}
		for name, h := range c.Harness {
			if !validHarnessName(name) {
				t.Fatalf("harness name %q accepted", name)
			}
			if h.Transport != "" && !slices.Contains(Transports, h.Transport) || h.Kind != "" && !slices.Contains(Kinds, h.Kind) {
				t.Fatalf("harness %s: %+v", name, h)
			}
		}
		for name, h := range c.Host {
			if !validHarnessName(name) || h.SSH == "" || strings.HasPrefix(h.SSH, "-") || h.Home != "" && !remotePath(h.Home) {
				t.Fatalf("host %s: %+v accepted", name, h)
			}
			if i, why := weakOption(h.SSHOptions); why != "" {
				t.Fatalf("host %s: option %q accepted (%s)", name, h.SSHOptions[i], why)
			}
		}
		for action, keys := range c.Keys {
			if !slices.Contains(Actions, action) || len(keys) == 0 {
				t.Fatalf("keys.%s = %v accepted", action, keys)
			}
		}
		km := c.KeyMap()
		if len(km.Quit.Keys()) == 0 {
			t.Fatal("no quit key")
		}
	})
}

func TestACPLimits(t *testing.T) {
	c, err := Parse([]byte("[acp]\ninit_timeout = \"45s\"\nmax_file_bytes = 1024\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.ACP.InitTimeout.Duration != 45*time.Second || c.ACP.MaxFileBytes != 1024 {
		t.Fatalf("got %+v", c.ACP)
	}
	d := Defaults()
	if d.ACP.InitTimeout.Duration != 30*time.Second || d.ACP.MaxFileBytes != 4<<20 || 2*DefaultMaxFileBytes != MaxAgentMessageBytes {
		t.Fatalf("defaults %+v", d.ACP)
	}
	for _, bad := range []string{"[acp]\ninit_timeout = \"soon\"\n", "[acp]\ninit_timeout = \"1ms\"\n", "[acp]\nmax_file_bytes = 0\n"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A key bound under [keys] to one action is taken from the default of
// another, so the binding asked for wins: up on "i" moves up, and import
// (whose default "i" was) has no key left and is not offered.
func TestKeyMapRebindingTakesTheKeyFromADefault(t *testing.T) {
	c, err := Parse([]byte("[keys]\nup = [\"i\", \"up\"]\nexport = [\"E\", \"x\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	km := c.KeyMap()
	i := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("i")}
	x := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")}
	if !key.Matches(i, km.Up) {
		t.Errorf("i does not move up after up was bound to it")
	}
	if key.Matches(i, km.Import) || km.Import.Enabled() {
		t.Errorf("import still has a key (%v) after its only default went to up", km.Import.Keys())
	}
	if !key.Matches(x, km.Export) || key.Matches(x, km.Stop) {
		t.Errorf("x: export %v, stop %v; want export only", km.Export.Keys(), km.Stop.Keys())
	}
	if km.Stop.Enabled() {
		t.Errorf("stop still offered with keys %v", km.Stop.Keys())
	}
	if e := (tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("e")}); key.Matches(e, km.Export) {
		t.Errorf("export still answers its default e after it was rebound")
	}
	if got := km.Down.Keys(); !slices.Equal(got, []string{"j", "down"}) {
		t.Errorf("down's keys %v, want its defaults", got)
	}
}
