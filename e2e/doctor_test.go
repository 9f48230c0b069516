package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// doctorCheck is one check of `doctor --json`.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// doctor runs `doctor --json` and `doctor`, and checks that both exit
// with want and tell the same checks.
func (c *cli) doctor(want int) map[string]doctorCheck {
	c.t.Helper()
	r := c.run("doctor", "--json")
	if r.code != want {
		c.t.Fatalf("doctor --json exited %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}
	var rep struct {
		Checks []doctorCheck `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		c.t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	text := c.run("doctor")
	if text.code != want {
		c.t.Fatalf("doctor exited %d, want %d\n%s", text.code, want, text.stdout)
	}
	out := map[string]doctorCheck{}
	for _, ch := range rep.Checks {
		out[ch.Name] = ch
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(ch.Status) + ` +` + regexp.QuoteMeta(ch.Name) + ` +` + regexp.QuoteMeta(ch.Detail) + `$`)
		if !line.MatchString(text.stdout) {
			c.t.Errorf("doctor printed no line for %+v:\n%s", ch, text.stdout)
		}
		if ch.Fix != "" && ch.Status != "ok" && !strings.Contains(text.stdout, "fix: "+ch.Fix+"\n") {
			c.t.Errorf("doctor printed no fix for %+v:\n%s", ch, text.stdout)
		}
	}
	return out
}

func wantCheck(t *testing.T, checks map[string]doctorCheck, name, status string, details ...string) doctorCheck {
	t.Helper()
	c, ok := checks[name]
	if !ok {
		t.Fatalf("no check %q among %v", name, checks)
	}
	if c.Status != status {
		t.Errorf("check %q is %s, want %s: %+v", name, c.Status, status, c)
	}
	for _, d := range details {
		if !strings.Contains(c.Detail, d) {
			t.Errorf("check %q says %q, want %q in it", name, c.Detail, d)
		}
	}
	return c
}

// TestDoctorClean: a machine with nothing set up is all good: no config
// (the defaults), no server, only shell installed.
func TestDoctorClean(t *testing.T) {
	c := newCLI(t)
	checks := c.doctor(0)
	wantCheck(t, checks, "config", "ok", "no file at "+c.config)
	wantCheck(t, checks, "server", "ok", "not running")
	wantCheck(t, checks, "harness shell", "ok", "/bin/sh", "folders: env")
	wantCheck(t, checks, "harnesses", "ok", "claude, codex, gemini")
	wantCheck(t, checks, "web", "ok", "no server")
	if _, ok := checks["test peers"]; ok {
		t.Error("a folder outside any clone got a test peers check")
	}
	if r := c.run("doctor"); !strings.HasSuffix(r.stdout, "\nall good\n") {
		t.Errorf("doctor on a clean machine:\n%s", r.stdout)
	}
	// Every check has the four fields, fix too (empty when there is none).
	var raw struct {
		Checks []map[string]any `json:"checks"`
	}
	if err := json.Unmarshal([]byte(c.ok("doctor", "--json")), &raw); err != nil || len(raw.Checks) == 0 {
		t.Fatalf("doctor --json: %v", err)
	}
	for _, ch := range raw.Checks {
		if _, ok := ch["fix"]; len(ch) != 4 || !ok || ch["name"] == nil || ch["status"] == nil || ch["detail"] == nil {
			t.Errorf("check %v: want exactly name, status, detail, fix", ch)
		}
	}
}

// TestDoctorBrokenConfig: an unknown key, and a bad value, each fail
// naming the line and the key, and the other checks go on.
func TestDoctorBrokenConfig(t *testing.T) {
	c := newCLI(t)
	for text, want := range map[string]string{
		"scrollback = 100\nscrolback = 5\n": `line 2: unknown key "scrolback"`,
		"[acp]\ninit_timeout = \"2h\"\n":    "line 2: acp.init_timeout: 2h0m0s out of range",
	} {
		if err := os.WriteFile(c.config, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		checks := c.doctor(1)
		cfg := wantCheck(t, checks, "config", "fail", c.config, want)
		if !strings.Contains(cfg.Fix, "edit "+c.config) {
			t.Errorf("fix %q", cfg.Fix)
		}
		wantCheck(t, checks, "server", "ok", "not running")
		wantCheck(t, checks, "harness shell", "ok")
	}
}

// TestDoctorHarnesses: a harness whose program is missing fails when it is
// the default; one that is a script shows the version it prints, cleaned.
func TestDoctorHarnesses(t *testing.T) {
	c := newCLI(t)
	vtool := filepath.Join(c.root, "bin", "vtool")
	if err := os.WriteFile(vtool, []byte("#!/bin/sh\nprintf '\\033[1mvtool 9.8.7\\033[0m\\nbuilt today\\n'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "default_harness = \"gone\"\n" +
		"[harness.gone]\ncommand = \"gone-tool\"\ntransport = \"acp\"\nkind = \"acp\"\n" +
		"[harness.vtool]\ncommand = \"vtool\"\ntransport = \"acp\"\nkind = \"acp\"\n"
	if err := os.WriteFile(c.config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := c.doctor(1)
	wantCheck(t, checks, "config", "ok")
	gone := wantCheck(t, checks, "harness gone", "fail", `not installed: "gone-tool" is not on PATH`, "it is default_harness")
	if !strings.Contains(gone.Fix, "install gone-tool") {
		t.Errorf("fix %q", gone.Fix)
	}
	wantCheck(t, checks, "harness vtool", "ok", vtool+"; version: vtool 9.8.7; folders: note", "signed in: unknown")
}

// TestDoctorServer: a running server is named with its pid and version,
// its socket 0600 and its home 0700.
func TestDoctorServer(t *testing.T) {
	c := newCLI(t)
	conn := c.serve()
	hello, err := conn.Hello(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	checks := c.doctor(0)
	wantCheck(t, checks, "server", "ok", fmt.Sprintf("running: pid %d, acpmux-tui %s, up ", hello.Pid, version))
	wantCheck(t, checks, "socket", "ok", filepath.Join(c.home, "acpmux.sock")+": mode 0600")
	wantCheck(t, checks, "agent home", "ok", c.home+": mode 0700")
	wantCheck(t, checks, "web", "ok", "not open")
}

// TestDoctorHostDown: a host whose ssh fails (at once, as ssh does when
// nothing listens) fails the doctor, with ssh's reason.
func TestDoctorHostDown(t *testing.T) {
	c := newCLI(t)
	ssh := "#!/bin/sh\necho 'ssh: connect to host down.example port 22: Connection refused' >&2\nexit 255\n"
	if err := os.WriteFile(filepath.Join(c.root, "bin", "ssh"), []byte(ssh), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.config, []byte("[host.down]\nssh = \"down.example\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := c.doctor(1)
	h := wantCheck(t, checks, "host down", "fail", "down.example does not answer", "Connection refused")
	if !strings.Contains(h.Fix, "acpmux-tui hosts install down") {
		t.Errorf("fix %q", h.Fix)
	}
	wantCheck(t, checks, "config", "ok")
}

// TestDoctorChatsAndService: a chat file that does not parse is named (a
// warning); the systemd units, once installed, are reported, and units of
// another home are a warning.
func TestDoctorChatsAndService(t *testing.T) {
	c := newCLI(t)
	c.ok("new", "--name", "fine")
	if err := os.WriteFile(filepath.Join(c.home, "chats", "bad1.toml"), []byte("version = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := c.doctor(0)
	ch := wantCheck(t, checks, "chats", "warn", "2 chats; 1 whose file does not parse: bad1 (")
	if !strings.Contains(ch.Fix, filepath.Join(c.home, "chats")) {
		t.Errorf("fix %q", ch.Fix)
	}
	wantCheck(t, checks, "service", "ok", "no systemd units")

	dir, env := serviceEnv(c)
	if r := c.runIn(c.root, env, "service", "install"); r.code != 0 {
		t.Fatalf("service install: %d %s", r.code, r.stderr)
	}
	doctorJSON := func(extra ...string) map[string]doctorCheck {
		t.Helper()
		r := c.runIn(c.root, append(env, extra...), "doctor", "--json")
		var rep struct {
			Checks []doctorCheck `json:"checks"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
		}
		out := map[string]doctorCheck{}
		for _, ch := range rep.Checks {
			out[ch.Name] = ch
		}
		return out
	}
	wantCheck(t, doctorJSON(), "service", "ok", filepath.Join(dir, "acpmux-tui.socket")+" is installed")
	other := filepath.Join(c.root, "other-home")
	wantCheck(t, doctorJSON("ACPMUX_HOME="+other), "service", "warn",
		"listens on "+filepath.Join(c.home, "acpmux.sock")+", not on this agent home's socket "+filepath.Join(other, "acpmux.sock"))
}
