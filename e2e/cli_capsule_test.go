package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// runWith runs the binary in c's world with extra environment variables.
func (c *cli) runWith(extra []string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(c.env(), extra...)
	cmd.Dir = c.root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// claudeSessionLog is what the parser's Claude Code session said
// (internal/capsule/testdata/claude-session.jsonl); claudeChatWithLog
// stores it.
const (
	claudeSessionID   = "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90"
	claudeSessionGoal = "> Fix the TOML parser: nested tables lose their keys."
)

// claudeChatWithLog makes a claude chat named name whose conversation is
// claudeSessionID's, and puts that session's log where Claude Code keeps
// it under configDir (~/.claude, or CLAUDE_CONFIG_DIR).
func (c *cli) claudeChatWithLog(name, configDir string) proto.ChatJSON {
	c.t.Helper()
	chat := c.chat("new", "--harness", "claude", "--name", name, "--json")
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := store.Update(chat.ID, func(m *sessions.Meta) error {
		m.AgentSessionID = claudeSessionID
		return nil
	}); err != nil {
		c.t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(moduleRoot, "internal", "capsule", "testdata", "claude-session.jsonl"))
	if err != nil {
		c.t.Fatal(err)
	}
	proj := filepath.Join(configDir, "projects", "-src-app")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, claudeSessionID+".jsonl"), log, 0o600); err != nil {
		c.t.Fatal(err)
	}
	return chat
}

// handoff --json carries the capsule, built from the parent's Claude Code
// session log; it is stored beside the new chat's file and waits to be
// sent. --edit without EDITOR exits 2; with one, the chat gets the capsule
// as edited.
func TestHandoffCarriesACapsule(t *testing.T) {
	c := newCLI(t)
	c.claudeChatWithLog("parser", filepath.Join(c.root, "user", ".claude"))
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		t.Fatal(err)
	}

	var got struct {
		proto.ChatJSON
		Capsule string `json:"capsule"`
	}
	if err := json.Unmarshal([]byte(c.ok("handoff", "parser", "--to", "codex", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Handoff from chat \"parser\"", claudeSessionGoal, "- /src/app/decode_test.go"} {
		if !strings.Contains(got.Capsule, want) {
			t.Errorf("capsule lacks %q:\n%s", want, got.Capsule)
		}
	}
	if got.Origin != "handoff" || got.Harness != "codex" {
		t.Errorf("chat %+v", got.ChatJSON)
	}
	stored, sent, err := store.Capsule(got.ID)
	if err != nil || sent || stored != got.Capsule {
		t.Errorf("stored capsule: sent %v, err %v", sent, err)
	}
	if show := c.ok("show", got.ID); !strings.Contains(show, got.ID+".handoff.md") {
		t.Errorf("show does not name the capsule:\n%s", show)
	}

	if r := c.runWith([]string{"EDITOR="}, "handoff", "parser", "--to", "gemini", "--edit"); r.code != 2 || !strings.Contains(r.stderr, "EDITOR") {
		t.Errorf("--edit without EDITOR: exit %d, %s", r.code, r.stderr)
	}
	r := c.runWith([]string{"EDITOR=/bin/sed -i s/##.Goal/##_GOAL_EDITED/"}, "handoff", "parser", "--to", "gemini", "--edit", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, "##_GOAL_EDITED") {
		t.Fatalf("--edit: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	c.ok("rm", got.ID)
	if _, err := os.Lstat(store.HandoffPath(got.ID)); err == nil {
		t.Error("rm left the capsule")
	}
}

// handoff without --edit says on stderr, before anything sends the
// capsule, where it is and what was redacted in it; stdout stays the JSON
// scripts read, with the count in it, and the capsule holds no credential
// of the parent's session log. With --edit the user has seen it: no line.
func TestHandoffSaysWhatWasRedactedAndWhere(t *testing.T) {
	c := newCLI(t)
	parent := c.chat("new", "--harness", "claude", "--name", "deploy", "--json")
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		t.Fatal(err)
	}
	const session = "7d1f0c4e-2b9a-4e51-8c3d-6a0b9e2f4c17"
	if _, err := store.Update(parent.ID, func(m *sessions.Meta) error {
		m.AgentSessionID = session
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Made here, so that no file of the repository holds a credential.
	token := "ghp_" + strings.Repeat("a7Q2", 9)
	key := "sk-ant-api03-" + strings.Repeat("Zx9k", 12)
	log := `{"type":"user","message":{"role":"user","content":"Deploy it with ` + key + `"},"uuid":"u1"}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"uuid":"a1"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"The .env has GITHUB_TOKEN=` + token + `\nDB_PASSWORD=hunter22\nDEBUG=1"},"uuid":"u2"}` + "\n"
	proj := filepath.Join(c.root, "user", ".claude", "projects", "-src-app")
	os.MkdirAll(proj, 0o755)
	if err := os.WriteFile(filepath.Join(proj, session+".jsonl"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}

	r := c.run("handoff", "deploy", "--to", "codex", "--json")
	if r.code != 0 {
		t.Fatalf("handoff: exit %d\n%s", r.code, r.stderr)
	}
	var got struct {
		proto.ChatJSON
		Capsule    string `json:"capsule"`
		Redactions int    `json:"redactions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not the chat's JSON: %v\n%s", err, r.stdout)
	}
	want := "capsule: " + store.HandoffPath(got.ID) + " (3 redactions: 1 Anthropic key, 1 GitHub token, 1 secret assignment)"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
	}
	if got.Redactions != 3 {
		t.Errorf("--json says %d redactions, want 3", got.Redactions)
	}
	stored, _, err := store.Capsule(got.ID)
	if err != nil || stored != got.Capsule {
		t.Fatalf("stored capsule (err %v):\n%s", err, stored)
	}
	for _, secret := range []string{token, key, "hunter22"} {
		if strings.Contains(stored, secret) {
			t.Errorf("the capsule holds %q:\n%s", secret, stored)
		}
	}
	for _, mark := range []string{"GITHUB_TOKEN=[redacted:github-token]", "with [redacted:anthropic-key]", "DB_PASSWORD=[redacted:secret-value]", "DEBUG=1"} {
		if !strings.Contains(stored, mark) {
			t.Errorf("the capsule lacks %q:\n%s", mark, stored)
		}
	}

	// Without --json, the line is the same and stdout is the chat.
	r = c.run("handoff", "deploy", "--to", "gemini")
	if r.code != 0 || !strings.Contains(r.stderr, "(3 redactions: 1 Anthropic key, 1 GitHub token, 1 secret assignment)") || strings.Contains(r.stdout, "redaction") {
		t.Errorf("handoff: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// With --edit the user saw the capsule: no line.
	r = c.runWith([]string{"EDITOR=/bin/true"}, "handoff", "deploy", "--to", "gemini", "--edit")
	if r.code != 0 || strings.Contains(r.stderr, "capsule:") {
		t.Errorf("handoff --edit: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
}
