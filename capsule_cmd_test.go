package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

// handoff --json carries the capsule, built from the parent's Claude Code
// session log; it is stored beside the new chat's file and waits to be
// sent. --edit without EDITOR exits 2; with one, the chat gets the capsule
// as edited.
func TestHandoffCarriesACapsule(t *testing.T) {
	c := newCLI(t)
	parent := c.chat("new", "--harness", "claude", "--name", "parser", "--json")
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Update(parent.ID, func(m *sessions.Meta) error {
		m.AgentSessionID = "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join("internal", "capsule", "testdata", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(c.root, "user", ".claude", "projects", "-src-app")
	os.MkdirAll(proj, 0o755)
	if err := os.WriteFile(filepath.Join(proj, "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90.jsonl"), log, 0o600); err != nil {
		t.Fatal(err)
	}

	var got struct {
		sessions.ChatJSON
		Capsule string `json:"capsule"`
	}
	if err := json.Unmarshal([]byte(c.ok("handoff", "parser", "--to", "codex", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Handoff from chat \"parser\"", "> Fix the TOML parser: nested tables lose their keys.", "- /src/app/decode_test.go"} {
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
