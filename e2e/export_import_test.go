package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	bundlepkg "github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/internal/transfer"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// End-to-end runs of export and import: a chat carried from one agent
// home (one HOME, one harness config) into another, with its conversation,
// and started there.

// serve runs `acpmux-tui server` for c's home in the background, with
// extraEnv added to c's environment, and returns a connection to it, held
// open for the test (a server with a client stays up).
func (c *cli) serve(extraEnv ...string) *client.Conn {
	c.t.Helper()
	cmd := exec.Command(binary, "server")
	cmd.Env, cmd.Dir = append(c.env(), extraEnv...), c.root
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go cmd.Wait()
	var conn *client.Conn
	wait.Until(c.t, "the server to answer on "+c.home, func() bool {
		var err error
		conn, err = client.Dial(c.home)
		return err == nil
	})
	c.t.Cleanup(func() { conn.Close() })
	return conn
}

// startChat starts a chat's harness through the server.
func startChat(t *testing.T, conn *client.Conn, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait.Hang)
	defer cancel()
	if err := conn.Call(ctx, proto.MethodStart, proto.ChatParams{ID: id}, nil); err != nil {
		t.Fatalf("start chat %s: %v", id, err)
	}
}

// waitStart waits for the first start a fake harness records in rec.
func waitStart(t *testing.T, rec string) startrecord.Record {
	t.Helper()
	var recs []startrecord.Record
	wait.Until(t, "the harness to record its first start in "+rec, func() bool {
		recs, _ = startrecord.Read(rec)
		return len(recs) > 0
	})
	return recs[0]
}

// importJSON runs import --json and decodes the report.
func (c *cli) importJSON(args ...string) proto.ImportReport {
	c.t.Helper()
	out := c.ok(append([]string{"import"}, append(args, "--json")...)...)
	var rep proto.ImportReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		c.t.Fatalf("import --json: %v\n%s", err, out)
	}
	return rep
}

