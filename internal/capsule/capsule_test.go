package capsule

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

var info = Info{Kind: KindHandoff, ParentID: "k3x9q2", ParentName: "fix the parser", ParentHarness: "claude-acp",
	Harness: "codex", Cwd: "/src/app", Folders: []string{"/src/lib", "/notes"}}

// wantClean fails when the capsule is not plain, bounded Markdown.
func wantClean(t *testing.T, c string) {
	t.Helper()
	if len(c) > MaxBytes {
		t.Fatalf("capsule is %d bytes, over %d", len(c), MaxBytes)
	}
	if !utf8.ValidString(c) {
		t.Fatal("capsule is not UTF-8")
	}
	for _, r := range c {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("capsule has control character %U:\n%s", r, c)
		}
	}
}

func wantIn(t *testing.T, c string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(c, p) {
			t.Errorf("capsule lacks %q:\n%s", p, c)
		}
	}
}

func wantNotIn(t *testing.T, c string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(c, p) {
			t.Errorf("capsule has %q:\n%s", p, c)
		}
	}
}

func TestCapsuleFromACPTranscript(t *testing.T) {
	entries := []proto.Entry{
		{Kind: proto.EntryNote, Text: "session loaded"},
		{Kind: proto.EntryUser, Text: "Make the parser keep nested keys"},
		{Kind: proto.EntryThought, Text: "private thinking"},
		{Kind: proto.EntryAgent, Text: "Looking at "},
		{Kind: proto.EntryAgent, Text: "decode.go"},
		{Kind: proto.EntryTool, Title: "Edit decode.go", ToolStatus: "completed", Paths: []string{"/src/app/decode.go"}},
		{Kind: proto.EntryTool, Title: "write /src/app/new.go", ToolStatus: "completed", Paths: []string{"/src/app/new.go", "/src/app/decode.go"}},
		{Kind: proto.EntryPlan, Plan: []string{"[completed] fix nesting", "[pending] docs"}},
		{Kind: proto.EntryUser, Text: "Now the arrays\x1b[2J of tables"},
		{Kind: proto.EntryTool, Title: "Run tests", ToolStatus: "failed"},
		{Kind: proto.EntryAgent, Text: "Arrays still fail on inline tables."},
	}
	c := Build(info, FromTranscript(entries))
	wantClean(t, c)
	wantIn(t, c,
		`# Handoff from chat "fix the parser" (k3x9q2, claude-acp)`,
		"from the ACP transcript",
		"## Goal\n\n> Make the parser keep nested keys\n",
		"- Looking at decode.go\n",
		"- ran Edit decode.go\n",
		"- ran Run tests [failed]\n",
		"The last request:\n\n> Now the arrays of tables\n",
		"The last answer:\n\n> Arrays still fail on inline tables.\n",
		"## Files touched\n\n- /src/app/decode.go\n- /src/app/new.go\n\n",
		"- /src/app (the working folder)\n- /src/lib\n- /notes\n",
	)
	wantNotIn(t, c, "private thinking", "session loaded")
}

func TestCapsuleFromClaudeSessionLog(t *testing.T) {
	conv := FromClaudeLog(filepath.Join("testdata", "claude-session.jsonl"))
	c := Build(info, conv)
	wantClean(t, c)
	wantIn(t, c,
		"from Claude Code's session log",
		"## Goal\n\n> Fix the TOML parser: nested tables lose their keys.\n",
		"- I'll look at the decoder first.\n",
		"- ran Read /src/app/decode.go\n",
		"- ran Edit /src/app/decode.go\n",
		"- ran Bash: go test ./... …\n",
		"> Now add a test for arrays of tables please\n",
		"> Added TestArrayOfTables; one case still fails on inline tables.\n",
		"## Files touched\n\n- /src/app/decode.go\n- /src/app/decode_test.go\n\n",
	)
	wantNotIn(t, c, "secret musing", "SIDECHAIN", "META TEXT", "/clear", "package toml", "aGk=")
}

func TestCapsuleFromCodexRollout(t *testing.T) {
	c := Build(info, FromCodexLog(filepath.Join("testdata", "codex-rollout.jsonl")))
	wantClean(t, c)
	wantIn(t, c,
		"from Codex's session log",
		"## Goal\n\n> Rename the config loader\n",
		"- ran shell: rg LoadConfig\n",
		"- Renamed LoadConfig to Load and added a test.\n",
		"> Also update the README\n",
		"> Working on the README next.\n",
		"- config/load.go\n- config/load_test.go\n",
	)
	wantNotIn(t, c, "environment_context")
}

