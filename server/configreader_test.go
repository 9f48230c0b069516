package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// configRig is a server whose config file the test writes.
type configRig struct {
	*rig
	path  string
	state string
	fake  string
}

// newConfigRig starts a server over a config file holding what first
// says; watched says whether the server watches the file (else only the
// calls that may name a harness read it again).
func newConfigRig(t *testing.T, first string, watched bool) *configRig {
	t.Helper()
	c := &configRig{path: filepath.Join(t.TempDir(), "config.toml"), state: t.TempDir(), fake: buildACPFake(t)}
	c.write(t, first)
	cfg, table, err := harness.Load(c.path)
	if err != nil {
		t.Fatal(err)
	}
	c.rig = newRig(t, rigOpt{
		opt: func(o *Options) {
			o.Config, o.Table, o.ConfigPath = cfg, table, c.path
			o.Mux = mux.New(mux.Options{Store: o.Store, Table: table, Config: cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond})
			o.WriteTimeout = hangDeadline
		},
		server: func(s *Server) { s.configUnwatched = !watched },
	})
	return c
}

func (c *configRig) write(t *testing.T, text string) {
	t.Helper()
	if err := os.WriteFile(c.path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (c *configRig) acpTable(name string) string {
	return fmt.Sprintf("[harness.%s]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q }\n", name, c.fake, c.state)
}

// TestConfigReadBeforeDoorCalls: with the file not watched, an ACP client
// on the socket that names a harness added a moment ago at initialize is
// served it (the door's initialize reads the config again), and its
// session/new makes a chat of it whose turn runs.
func TestConfigReadBeforeDoorCalls(t *testing.T) {
	c := newConfigRig(t, c0(), false)
	c.write(t, c0()+c.acpTable("added"))
	d := c.doorClient(acpschema.ForTest(t))
	if _, err := d.Initialize(hangCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		Meta: map[string]any{acp.MetaHarness: "added"}}); err != nil {
		t.Fatalf("initialize naming a harness added to the file: %v", err)
	}
	proj := c.folders(1)[0]
	resp, err := d.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if m, err := c.store.Load(string(resp.SessionId)); err != nil || m.Harness != "added" {
		t.Fatalf("the door's chat: %+v, %v; want it of the harness added", m, err)
	}
	if _, err := d.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if got := d.Text(string(resp.SessionId), "agent"); !strings.Contains(got, "echo: hi") {
		t.Fatalf("the agent said %q", got)
	}
	if err := d.Invalid(); err != nil {
		t.Fatal(err)
	}
}

// c0 is the first config of these tests: a pty default and nothing else.
func c0() string { return "default_harness = \"shell\"\n" }

// TestConfigReadBeforeObserve: with the file not watched, a chat of a
// harness added a moment ago, whose file another process wrote (`new`
// with no server call), is observed, made ready and prompted (what
// `prompt` does): observe reads the config again.
func TestConfigReadBeforeObserve(t *testing.T) {
	c := newConfigRig(t, c0(), false)
	c.write(t, c0()+c.acpTable("added"))
	m, err := c.store.Create(sessions.NewChat{Harness: "added", Name: "by-hand"})
	if err != nil {
		t.Fatal(err)
	}
	w := c.dial()
	w.ok(proto.MethodObserve, proto.ChatParams{ID: m.ID}, nil)
	rep, _ := w.callNoting(proto.MethodReady, proto.ChatParams{ID: m.ID})
	if rep.Error != nil {
		t.Fatalf("ready: %+v", rep.Error)
	}
}

// TestConfigChangeToldToWatchers: the server watches the file. An edit
// that adds a harness and a host is told to a watcher with no call made
// (NotifyConfigChanged: the harness, installed, and the host's settings),
// and _acpmux/config answers the same. A bad edit is told as a refusal
// naming the line and the key, and _acpmux/config answers the last good
// config with the refusal; a fix is told with a newer generation.
func TestConfigChangeToldToWatchers(t *testing.T) {
	c := newConfigRig(t, c0(), true)
	watcher := c.dial()
	rep, _ := watcher.callNoting(proto.MethodWatch, proto.SizeParams{})
	if rep.Error != nil {
		t.Fatal(rep.Error)
	}
	asker := c.dial()
	var before proto.ConfigResult
	asker.ok(proto.MethodConfig, struct{}{}, &before)
	if _, ok := before.Harness("added"); ok || len(before.Hosts) != 0 || before.DefaultHarness != "shell" {
		t.Fatalf("before the edit: %+v", before)
	}

	host := "[host.far]\nssh = \"me@far\"\nssh_options = [\"-p\", \"2222\"]\nhome = \"~/agent\"\n"
	good := "default_harness = \"added\"\n" + c.acpTable("added") + host
	c.write(t, good)
	told := watcher.waitNote(t, proto.NotifyConfigChanged, "the edit told", func(p json.RawMessage) bool {
		var res proto.ConfigResult
		json.Unmarshal(p, &res)
		_, ok := res.Harness("added")
		return ok
	})
	var changed proto.ConfigResult
	json.Unmarshal(told, &changed)
	h, _ := changed.Harness("added")
	if !h.Installed || h.Transport != harness.TransportACP || h.Kind != harness.KindACP || h.Command != c.fake || changed.DefaultHarness != "added" {
		t.Fatalf("the harness told: %+v (default %q)", h, changed.DefaultHarness)
	}
	if changed.DefaultACPHarness != "added" {
		t.Fatalf("the default ACP harness told is %q, want added", changed.DefaultACPHarness)
	}
	want := proto.HostConfig{Name: "far", SSH: "me@far", SSHOptions: []string{"-p", "2222"}, Home: "~/agent"}
	if len(changed.Hosts) != 1 || fmt.Sprint(changed.Hosts[0]) != fmt.Sprint(want) {
		t.Fatalf("the hosts told: %+v, want %+v", changed.Hosts, want)
	}
	if changed.Generation <= before.Generation {
		t.Fatalf("generation %d after %d", changed.Generation, before.Generation)
	}
	var asked proto.ConfigResult
	asker.ok(proto.MethodConfig, struct{}{}, &asked)
	if asked.Generation != changed.Generation || asked.Refused != "" || len(asked.Hosts) != 1 {
		t.Fatalf("_acpmux/config after the edit: %+v, told %+v", asked, changed)
	}

	// A bad edit (line 10: the host's budget).
	c.write(t, good+"budget = 1\n")
	refusal := watcher.waitNote(t, proto.NotifyConfigRefused, "the bad edit told", func(json.RawMessage) bool { return true })
	var p proto.ConfigRefusedParams
	json.Unmarshal(refusal, &p)
	for _, want := range []string{"line 10", "host.far.budget", "the last good config stays in effect"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("refusal %q lacks %q", p.Message, want)
		}
	}
	// The caller is told the refusal too, before the answer.
	rep, notes := asker.callNoting(proto.MethodConfig, struct{}{})
	if rep.Error != nil || len(configRefusals(t, notes)) != 1 {
		t.Fatalf("_acpmux/config after a bad edit: %+v, notices %v", rep.Error, notes)
	}
	json.Unmarshal(rep.Result, &asked)
	if _, ok := asked.Harness("added"); !ok || asked.Generation != changed.Generation || !strings.Contains(asked.Refused, "host.far.budget") {
		t.Fatalf("_acpmux/config after a bad edit: %+v; want the last good config and the refusal", asked)
	}

	// Fixed, without the host.
	c.write(t, "default_harness = \"added\"\n"+c.acpTable("added"))
	told = watcher.waitNote(t, proto.NotifyConfigChanged, "the fix told", func(p json.RawMessage) bool {
		var res proto.ConfigResult
		json.Unmarshal(p, &res)
		return len(res.Hosts) == 0
	})
	var fixed proto.ConfigResult
	json.Unmarshal(told, &fixed)
	if fixed.Generation <= changed.Generation || fixed.Refused != "" {
		t.Fatalf("the fix told: %+v (after generation %d)", fixed, changed.Generation)
	}
}

// waitNote reads lines until a notification of method whose params satisfy
// ok, within the hang deadline, and returns its params; what waits for it
// names it in a failure.
func (w *wire) waitNote(t *testing.T, method, what string, ok func(json.RawMessage) bool) json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(hangDeadline)
	for {
		w.nc.SetReadDeadline(deadline)
		line, err := w.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("waiting for %s (%s): %v", what, method, err)
		}
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == method && ok(m.Params) {
			return m.Params
		}
	}
}

// TestConfigOfTheDefaults: with no config file, _acpmux/config answers the
// built-in table and no host.
func TestConfigOfTheDefaults(t *testing.T) {
	r := newRig(t, rigOpt{})
	var res proto.ConfigResult
	r.dial().ok(proto.MethodConfig, struct{}{}, &res)
	if len(res.Harnesses) < len(harness.Builtins()) || len(res.Hosts) != 0 || res.Refused != "" {
		t.Fatalf("config: %+v", res)
	}
	if _, ok := res.Harness("shell"); !ok {
		t.Fatalf("the table lacks shell: %+v", res.Harnesses)
	}
}
