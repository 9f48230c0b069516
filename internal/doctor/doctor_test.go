package doctor

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		status     Status
		want       []string
	}{
		{"missing", "", StatusOK, []string{"no file at", "the built-in defaults"}},
		{"good", "scrollback = 500\n", StatusOK, []string{"reads"}},
		{"unknown key", "scrollback = 500\nscrolback = 5\n[pool]\nsise = 1\n", StatusFail, []string{`line 2: unknown key "scrolback"`, `line 4: unknown key "pool.sise"`}},
		{"bad value", "\nscrollback = -3\n", StatusFail, []string{"line 2: scrollback: -3 out of range"}},
		{"bad default", "default_harness = \"nope\"\n", StatusFail, []string{`line 1: default_harness: "nope" names no harness`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".toml")
			if tc.text != "" {
				if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, cfg, table := checkConfig(path)
			if c.Status != tc.status || cfg == nil || table == nil {
				t.Fatalf("check = %+v (config %v, table %v)", c, cfg != nil, table != nil)
			}
			for _, w := range tc.want {
				if !strings.Contains(c.Detail, w) {
					t.Errorf("detail %q lacks %q", c.Detail, w)
				}
			}
			if tc.status == StatusFail && !strings.Contains(c.Fix, path) {
				t.Errorf("fix %q does not name the file", c.Fix)
			}
		})
	}
}

func TestProgramVersion(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"plain", `echo "tool 1.2.3 (Tool)"`, "tool 1.2.3 (Tool)"},
		{"escapes", `printf '\n\033]0;pwned\007\033[31mtool\t2.0\033[0m\r\nmore\n'`, "tool 2.0"},
		{"refuses", `echo "error: unexpected argument '--version'" >&2; exit 2`, "unknown (--version: exit status 2)"},
		{"silent", `exit 0`, "unknown (--version printed nothing)"},
		{"long", `printf 'v%0200d\n' 1`, "v" + strings.Repeat("0", versionLine-2) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := programVersion(context.Background(), script(tc.name, tc.body), nil, time.Minute); got != tc.want {
				t.Errorf("version %q, want %q", got, tc.want)
			}
		})
	}
	// One that never answers is killed, with what it started, at the
	// deadline.
	pidFile := filepath.Join(dir, "child.pid")
	hang := script("hang", "sleep 1000 & echo $! > "+pidFile+"; wait")
	if got := programVersion(context.Background(), hang, nil, 100*time.Millisecond); !strings.HasPrefix(got, "unknown (no answer to --version within") {
		t.Fatalf("version of a program that hangs: %q", got)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child := strings.TrimSpace(string(b))
	wait.Until(t, "the hung program's child "+child+" to be killed with it", func() bool {
		st, err := os.ReadFile("/proc/" + child + "/stat")
		if err != nil {
			return true
		}
		i := strings.LastIndexByte(string(st), ')')
		return i > 0 && strings.HasPrefix(string(st[i+1:]), " Z") // killed, not yet reaped
	})
}

func TestSignedIn(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	spec := func(name string) harness.Spec {
		for _, s := range harness.Builtins() {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no harness %s", name)
		return harness.Spec{}
	}
	for _, name := range []string{"claude", "claude-acp", "codex", "codex-acp", "gemini", "gemini-acp"} {
		if where, fix := signedIn(spec(name), getenv); !strings.HasPrefix(where, "not as far as can be told offline") || fix == "" {
			t.Errorf("%s with nothing: %q, fix %q", name, where, fix)
		}
	}
	for _, name := range []string{"opencode", "pi"} {
		if where, fix := signedIn(spec(name), getenv); where != "unknown" || fix != "" {
			t.Errorf("%s: %q, fix %q", name, where, fix)
		}
	}
	if where, _ := signedIn(spec("shell"), getenv); where != "" {
		t.Errorf("shell: %q", where)
	}
	for rel, names := range map[string][]string{
		".claude/.credentials.json": {"claude", "claude-acp"},
		".codex/auth.json":          {"codex", "codex-acp"},
		".gemini/oauth_creds.json":  {"gemini", "gemini-acp"},
	} {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if where, fix := signedIn(spec(name), getenv); where != "~/"+rel || fix != "" {
				t.Errorf("%s with %s: %q, fix %q", name, rel, where, fix)
			}
		}
	}
	os.RemoveAll(filepath.Join(home, ".claude"))
	env["ANTHROPIC_API_KEY"] = "sk-test"
	if where, _ := signedIn(spec("claude"), getenv); where != "ANTHROPIC_API_KEY" {
		t.Errorf("claude with the key: %q", where)
	}
	// The harness's own env counts as the process's does.
	delete(env, "ANTHROPIC_API_KEY")
	s := spec("claude")
	s.Env = map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": "t"}
	if where, _ := signedIn(s, getenv); where != "CLAUDE_CODE_OAUTH_TOKEN" {
		t.Errorf("claude with the token in its env: %q", where)
	}
}

func TestProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000:0050":                         "0.0.0.0:80",
		"00000000000000000000000001000000:A5F0": "[::1]:42480",
	} {
		if got, ok := procAddr(in); !ok || got != want {
			t.Errorf("procAddr(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "zz00007F:0050", "0100007F:zz", "01007F:0050"} {
		if got, ok := procAddr(bad); ok {
			t.Errorf("procAddr(%q) = %q, want a refusal", bad, got)
		}
	}
}

func TestListening(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := listening(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(addrs, ln.Addr().String()) {
		t.Fatalf("listening = %v, want %s among them", addrs, ln.Addr())
	}
	ln.Close()
	addrs, _ = listening(os.Getpid())
	if slices.Contains(addrs, ln.Addr().String()) {
		t.Fatalf("after close, listening = %v", addrs)
	}
	// The web line names the server's listener, and a listener the
	// config names but that is not open is a warning.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	cfg := config.Defaults()
	if c := checkWeb(cfg, os.Getpid(), t.TempDir()); c.Status != StatusOK || c.Detail != "open on "+ln2.Addr().String() {
		t.Errorf("web with a listener: %+v", c)
	}
	ln2.Close()
	cfg.Web.Listen = "127.0.0.1:7777"
	if c := checkWeb(cfg, os.Getpid(), t.TempDir()); c.Status != StatusWarn || !strings.Contains(c.Detail, `[web] listen = "127.0.0.1:7777"`) {
		t.Errorf("web configured but closed: %+v", c)
	}
}

func TestHomeAndSocketModes(t *testing.T) {
	home := t.TempDir()
	os.Chmod(home, 0o755)
	if c := checkHome(home); c.Status != StatusWarn || c.Fix != "chmod 700 "+home+" (the server does it when it starts)" {
		t.Errorf("home 0755: %+v", c)
	}
	os.Chmod(home, 0o700)
	if c := checkHome(home); c.Status != StatusOK {
		t.Errorf("home 0700: %+v", c)
	}
	if c := checkHome(filepath.Join(home, "none")); c.Status != StatusOK || !strings.Contains(c.Detail, "not made yet") {
		t.Errorf("no home: %+v", c)
	}
	sock := proto.SocketPath(home)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o666)
	if c := checkSocket(home); c.Status != StatusFail || !strings.Contains(c.Detail, "mode 0666, not 0600") {
		t.Errorf("socket 0666: %+v", c)
	}
	os.Chmod(sock, 0o600)
	if c := checkSocket(home); c.Status != StatusOK {
		t.Errorf("socket 0600: %+v", c)
	}
}

func TestReportWrite(t *testing.T) {
	r := Report{Checks: []Check{
		{Name: "config", Status: StatusOK, Detail: "fine", Fix: "not shown"},
		{Name: "host far", Status: StatusFail, Detail: "does not answer", Fix: "check ssh"},
		{Name: "sandbox", Status: StatusWarn, Detail: "no landlock", Fix: "a kernel"},
	}}
	var b strings.Builder
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "ok    config    fine\n" +
		"fail  host far  does not answer\n" +
		"                fix: check ssh\n" +
		"warn  sandbox   no landlock\n" +
		"                fix: a kernel\n" +
		"\n1 failure, 1 warning\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
	if !r.Failed() {
		t.Error("a failed check does not fail the report")
	}
	r.Checks[1].Status = StatusWarn
	if r.Failed() {
		t.Error("warnings fail the report")
	}
}
