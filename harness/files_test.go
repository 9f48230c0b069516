package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestFilesReachEachKind checks the exact argv and the environment each kind
// of harness gets for a chat's single files: ACPMUX_ADDITIONAL_FILES for
// every pty harness (and never for an ACP agent, nor inherited), the note in
// Claude Code's system prompt (one flag, after the user's own text) and in
// Codex's developer instructions (after the user's own), nothing in
// Gemini CLI's or a shell's argv.
func TestFilesReachEachKind(t *testing.T) {
	files := []string{"/specs/api.md", "/home/me/my notes/todo.txt"}
	dirs := []string{"/src/lib"}
	note := "[acpmux-tui] The user shared these single files with this chat, besides its folders; it may read and edit them:\n- /specs/api.md\n- /home/me/my notes/todo.txt"
	const sid = "11111111-2222-3333-4444-555555555555"
	tests := []struct {
		name    string
		harness string
		args    []string
		dirs    []string
		files   []string
		// argv after the program; "NOTE" is a -c override whose decoded
		// developer_instructions must equal instructions.
		argv         []string
		instructions string
		filesVia     string
	}{
		{name: "claude", harness: "claude", dirs: dirs, files: files,
			argv:     []string{"--session-id", sid, "--append-system-prompt", note, "--add-dir", "/src/lib"},
			filesVia: ViaFlag},
		{name: "claude without files", harness: "claude", dirs: dirs,
			argv: []string{"--session-id", sid, "--add-dir", "/src/lib"}, filesVia: ViaNone},
		{name: "claude, the user's own system prompt", harness: "claude", files: files,
			args:     []string{"--append-system-prompt", "Be terse.", "--model", "opus"},
			argv:     []string{"--append-system-prompt", "Be terse.\n\n" + note, "--model", "opus", "--session-id", sid},
			filesVia: ViaFlag},
		{name: "claude, the user's own system prompt with =", harness: "claude", files: files,
			args:     []string{"--append-system-prompt=Be terse."},
			argv:     []string{"--append-system-prompt=Be terse.\n\n" + note, "--session-id", sid},
			filesVia: ViaFlag},
		{name: "codex, files only", harness: "codex", files: files,
			argv:         []string{"-c", "NOTE"},
			instructions: note + "\nIts sandbox (Codex's default) may ask for approval, or refuse, before it writes a file outside its folders.",
			filesVia:     ViaFlag},
		{name: "codex, folders and files", harness: "codex", dirs: dirs, files: files,
			argv:         []string{"--sandbox", "workspace-write", "-c", "NOTE", "--add-dir", "/src/lib"},
			instructions: note + "\nIts sandbox (workspace-write) may ask for approval, or refuse, before it writes a file outside its folders.",
			filesVia:     ViaFlag},
		{name: "codex, full access, the user's own instructions", harness: "codex", files: files,
			args:         []string{"--yolo", "-c", `developer_instructions="Use tabs."`},
			argv:         []string{"--yolo", "-c", `developer_instructions="Use tabs."`, "-c", "NOTE"},
			instructions: "Use tabs.\n\n" + note,
			filesVia:     ViaFlag},
		{name: "codex, read-only: folders and files in one note", harness: "codex", dirs: dirs, files: files,
			args: []string{"-s", "read-only"},
			argv: []string{"-s", "read-only", "-c", "NOTE"},
			instructions: "[acpmux-tui] Besides the working folder, this chat may read files in these folders; its sandbox (read-only) does not let it write there:\n- /src/lib\n\n" +
				note + "\nIts sandbox (read-only) may ask for approval, or refuse, before it writes a file outside its folders.",
			filesVia: ViaFlag},
		{name: "gemini", harness: "gemini", dirs: dirs, files: files,
			argv: []string{"--session-id", sid, "--include-directories", "/src/lib"}, filesVia: ViaEnv},
		{name: "shell", harness: "shell", files: files, argv: []string{}, filesVia: ViaEnv},
		{name: "opencode (ACP)", harness: "opencode", files: files, argv: []string{"acp"}, filesVia: ViaACP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := config.HarnessConfig{Command: "/bin/true", Args: tt.args}
			if tt.harness == "opencode" {
				hc.Args = []string{"acp"}
			}
			table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{tt.harness: hc}})
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := table.Get(tt.harness)
			m := &sessions.Meta{ID: "k3x9q2", Harness: tt.harness, Cwd: "/home/me/app", AdditionalDirectories: tt.dirs, AdditionalFiles: tt.files}
			inherited := []string{"HOME=" + t.TempDir(), EnvAdditionalFiles + "=/leaked/from/outside"}
			l, err := spec.BuildLaunch(m, LaunchOptions{Getenv: env(map[string]string{"PATH": "/bin", "SHELL": "/bin/true"}),
				Environ: inherited, NewSessionID: func() string { return sid }})
			if err != nil {
				t.Fatal(err)
			}
			got := l.Argv[1:]
			want := slices.Clone(tt.argv)
			for i, a := range want {
				if a == "NOTE" && i < len(got) && got[i-1] == "-c" {
					v, ok := strings.CutPrefix(got[i], "developer_instructions=")
					if !ok {
						t.Fatalf("argv %q: -c %q is not developer_instructions", got, got[i])
					}
					if dec := decodeTOMLString(t, v); dec != tt.instructions {
						t.Fatalf("developer_instructions\n got %q\nwant %q", dec, tt.instructions)
					}
					want[i] = got[i]
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("argv\n got %q\nwant %q", got, tt.argv)
			}
			var vals []string
			for _, kv := range l.Env {
				if v, ok := strings.CutPrefix(kv, EnvAdditionalFiles+"="); ok {
					vals = append(vals, v)
				}
			}
			var wantEnv []string
			if len(tt.files) > 0 && spec.Transport == TransportPty {
				wantEnv = []string{strings.Join(tt.files, ":")}
			}
			if !slices.Equal(vals, wantEnv) {
				t.Fatalf("%s in the environment: %q, want %q (the inherited one never passes)", EnvAdditionalFiles, vals, wantEnv)
			}
			if via := spec.FilesVia(len(tt.files)); via != tt.filesVia {
				t.Fatalf("FilesVia %q, want %q", via, tt.filesVia)
			}
			if via, expected := spec.ChatFilesVia(m); via != tt.filesVia || expected != (len(tt.files) > 0) {
				t.Fatalf("ChatFilesVia %q expected=%v, want %q expected=%v", via, expected, tt.filesVia, len(tt.files) > 0)
			}
		})
	}
}

// TestChatFilesViaRecorded: once a start recorded how the files went, that
// is what a chat with files reports; a chat without files reports none.
func TestChatFilesViaRecorded(t *testing.T) {
	spec := Spec{Name: "claude", Kind: KindClaude, Transport: TransportPty}
	if via, exp := spec.ChatFilesVia(&sessions.Meta{FilesVia: ViaEnv, AdditionalFiles: []string{"/a"}}); via != ViaEnv || exp {
		t.Fatalf("recorded env: %q %v", via, exp)
	}
	if via, exp := spec.ChatFilesVia(&sessions.Meta{FilesVia: ViaFlag}); via != ViaNone || exp {
		t.Fatalf("no files: %q %v", via, exp)
	}
}