func TestCapsuleFromScrollbackFullOfEscapes(t *testing.T) {
	lines := []string{
		"\x1b[1m> fix the flaky test\x1b[0m",
		"", "", "",
		"\x1b]0;evil title\x07● Running go test",
		"\x1b]52;c;c2VjcmV0\x07copied",
		"\u009b31mC1 CSI\u009bm text",
		"done \x1b[?1049h",
		"", "",
	}
	c := Build(info, FromLines(lines))
	wantClean(t, c)
	wantIn(t, c, "from the terminal's scrollback", "> > fix the flaky test\n>\n> ● Running go test\n> copied\n> C1 CSI text\n> done\n")
	wantNotIn(t, c, "evil title", "c2VjcmV0")
}

func TestCapsuleIsBounded(t *testing.T) {
	var entries []proto.Entry
	big := strings.Repeat("é long words ", 100000) // 1.4 MB a message
	for i := range 300 {
		entries = append(entries,
			proto.Entry{Kind: proto.EntryUser, Text: big},
			proto.Entry{Kind: proto.EntryAgent, Text: big},
			proto.Entry{Kind: proto.EntryTool, Title: big, Paths: []string{strings.Repeat("p", 4000) + string(rune('a'+i%26))}})
	}
	many := Info{Kind: KindFork, ParentID: "a", ParentName: big, ParentHarness: "gemini", Harness: "gemini", Cwd: big}
	for range 64 {
		many.Folders = append(many.Folders, "/"+strings.Repeat("d", 4000))
	}
	c := Build(many, FromTranscript(entries))
	wantClean(t, c)
	wantIn(t, c, "# Forked from chat", "(Earlier steps left out.)", "more\n")
	lines := make([]string, 200000)
	for i := range lines {
		lines[i] = strings.Repeat("x", 200)
	}
	wantClean(t, Build(info, FromLines(lines)))
}

// A session log of 100 MB, with a 3 MiB line and no newline for most of
// it, is read in two bounded windows: the goal from its head, the last
// exchange from its tail.
func TestHugeSessionLogIsReadBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	head := `{"type":"user","message":{"role":"user","content":"THE GOAL"}}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("z", 3<<20) + `"}]}}` + "\n"
	tail := "\n" + `{"type":"user","message":{"role":"user","content":"THE LAST ASK"}}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"THE LAST ANSWER"}]}}` + "\n"
	if _, err := f.WriteString(head); err != nil {
		t.Fatal(err)
	}
	const size = 100 << 20
	if _, err := f.WriteAt([]byte(tail), size-int64(len(tail))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	conv := FromClaudeLog(path)
	if !conv.Gap {
		t.Error("a 100 MB log read whole")
	}
	c := Build(info, conv)
	wantClean(t, c)
	wantIn(t, c, "> THE GOAL\n", "> THE LAST ASK\n", "> THE LAST ANSWER\n", "(Earlier steps left out.)")
	wantNotIn(t, c, "zzzz")
}

func TestClaudeSessionLogNeverFollowsALink(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "-src-app")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.jsonl")
	os.WriteFile(secret, []byte(`{"type":"user","message":{"content":"SECRET"}}`+"\n"), 0o600)
	if err := os.Symlink(secret, filepath.Join(proj, "linked.jsonl")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, "real.jsonl"), []byte("{}\n"), 0o600)
	env := []string{"CLAUDE_CONFIG_DIR=" + root}
	for _, tc := range []struct{ id, want string }{
		{"real", filepath.Join(proj, "real.jsonl")},
		{"linked", ""},
		{"../../etc/passwd", ""},
		{"*", ""},
		{"", ""},
	} {
		if got := harness.ClaudeSessionLog(env, tc.id); got != tc.want {
			t.Errorf("ClaudeSessionLog(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
	if _, err := readLog(filepath.Join(proj, "linked.jsonl"), func([]byte) {}); err == nil {
		t.Error("readLog followed a symbolic link")
	}
}

func TestCodexSessionLogFindsTheRollout(t *testing.T) {
	root := t.TempDir()
	day := filepath.Join(root, "sessions", "2025", "10", "29")
	os.MkdirAll(day, 0o755)
	id := "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"
	want := filepath.Join(day, "rollout-2025-10-29T00-59-38-"+id+".jsonl")
	os.WriteFile(want, []byte("{}\n"), 0o600)
	os.WriteFile(filepath.Join(day, "rollout-2025-10-29T00-59-38-other.jsonl"), []byte("{}\n"), 0o600)
	env := []string{"CODEX_HOME=" + root}
	if got := harness.CodexSessionLog(env, id); got != want {
		t.Errorf("CodexSessionLog = %q, want %q", got, want)
	}
	if got := harness.CodexSessionLog(env, "../x"); got != "" {
		t.Errorf("CodexSessionLog(../x) = %q", got)
	}
}

func TestEachLineSkipsOverlongLines(t *testing.T) {
	in := "a\n" + strings.Repeat("b", maxLineBytes+10) + "\nc\r\nd"
	var got []string
	if err := eachLine(strings.NewReader(in), false, func(l []byte) { got = append(got, string(bytes.Clone(l))) }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a,c,d" {
		t.Fatalf("lines %q", got)
	}
}
