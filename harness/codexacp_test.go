package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

func TestIsCodexACP(t *testing.T) {
	acp := func(command string, args ...string) Spec {
		return Spec{Name: "x", Command: command, Args: args, Kind: KindACP, Transport: TransportACP}
	}
	tests := []struct {
		name string
		spec Spec
		want bool
	}{
		{"built-in", acp("codex-acp"), true},
		{"a path", acp("/opt/node/lib/node_modules/.bin/codex-acp"), true},
		{"the platform binary", acp("/x/@zed-industries/codex-acp-linux-x64/bin/codex-acp"), true},
		{"node and the npm script", acp("node", "/x/@zed-industries/codex-acp/bin/codex-acp.js"), true},
		{"npx, pinned", acp("npx", "-y", "@zed-industries/codex-acp@0.16.0"), true},
		{"npx", acp("npx", "@zed-industries/codex-acp"), true},
		{"windows", acp(`C:\tools\codex-acp.exe`), true},
		{"after --, an argument of the program", acp("npx", "other", "--", "codex-acp"), false},
		{"another agent", acp("claude-agent-acp"), false},
		{"a name that only contains it", acp("my-codex-acp"), false},
		{"codex itself", acp("codex"), false},
		{"in a terminal", Spec{Name: "x", Command: "codex-acp", Kind: KindPlain, Transport: TransportPty}, false},
	}
	for _, tt := range tests {
		if got := tt.spec.IsCodexACP(); got != tt.want {
			t.Errorf("%s (%q %q): IsCodexACP %v, want %v", tt.name, tt.spec.Command, tt.spec.Args, got, tt.want)
		}
	}
	for _, s := range Builtins() {
		if got := s.IsCodexACP(); got != (s.Name == "codex-acp") {
			t.Errorf("built-in %s: IsCodexACP %v", s.Name, got)
		}
	}
}

// fakeProgram makes an executable named name in a folder of its own and
// returns its path: a command BuildLaunch can resolve.
func fakeProgram(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuildLaunchCodexACPWritableRoots(t *testing.T) {
	bin := fakeProgram(t, "codex-acp")
	dirs := []string{"/src/lib", "/home/me/my notes"}
	roots := func(rs ...string) string { return codexWritableRoots(nil, rs) }
	ws := "sandbox_mode=" + `"workspace-write"`
	tests := []struct {
		name     string
		harness  config.HarnessConfig
		codexCfg string // $CODEX_HOME/config.toml, "" for none
		dirs     []string
		argv     []string // after the command
		sandbox  string
		readOnly bool
	}{
		{name: "no folders: nothing added", dirs: nil, argv: []string{}},
		{name: "folders: workspace-write and the roots", dirs: dirs,
			argv: []string{"-c", ws, "-c", CodexWritableRootsKey + `=["/src/lib", "/home/me/my notes"]`}, sandbox: "workspace-write (acpmux-tui, for the folders)"},
		{name: "a folder twice is one root", dirs: []string{"/a", "/a"},
			argv: []string{"-c", ws, "-c", roots("/a")}, sandbox: "workspace-write (acpmux-tui, for the folders)"},
		{name: "the user's read-only stands; the roots wait for a mode that takes them", dirs: dirs,
			harness: config.HarnessConfig{Args: []string{"-c", `sandbox_mode="read-only"`}},
			argv:    []string{"-c", `sandbox_mode="read-only"`, "-c", roots(dirs...)}, sandbox: "read-only (harness args)", readOnly: true},
		{name: "the user's full access stands", dirs: dirs,
			codexCfg: "sandbox_mode = \"danger-full-access\"\n",
			argv:     []string{"-c", roots(dirs...)}, sandbox: "danger-full-access (config.toml)"},
		{name: "the user's own roots first, from config.toml", dirs: dirs,
			codexCfg: "[sandbox_workspace_write]\nwritable_roots = [\"/cache\", \"/src/lib\"]\nnetwork_access = true\n",
			argv:     []string{"-c", ws, "-c", roots("/cache", "/src/lib", "/home/me/my notes")}, sandbox: "workspace-write (acpmux-tui, for the folders)"},
		{name: "the user's own roots from the args win over config.toml", dirs: dirs,
			codexCfg: "[sandbox_workspace_write]\nwritable_roots = [\"/cache\"]\n",
			harness:  config.HarnessConfig{Args: []string{"--config", CodexWritableRootsKey + `=["/mine"]`}},
			argv:     []string{"--config", CodexWritableRootsKey + `=["/mine"]`, "-c", ws, "-c", roots("/mine", "/src/lib", "/home/me/my notes")}, sandbox: "workspace-write (acpmux-tui, for the folders)"},
		{name: "the user's own roots in a table override", dirs: []string{"/a"},
			harness: config.HarnessConfig{Args: []string{"-c", `sandbox_workspace_write={writable_roots=["/t"], network_access=true}`}},
			argv:    []string{"-c", `sandbox_workspace_write={writable_roots=["/t"], network_access=true}`, "-c", ws, "-c", roots("/t", "/a")}, sandbox: "workspace-write (acpmux-tui, for the folders)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			codexHome := t.TempDir()
			if tt.codexCfg != "" {
				if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(tt.codexCfg), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h := tt.harness
			h.Command = bin
			table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{"codex-acp": h}})
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := table.Get("codex-acp")
			m := &sessions.Meta{ID: "k3x9q2", Cwd: "/home/me/app", AdditionalDirectories: tt.dirs}
			l, err := spec.BuildLaunch(m, LaunchOptions{Getenv: env(map[string]string{"PATH": "/usr/bin:/bin"}), Environ: []string{"HOME=/home/me", "CODEX_HOME=" + codexHome}})
			if err != nil {
				t.Fatal(err)
			}
			if want := append([]string{bin}, tt.argv...); !slices.Equal(l.Argv, want) {
				t.Fatalf("argv\n got %q\nwant %q", l.Argv, want)
			}
			if l.Sandbox != tt.sandbox || l.FoldersReadOnly != tt.readOnly {
				t.Fatalf("sandbox %q, folders read-only %v; want %q, %v", l.Sandbox, l.FoldersReadOnly, tt.sandbox, tt.readOnly)
			}
			// The note still heads the first prompt: the table expects
			// no additionalDirectories capability and no folder flag.
			if via := spec.FoldersVia(len(tt.dirs), nil); len(tt.dirs) > 0 && via != ViaNote {
				t.Fatalf("foldersVia %q, want %q", via, ViaNote)
			}
		})
	}
}

