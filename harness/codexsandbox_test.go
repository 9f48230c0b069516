package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestCodexSandboxPerChoice checks the argv of a Codex start for each way
// the sandbox is chosen: with folders and no choice acpmux-tui asks for
// workspace-write; a choice of the user's stands, and where it cannot take
// writable roots (Codex would refuse --add-dir and exit) the folders go as a
// note in the developer instructions instead.
func TestCodexSandboxPerChoice(t *testing.T) {
	dirs := []string{"/src/lib", "/home/me/my notes"}
	addDirs := []string{"--add-dir", "/src/lib", "--add-dir", "/home/me/my notes"}
	const byAcpmux = "workspace-write (acpmux-tui, for the folders)"
	note := func(mode string) string {
		return "[acpmux-tui] Besides the working folder, this chat may read files in these folders; its sandbox (" + mode + ") does not let it write there:\n- /src/lib\n- /home/me/my notes"
	}
	const codexSid = "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90"
	tests := []struct {
		name    string
		args    []string
		files   map[string]string // in CODEX_HOME
		dirs    []string
		session string
		// argv after the program; a "NOTE" entry is the -c override
		// whose decoded developer_instructions must equal instructions.
		argv         []string
		instructions string
		sandbox      string
		readOnly     bool
	}{
		{name: "folders, no choice", dirs: dirs,
			argv: append([]string{"--sandbox", "workspace-write"}, addDirs...), sandbox: byAcpmux},
		{name: "no folders, no choice", argv: []string{}, sandbox: "Codex's default"},
		{name: "no folders, read-only chosen", args: []string{"-s", "read-only"},
			argv: []string{"-s", "read-only"}, sandbox: "read-only (harness args)"},
		{name: "--sandbox read-only", args: []string{"--sandbox", "read-only"}, dirs: dirs,
			argv: []string{"--sandbox", "read-only", "-c", "NOTE"}, instructions: note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		{name: "-sread-only", args: []string{"-sread-only"}, dirs: dirs,
			argv: []string{"-sread-only", "-c", "NOTE"}, instructions: note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		{name: "-s danger-full-access", args: []string{"-s", "danger-full-access"}, dirs: dirs,
			argv: append([]string{"-s", "danger-full-access"}, addDirs...), sandbox: "danger-full-access (harness args)"},
		{name: "--sandbox=workspace-write", args: []string{"--sandbox=workspace-write"}, dirs: dirs,
			argv: append([]string{"--sandbox=workspace-write"}, addDirs...), sandbox: "workspace-write (harness args)"},
		{name: "--yolo", args: []string{"--yolo"}, dirs: dirs,
			argv: append([]string{"--yolo"}, addDirs...), sandbox: "danger-full-access (harness args)"},
		{name: "bypass beats --sandbox", args: []string{"--sandbox", "read-only", "--dangerously-bypass-approvals-and-sandbox"}, dirs: dirs,
			argv: append([]string{"--sandbox", "read-only", "--dangerously-bypass-approvals-and-sandbox"}, addDirs...), sandbox: "danger-full-access (harness args)"},
		{name: "--full-auto", args: []string{"--full-auto"}, dirs: dirs,
			argv: append([]string{"--full-auto"}, addDirs...), sandbox: "workspace-write (harness args)"},
		{name: "--approve-for-me", args: []string{"--approve-for-me"}, dirs: dirs,
			argv: append([]string{"--approve-for-me"}, addDirs...), sandbox: "workspace-write (harness args)"},
		{name: "-c sandbox_mode quoted", args: []string{"-c", `sandbox_mode="read-only"`}, dirs: dirs,
			argv: []string{"-c", `sandbox_mode="read-only"`, "-c", "NOTE"}, instructions: note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		{name: "-c sandbox_mode bare", args: []string{"-c", "sandbox_mode=read-only"}, dirs: dirs,
			argv: []string{"-c", "sandbox_mode=read-only", "-c", "NOTE"}, instructions: note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		{name: "--config=sandbox_mode", args: []string{"--config=sandbox_mode=workspace-write"}, dirs: dirs,
			argv: append([]string{"--config=sandbox_mode=workspace-write"}, addDirs...), sandbox: "workspace-write (harness args)"},
		{name: "config.toml read-only", files: map[string]string{"config.toml": `sandbox_mode = "read-only"`}, dirs: dirs,
			argv: []string{"-c", "NOTE"}, instructions: note("read-only"), sandbox: "read-only (config.toml)", readOnly: true},
		{name: "args beat config.toml", args: []string{"--sandbox", "workspace-write"}, files: map[string]string{"config.toml": `sandbox_mode = "read-only"`}, dirs: dirs,
			argv: append([]string{"--sandbox", "workspace-write"}, addDirs...), sandbox: "workspace-write (harness args)"},
		{name: "config.toml workspace-write", files: map[string]string{"config.toml": `sandbox_mode = "workspace-write"`}, dirs: dirs,
			argv: addDirs, sandbox: "workspace-write (config.toml)"},
		{name: "profile read-only", args: []string{"-p", "ro"}, files: map[string]string{"ro.config.toml": `sandbox_mode = "read-only"`}, dirs: dirs,
			argv: []string{"-p", "ro", "-c", "NOTE"}, instructions: note("read-only"), sandbox: "read-only (profile ro)", readOnly: true},
		{name: "profile over base", args: []string{"--profile=ww"}, files: map[string]string{"config.toml": `sandbox_mode = "read-only"`, "ww.config.toml": `sandbox_mode = "workspace-write"`}, dirs: dirs,
			argv: append([]string{"--profile=ww"}, addDirs...), sandbox: "workspace-write (profile ww)"},
		{name: "default_permissions :read-only", files: map[string]string{"config.toml": `default_permissions = ":read-only"`}, dirs: dirs,
			argv: []string{"-c", "NOTE"}, instructions: note(":read-only"), sandbox: ":read-only (config.toml)", readOnly: true},
		{name: "default_permissions :workspace", files: map[string]string{"config.toml": `default_permissions = ":workspace"`}, dirs: dirs,
			argv: addDirs, sandbox: ":workspace (config.toml)"},
		// A permission profile of the user's own: whether it takes
		// writable roots cannot be told, so the chat must start anyway.
		{name: "own permission profile", files: map[string]string{"config.toml": "default_permissions = \"mine\"\n[permissions.mine]\n"}, dirs: dirs,
			argv: []string{"-c", "NOTE"}, instructions: note("mine"), sandbox: "mine (config.toml)", readOnly: true},
		// The user's own developer instructions are kept: -c replaces them.
		{name: "own instructions kept", args: []string{"-s", "read-only"}, files: map[string]string{"config.toml": `developer_instructions = "Answer in French."`}, dirs: dirs,
			argv: []string{"-s", "read-only", "-c", "NOTE"}, instructions: "Answer in French.\n\n" + note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		{name: "own instructions in args kept", args: []string{"-c", `developer_instructions="Be brief."`, "-s", "read-only"}, files: map[string]string{"config.toml": `developer_instructions = "not this"`}, dirs: dirs,
			argv: []string{"-c", `developer_instructions="Be brief."`, "-s", "read-only", "-c", "NOTE"}, instructions: "Be brief.\n\n" + note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		// Resuming: the subcommand first, then the options.
		{name: "resume, no choice", dirs: dirs, session: codexSid,
			argv: append([]string{"resume", codexSid, "--sandbox", "workspace-write"}, addDirs...), sandbox: byAcpmux},
		{name: "resume, read-only", args: []string{"-s", "read-only"}, dirs: dirs, session: codexSid,
			argv: []string{"resume", codexSid, "-s", "read-only", "-c", "NOTE"}, instructions: note("read-only"),
			sandbox: "read-only (harness args)", readOnly: true},
		// What follows "--" is the prompt, not an option.
		{name: "after --", args: []string{"--", "--sandbox", "read-only"}, dirs: dirs,
			argv: append([]string{"--", "--sandbox", "read-only", "--sandbox", "workspace-write"}, addDirs...), sandbox: byAcpmux},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			codexHome := filepath.Join(home, ".codex")
			if err := os.MkdirAll(codexHome, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(codexHome, name), []byte(body+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.session != "" {
				writeCodexRollout(t, codexHome, tt.session, "/home/me/app", time.Now())
			}
			table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{"codex": {Command: "/bin/true", Args: tt.args}}})
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := table.Get("codex")
			m := &sessions.Meta{ID: "k3x9q2", Cwd: "/home/me/app", AdditionalDirectories: tt.dirs, AgentSessionID: tt.session}
			l, err := spec.BuildLaunch(m, LaunchOptions{Getenv: env(map[string]string{"PATH": "/bin"}), Environ: []string{"HOME=" + home}})
			if err != nil {
				t.Fatal(err)
			}
			got := l.Argv[1:]
			want := slices.Clone(tt.argv)
			for i, a := range want {
				if a == "NOTE" && i < len(got) && got[i-1] == "-c" {
					if v, ok := strings.CutPrefix(got[i], "developer_instructions="); ok {
						if dec := decodeTOMLString(t, v); dec != tt.instructions {
							t.Fatalf("developer_instructions\n got %q\nwant %q", dec, tt.instructions)
						}
						want[i] = got[i]
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("argv\n got %q\nwant %q", got, tt.argv)
			}
			if l.Sandbox != tt.sandbox || l.FoldersReadOnly != tt.readOnly {
				t.Fatalf("sandbox %q read-only %v, want %q %v", l.Sandbox, l.FoldersReadOnly, tt.sandbox, tt.readOnly)
			}
		})
	}
}

// decodeTOMLString reads v as Codex reads a -c value: as TOML.
func decodeTOMLString(t *testing.T, v string) string {
	t.Helper()
	var doc struct {
		V string `toml:"v"`
	}
	if _, err := toml.Decode("v = "+v, &doc); err != nil {
		t.Fatalf("-c value %s is not a TOML string: %v", v, err)
	}
	return doc.V
}

// TestCodexFolderNoteSurvivesAnyPath checks that a folder whose name holds
// quotes, backslashes, a newline or DEL reaches Codex's developer
// instructions intact: the -c value is TOML, and one bad character would
// make Codex refuse the start.
func TestCodexFolderNoteSurvivesAnyPath(t *testing.T) {
	dirs := []string{`/a "quoted" dir`, `/back\slash`, "/new\nline", "/del\x7fete", "/ünï ☃"}
	v, ok := strings.CutPrefix(codexInstructions("", false, CodexSandbox{Mode: CodexReadOnly}, dirs, nil), "developer_instructions=")
	if !ok {
		t.Fatal("no developer_instructions key")
	}
	got := decodeTOMLString(t, v)
	for _, d := range dirs {
		if !strings.Contains(got, "- "+d+"\n") && !strings.HasSuffix(got, "- "+d) {
			t.Fatalf("folder %q lost in %q", d, got)
		}
	}
}