// TestExportImportClaudeResumes: a Claude Code chat (the pty fake playing
// it) that has talked is exported from one home and imported into another
// with its own HOME: the name is derived, the harness kept, the folder
// inside the root kept and the one outside dropped; its session log is
// found again under the new HOME's project folder for its folder, and the
// first start there resumes it (--resume <id>).
func TestExportImportClaudeResumes(t *testing.T) {
	c1, c2 := newCLI(t), newCLI(t)
	rec1, rec2 := fakeClaude(t, c1), fakeClaude(t, c2)
	proj, lib, away := c1.dir("src/app"), c1.dir("src/lib"), c1.dir("away")
	chat := c1.chat("new", "--harness", "claude", "--cwd", proj, "--dir", lib, "--dir", away, "--name", "parser", "--json")
	conn := c1.serve()
	startChat(t, conn, chat.ID)
	first := waitStart(t, rec1)
	sid := c1.chat("show", chat.ID, "--json").AgentSessionID
	if sid == "" || !slices.Contains(first.Argv, "--session-id") {
		t.Fatalf("first start %q stored session %q", first.Argv, sid)
	}
	log1 := filepath.Join(c1.root, "user", ".claude", "projects", transfer.ClaudeProjectName(proj), sid+".jsonl")
	// Its first line written, not only the file made: the fake's
	// WriteFile creates, then writes at offset 0, over a line added between.
	wait.Until(t, "the fake to write its session log "+log1, func() bool {
		data, err := os.ReadFile(log1)
		return err == nil && strings.Contains(string(data), `"summary"`)
	})
	f, err := os.OpenFile(log1, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"type":"user","message":{"role":"user","content":"fix the parser"}}`)
	f.Close()
	want, _ := os.ReadFile(log1)

	bundle := filepath.Join(c1.root, "parser.acpmux.tgz")
	out := c1.ok("export", chat.ID, "-o", bundle)
	if !strings.Contains(out, "conversation: exact (claude-session)") {
		t.Errorf("export said %q", out)
	}
	rep := c2.importJSON(bundle, "--root", filepath.Join(c1.root, "src"))
	if rep.Name != "parser · import" || rep.Harness != "claude" || rep.Parent != chat.ID || rep.Cwd != proj || rep.Conversation != "exact" {
		t.Errorf("report %+v", rep)
	}
	if !slices.Equal(rep.Kept, []string{lib}) || len(rep.Dropped) != 1 || rep.Dropped[0].Path != away {
		t.Errorf("kept %q dropped %+v", rep.Kept, rep.Dropped)
	}
	log2 := filepath.Join(c2.root, "user", ".claude", "projects", transfer.ClaudeProjectName(proj), sid+".jsonl")
	if got, err := os.ReadFile(log2); err != nil || string(got) != string(want) {
		t.Fatalf("session log at %s: %q, %v; want %q", log2, got, err, want)
	}
	imported := c2.chat("show", rep.ID, "--json")
	if imported.AgentSessionID != sid || imported.Origin != "import" {
		t.Errorf("imported chat %+v", imported)
	}

	startChat(t, c2.serve(), rep.ID)
	second := waitStart(t, rec2)
	if i := slices.Index(second.Argv, "--resume"); i < 0 || i+1 >= len(second.Argv) || second.Argv[i+1] != sid {
		t.Errorf("the imported chat's first start got %q, want --resume %s", second.Argv, sid)
	}
	if second.Cwd != proj || !slices.Contains(second.Argv, lib) || slices.Contains(second.Argv, away) {
		t.Errorf("the imported chat started in %s with %q", second.Cwd, second.Argv)
	}
}

// acpCLI is a CLI world whose "fake" harness is the fake ACP agent keeping
// its sessions in state and recording every message it reads to wire.
func acpCLI(t *testing.T, state string) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	wireLog := filepath.Join(c.root, "agent-wire.jsonl")
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_WIRE = %q }\n",
		buildACPFake(t), state, wireLog)
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return c, wireLog
}

// wireMethods are the methods the fake agent read, in order, with their
// params.
func wireMethods(t *testing.T, path string) (methods []string, params []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method != "" {
			methods, params = append(methods, m.Method), append(params, string(m.Params))
		}
	}
	return methods, params
}

// TestExportImportACPLoads: an ACP chat exported while its server holds it
// comes over exact: the other home's first start sends session/load for
// its session (to an agent that has it: both fakes share one store), and
// the capsule kept for a failed load is dropped, never sent.
func TestExportImportACPLoads(t *testing.T) {
	state := filepath.Join(t.TempDir(), "agent-state")
	c1, _ := acpCLI(t, state)
	c2, wire2 := acpCLI(t, state)
	proj := c1.dir("src/app")
	chat := c1.chat("new", "--harness", "fake", "--cwd", proj, "--name", "lexer", "--json")
	if out := c1.ok("prompt", chat.ID, "add a test for the lexer"); !strings.Contains(out, "add a test for the lexer") {
		t.Fatalf("prompt printed %q", out)
	}
	sid := c1.chat("show", chat.ID, "--json").AgentSessionID
	bundle := filepath.Join(c1.root, "lexer.acpmux.tgz")
	if out := c1.ok("export", chat.ID, "-o", bundle); !strings.Contains(out, "conversation: exact (acp-transcript)") {
		t.Fatalf("export of a chat its server holds said %q", out)
	}
	rep := c2.importJSON(bundle, "--root", filepath.Join(c1.root, "src"))
	if rep.Conversation != "exact" || !strings.Contains(rep.How, "session/load") {
		t.Fatalf("report %+v", rep)
	}
	if out := c2.ok("prompt", rep.ID, "carry on"); out != "echo: carry on\n" {
		t.Errorf("prompt in the imported chat printed %q", out)
	}
	methods, params := wireMethods(t, wire2)
	i := slices.Index(methods, "session/load")
	if i < 0 || !strings.Contains(params[i], sid) || slices.Contains(methods, "session/new") {
		t.Fatalf("the other home's agent read %q, want session/load of %s and no session/new", methods, sid)
	}
	for j, m := range methods {
		if m == "session/prompt" && strings.Contains(params[j], "Imported chat") {
			t.Errorf("the capsule was sent although the load worked: %s", params[j])
		}
	}
	if text, _, _ := c2.chatCapsule(rep.ID); text != "" {
		t.Errorf("the capsule stayed after the load worked")
	}
}

// chatCapsule reads an imported chat's capsule from c's store.
func (c *cli) chatCapsule(id string) (string, bool, error) {
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		return "", false, err
	}
	return store.Capsule(id)
}

// TestExportImportACPFallsBackToTheCapsule: the other home's agent does not
// have the session (a store of its own): its session/load fails, and the
// mux starts a new session whose first prompt is the capsule of the
// exported transcript; the user's prompt comes after it.
func TestExportImportACPFallsBackToTheCapsule(t *testing.T) {
	c1, _ := acpCLI(t, filepath.Join(t.TempDir(), "state-1"))
	c2, wire2 := acpCLI(t, filepath.Join(t.TempDir(), "state-2"))
	chat := c1.chat("new", "--harness", "fake", "--name", "lexer", "--json")
	c1.ok("prompt", chat.ID, "add a test for the lexer")
	bundle := filepath.Join(c1.root, "lexer.acpmux.tgz")
	c1.ok("export", chat.ID, "-o", bundle)
	rep := c2.importJSON(bundle, "--root", c2.root)
	if !rep.CwdFresh || rep.Conversation != "exact" {
		t.Fatalf("report %+v", rep)
	}
	if out := c2.ok("prompt", rep.ID, "carry on"); !strings.HasSuffix(out, "echo: carry on\n") {
		t.Errorf("prompt in the imported chat printed %q", out)
	}
	methods, params := wireMethods(t, wire2)
	load, fresh := slices.Index(methods, "session/load"), slices.Index(methods, "session/new")
	if load < 0 || fresh < load {
		t.Fatalf("the agent read %q: want a session/load, then a session/new", methods)
	}
	var prompts []string
	for j, m := range methods {
		if m == "session/prompt" {
			prompts = append(prompts, params[j])
		}
	}
	if len(prompts) != 2 || !strings.Contains(prompts[0], "Imported chat") || !strings.Contains(prompts[0], "add a test for the lexer") || !strings.Contains(prompts[1], "carry on") {
		t.Errorf("prompts %q: want the capsule first, then the user's", prompts)
	}
	if shown := c2.chat("show", rep.ID, "--json"); shown.AgentSessionID == "" || shown.AgentSessionID == chat.AgentSessionID {
		t.Errorf("after the fallback the chat keeps session %q", shown.AgentSessionID)
	}
}

// TestExportImportPipeBetweenHomes: `export ID -o - | import - --root DIR`
// moves a chat between two homes through a pipe, the report going to
// stderr so stdout holds the bundle alone; a chat with no project gets a
// fresh home folder, and the report names the host.
func TestExportImportPipeBetweenHomes(t *testing.T) {
	c1, c2 := newCLI(t), newCLI(t)
	lib := c1.dir("src/lib")
	chat := c1.chat("new", "--harness", "shell", "--dir", lib, "--name", "notes", "--json")
	exp := exec.Command(binary, "export", chat.ID, "-o", "-")
	exp.Env, exp.Dir = c1.env(), c1.root
	imp := exec.Command(binary, "import", "-", "--root", filepath.Join(c1.root, "src"))
	imp.Env, imp.Dir = c2.env(), c2.root
	r, w := io.Pipe()
	var expErr, impOut, impErr strings.Builder
	exp.Stdout, exp.Stderr = w, &expErr
	imp.Stdin, imp.Stdout, imp.Stderr = r, &impOut, &impErr
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	if err := exp.Run(); err != nil {
		t.Fatalf("export: %v\n%s", err, expErr.String())
	}
	w.Close()
	if err := imp.Wait(); err != nil {
		t.Fatalf("import: %v\n%s", err, impErr.String())
	}
	host, _ := os.Hostname()
	if !strings.Contains(expErr.String(), "exported chat "+chat.ID) || !strings.Contains(expErr.String(), "to stdout") {
		t.Errorf("export's report on stderr: %q", expErr.String())
	}
	out := impOut.String()
	for _, s := range []string{"imported chat " + chat.ID, `"notes · import"`, "on host " + host, "kept folder: " + lib, "a fresh home folder"} {
		if !strings.Contains(out, s) {
			t.Errorf("import's report %q does not say %q", out, s)
		}
	}
	list := c2.ls()
	if len(list) != 1 || list[0].Name != "notes · import" || !slices.Equal(list[0].AdditionalDirectories, []string{lib}) {
		t.Fatalf("the other home lists %+v", list)
	}
	if cwd := list[0].Cwd; cwd != filepath.Join(c2.home, "homes", list[0].ID) {
		t.Errorf("cwd %s, want a fresh home folder", cwd)
	}
}

// TestExportImportRefusals: a root that does not exist, a chat whose
// folder lies outside the roots, and a file that is not a bundle each exit
// 2 with a message naming it and write nothing; export's default file name
// is <name slug>-<id>.acpmux.tgz in the current folder.
func TestExportImportRefusals(t *testing.T) {
	c1, c2 := newCLI(t), newCLI(t)
	proj := c1.dir("src/app")
	chat := c1.chat("new", "--harness", "shell", "--cwd", proj, "--name", "Fix: the ../parser", "--json")
	c1.ok("export", chat.ID)
	bundle := filepath.Join(c1.root, "fix-the-parser-"+chat.ID+".acpmux.tgz")
	if _, err := os.Stat(bundle); err != nil {
		t.Fatalf("default export file: %v", err)
	}
	junk := filepath.Join(c1.root, "junk.tgz")
	if err := os.WriteFile(junk, []byte("not a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", bundle, "--root", filepath.Join(c1.root, "nope")}, "--root"},
		{[]string{"import", bundle, "--root", c1.dir("elsewhere")}, "is outside every --root"},
		{[]string{"import", junk, "--root", c1.root}, "not a gzip file"},
		{[]string{"import", bundle}, "at least one --root"},
	} {
		r := c2.run(tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if files := c2.chatFiles(); len(files) != 0 {
		t.Errorf("refused imports wrote %q", files)
	}
	if _, err := os.Stat(filepath.Join(c2.home, "staging")); !os.IsNotExist(err) {
		t.Errorf("staging left: %v", err)
	}
}

// TestExportImportTurnInProgress: a chat exported while its ACP turn runs
// is exported as it stands, up to the turn's last complete update (the
// agent's "working slowly"), and the report says a turn was in progress;
// the import's report carries that note on.
func TestExportImportTurnInProgress(t *testing.T) {
	c1, _ := acpCLI(t, filepath.Join(t.TempDir(), "state"))
	chat := c1.chat("new", "--harness", "fake", "--name", "slow", "--json")
	b := c1.promptInBackground("prompt", chat.ID, "slow")
	wait.UntilShow(t, "the slow turn's first update on stdout", func() bool {
		return strings.Contains(b.stdout.String(), "working slowly")
	}, b.stdout.String)
	bundle := filepath.Join(c1.root, "slow.acpmux.tgz")
	out := c1.ok("export", chat.ID, "-o", bundle)
	if !strings.Contains(out, "note: "+transfer.NoteTurnCut) || !strings.Contains(out, "exact (acp-transcript)") {
		t.Fatalf("export during a turn said %q", out)
	}
	c2, _ := acpCLI(t, filepath.Join(t.TempDir(), "state-2"))
	rep := c2.importJSON(bundle, "--root", c2.root, "--dry-run")
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "turn was in progress") }) {
		t.Errorf("import notes %q", rep.Notes)
	}
	f, err := os.Open(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	up, err := bundlepkg.Unpack(f, t.TempDir(), bundlepkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := os.ReadFile(filepath.Join(up.Dir, bundlepkg.TranscriptMember))
	if err != nil || !strings.Contains(string(tr), "slow") || !strings.Contains(string(tr), "working slowly") {
		t.Errorf("the transcript exported mid-turn: %q, %v", tr, err)
	}
}