// A harness the user renamed, or started through a launcher, is still
// codex-acp; another ACP agent gets nothing of this.
func TestBuildLaunchCodexACPByCommand(t *testing.T) {
	bin := fakeProgram(t, "codex-acp")
	node := fakeProgram(t, "node")
	other := fakeProgram(t, "claude-agent-acp")
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{
		"work-codex": {Command: bin, Transport: "acp"},
		"via-node":   {Command: node, Args: []string{"/x/codex-acp.js"}, Transport: "acp"},
		"claude-acp": {Command: other},
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := &sessions.Meta{ID: "k3x9q2", Cwd: "/home/me/app", AdditionalDirectories: []string{"/a"}}
	o := LaunchOptions{Getenv: env(map[string]string{"PATH": "/usr/bin:/bin"}), Environ: []string{"HOME=" + t.TempDir()}}
	for name, want := range map[string][]string{
		"work-codex": {bin, "-c", `sandbox_mode="workspace-write"`, "-c", CodexWritableRootsKey + `=["/a"]`},
		"via-node":   {node, "/x/codex-acp.js", "-c", `sandbox_mode="workspace-write"`, "-c", CodexWritableRootsKey + `=["/a"]`},
		"claude-acp": {other},
	} {
		spec, _ := table.Get(name)
		l, err := spec.BuildLaunch(m, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.Argv, want) {
			t.Errorf("%s: argv\n got %q\nwant %q", name, l.Argv, want)
		}
	}
}

// decodeRoots reads a writable-roots override as Codex does: the key before
// the first "=", the value after it as TOML.
func decodeRoots(t testing.TB, kv string) []string {
	t.Helper()
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k != CodexWritableRootsKey {
		t.Fatalf("override %q: key %q, want %q", kv, k, CodexWritableRootsKey)
	}
	var doc struct {
		V []string `toml:"v"`
	}
	if _, err := toml.Decode("v = "+v, &doc); err != nil {
		t.Fatalf("override %q is not a TOML array of strings: %v", kv, err)
	}
	return doc.V
}

func TestCodexWritableRootsEscaping(t *testing.T) {
	tests := []struct {
		roots []string
		want  string
	}{
		{[]string{"/a"}, `["/a"]`},
		{[]string{`/x/say "hi"`}, `["/x/say \"hi\""]`},
		{[]string{`/x/back\slash\`}, `["/x/back\\slash\\"]`},
		{[]string{"/x/ünïcødé ✓ 日本"}, `["/x/ünïcødé ✓ 日本"]`},
		{[]string{"/x/a, b]", "/x/c=d'e"}, `["/x/a, b]", "/x/c=d'e"]`},
		{[]string{"/x/new\nline\ttab\x1b[31m\x7f"}, `["/x/new\nline\ttab\u001B[31m\u007F"]`},
		{[]string{"/x/#not a comment", "/x/${HOME}"}, `["/x/#not a comment", "/x/${HOME}"]`},
	}
	for _, tt := range tests {
		kv := codexWritableRoots(nil, tt.roots)
		if want := CodexWritableRootsKey + "=" + tt.want; kv != want {
			t.Errorf("roots %q:\n got %s\nwant %s", tt.roots, kv, want)
		}
		if got := decodeRoots(t, kv); !slices.Equal(got, tt.roots) {
			t.Errorf("roots %q read back as %q", tt.roots, got)
		}
	}
}

// FuzzCodexWritableRoots: whatever the folders' names, the override reads
// back as exactly those folders, in order.
func FuzzCodexWritableRoots(f *testing.F) {
	for _, s := range []string{"/a", `/q"uote`, `/back\`, "/ü ✓", "/nl\n", "/\x00", "/\x7f", "/a, b]"} {
		f.Add(s, "/second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || a == b {
			t.Skip("a chat's folders are distinct UTF-8 paths")
		}
		if got := decodeRoots(t, codexWritableRoots(nil, []string{a, b})); !slices.Equal(got, []string{a, b}) {
			t.Fatalf("%q read back as %q", []string{a, b}, got)
		}
	})
}
