package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/coder/acp-go-sdk"
)

// TestHugeAndGarbageLinesOnTheWire reads the fake's stdout raw, without the
// SDK's 10 MiB line limit, to check what the commands really write.
func TestHugeAndGarbageLinesOnTheWire(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	cmd := exec.CommandContext(ctx, fakeBin)
	cmd.Dir = f.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		io.Copy(io.Discard, stdout)
		cmd.Wait()
	}()
	out := bufio.NewReader(stdout)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() []byte {
		t.Helper()
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read stdout: %v", err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	recv()
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + mustJSON(f.dir) + `,"mcpServers":[]}}`)
	var created struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(recv(), &created); err != nil || created.Result.SessionID == "" {
		t.Fatalf("session/new: %v %+v", err, created)
	}
	sid := mustJSON(created.Result.SessionID)

	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":` + sid + `,"prompt":[{"type":"text","text":"garbage"}]}}`)
	if line := recv(); json.Valid(line) {
		t.Fatalf("garbage wrote valid JSON: %s", line)
	}
	if line := recv(); !strings.Contains(string(line), `"echo: garbage"`) {
		t.Fatalf("after garbage: %s", line)
	}
	if line := recv(); !strings.Contains(string(line), `"id":3`) || !strings.Contains(string(line), "end_turn") {
		t.Fatalf("garbage turn end: %s", line)
	}

	send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":` + sid + `,"prompt":[{"type":"text","text":"huge"}]}}`)
	line := recv()
	if len(line) < 20<<20 || !json.Valid(line) {
		t.Fatalf("huge wrote a %d-byte line (valid JSON: %v), want one of at least 20 MiB", len(line), json.Valid(line))
	}
	if line := recv(); !strings.Contains(string(line), `"echo: huge"`) {
		t.Fatalf("after huge: %.200s", line)
	}
}

// TestWireValidatesAgainstSchema drives every kind of client message the
// fake handles and validates each line it received against the official
// ACP schema, responses against the agent request they answer.
func TestWireValidatesAgainstSchema(t *testing.T) {
	v := acpschema.ForTest(t)
	ctx := testContext(t)
	f := newFiles(t)
	d1, d2 := t.TempDir(), t.TempDir()
	env := []string{"ACPMUX_FAKE_ADVERTISE=1", "ACPMUX_FAKE_RESUME=1", "ACPMUX_FAKE_FORK=1"}

	p1 := start(t, ctx, f, env...)
	p1.client.serve("/r.txt", "r")
	p1.initialize(ctx)
	sid := p1.newSession(ctx, f.dir, []string{d1, d2})
	p1.prompt(ctx, sid, "hello")
	p1.prompt(ctx, sid, "permission")
	p1.client.setAnswer(acp.NewRequestPermissionOutcomeCancelled())
	p1.prompt(ctx, sid, "permission")
	p1.prompt(ctx, sid, "read /r.txt")
	p1.prompt(ctx, sid, "read /nope.txt")
	p1.prompt(ctx, sid, "write /w.txt text")
	if _, err := p1.conn.UnstableForkSession(ctx, acp.UnstableForkSessionRequest{SessionId: sid, Cwd: f.dir, AdditionalDirectories: []string{d1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p1.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: sid, Cwd: f.dir, AdditionalDirectories: []string{d1, d2}}); err != nil {
		t.Fatal(err)
	}
	if err := p1.conn.Cancel(ctx, acp.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	p1.stop(ctx)

	f2 := f
	f2.wire = filepath.Join(f.dir, "wire2.jsonl")
	f2.sent = filepath.Join(f.dir, "sent2.jsonl")
	p2 := start(t, ctx, f2, env...)
	p2.initialize(ctx)
	if _, err := p2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sid, Cwd: f.dir, McpServers: []acp.McpServer{}, AdditionalDirectories: []string{d1, d2}}); err != nil {
		t.Fatal(err)
	}
	p2.stop(ctx)

	methods := map[string]int{}
	for _, pair := range [][2]string{{f.wire, f.sent}, {f2.wire, f2.sent}} {
		for m, n := range validateWire(t, v, pair[0], pair[1]) {
			methods[m] += n
		}
	}
	for _, m := range []string{"initialize", "session/new", "session/prompt", "session/load", "session/resume", "session/fork",
		"session/cancel", "response to session/request_permission", "response to fs/read_text_file", "response to fs/write_text_file"} {
		if methods[m] == 0 {
			t.Errorf("no %s on the wire to validate (saw %v)", m, methods)
		}
	}

	// The exact fields on the wire.
	dirs := mustJSON([]string{d1, d2})
	for _, c := range []struct{ path, method string }{{f.wire, "session/new"}, {f.wire, "session/resume"}, {f2.wire, "session/load"}} {
		reqs := requestsFor(t, c.path, c.method)
		if len(reqs) != 1 || string(reqs[0]["additionalDirectories"]) != dirs || string(reqs[0]["cwd"]) != mustJSON(f.dir) {
			t.Errorf("%s on the wire = %s, want cwd %s and additionalDirectories %s", c.method, mustJSON(reqs), f.dir, dirs)
		}
	}
}

// validateWire validates every line of a WIRE file, looking up the method
// a response answers in the matching SENT file, and counts what it saw by
// method.
func validateWire(t *testing.T, v *acpschema.Validator, wirePath, sentPath string) map[string]int {
	t.Helper()
	asked := map[string]string{} // agent request id -> method
	for _, l := range wireLines(t, sentPath) {
		var m wireMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("sent line %s: %v", l, err)
		}
		if m.Method != "" && m.ID != nil {
			asked[string(m.ID)] = m.Method
		}
	}
	seen := map[string]int{}
	for i, l := range wireLines(t, wirePath) {
		var m wireMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Errorf("wire line %d is not JSON: %v", i+1, err)
			continue
		}
		if m.Method != "" {
			seen[m.Method]++
			if err := v.ValidateClientMessage(l); err != nil {
				t.Errorf("wire line %d: %v\n%s", i+1, err, l)
			}
			continue
		}
		method, ok := asked[string(m.ID)]
		if !ok {
			t.Errorf("wire line %d answers id %s, which the agent never asked: %s", i+1, m.ID, l)
			continue
		}
		seen["response to "+method]++
		if err := v.ValidateClientResponse(method, l); err != nil {
			t.Errorf("wire line %d (response to %s): %v\n%s", i+1, method, err, l)
		}
	}
	return seen
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
