// Package e2e runs the acpmux-tui binary from outside, as a user, a script,
// an ACP client or another host does: TestMain builds it once from the
// module root, and each test drives it in its own world (an agent home, a
// config, a HOME and an empty PATH: newCLI), through its commands, in tmux
// (the TUI, attach), over its ACP door, or over a real sshd (--host). The
// tests that call package main's functions directly stay at the root.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// binary is the acpmux-tui built once for every test in this package.
var binary string

// version is the version that binary reports (`version --json`): what a
// host running it answers with.
var version string

// moduleRoot is the folder holding go.mod: where the binary is built from,
// and what the tests' paths into the repository (docs/, internal/…/testdata,
// the installed peers in .peers/) are relative to.
var moduleRoot string

func TestMain(m *testing.M) {
	root, err := findModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	moduleRoot = root
	dir, err := os.MkdirTemp("", "acpmux-tui-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "acpmux-tui")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = moduleRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build acpmux-tui:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	var v versionJSON
	out, err := exec.Command(binary, "version", "--json").Output()
	if err == nil {
		err = json.Unmarshal(out, &v)
	}
	if err != nil || v.Version == "" {
		fmt.Fprintf(os.Stderr, "acpmux-tui version --json: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	version = v.Version
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// findModuleRoot walks up from the working folder (this package's, under
// go test) to the first folder holding go.mod.
func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder")
		}
		dir = parent
	}
}

// cli is one user's world: an agent home, a config path, a HOME and an empty
// PATH (so no agent is found and the default harness is shell).
type cli struct {
	t      testing.TB
	root   string // canonical temp folder holding everything
	home   string // ACPMUX_HOME
	config string // ACPMUX_CONFIG (absent unless written)
}

func newCLI(t testing.TB) *cli {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &cli{t: t, root: root, home: filepath.Join(root, "agent"), config: filepath.Join(root, "config.toml")}
	for _, d := range []string{"user", "bin"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A test may start a server (the TUI, attach and prompt do): none may
	// outlive it, nor any harness it runs. Registered first, this runs
	// last, after the test's tmux sessions have gone.
	t.Cleanup(c.killServer)
	return c
}

// killServer stops the test's server and every harness it runs, if one
// runs; it never starts one.
func (c *cli) killServer() {
	cmd := exec.Command(binary, "kill-server")
	cmd.Env = c.env()
	cmd.Dir = c.root
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "no server") {
		c.t.Errorf("kill-server at the end of the test: %v\n%s", err, out)
	}
}

func (c *cli) env() []string {
	return []string{
		"ACPMUX_HOME=" + c.home,
		"ACPMUX_CONFIG=" + c.config,
		"HOME=" + filepath.Join(c.root, "user"),
		"PATH=" + filepath.Join(c.root, "bin"),
		"SHELL=/bin/sh",
	}
}

type result struct {
	stdout, stderr string
	code           int
}

func (c *cli) run(args ...string) result {
	c.t.Helper()
	return c.runIn(c.root, nil, args...)
}

// ok runs a command that must succeed.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("acpmux-tui %q exited %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func (c *cli) chat(args ...string) proto.ChatJSON {
	c.t.Helper()
	var j proto.ChatJSON
	out := c.ok(args...)
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		c.t.Fatalf("acpmux-tui %q: %v\n%s", args, err, out)
	}
	return j
}

func (c *cli) ls() []proto.ChatJSON {
	c.t.Helper()
	var list []proto.ChatJSON
	out := c.ok("ls", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		c.t.Fatalf("ls --json: %v\n%s", err, out)
	}
	return list
}

func (c *cli) dir(rel string) string {
	c.t.Helper()
	p := filepath.Join(c.root, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func (c *cli) chatFiles() []string {
	c.t.Helper()
	m, _ := filepath.Glob(filepath.Join(c.home, "chats", "*.toml"))
	return m
}

func (c *cli) homes() []string {
	c.t.Helper()
	des, _ := os.ReadDir(filepath.Join(c.home, "homes"))
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func TestCLINewJSON(t *testing.T) {
	c := newCLI(t)
	a, b := c.dir("src/lib"), c.dir("notes dir/ü")
	if err := os.Symlink(b, filepath.Join(c.root, "notes-link")); err != nil {
		t.Fatal(err)
	}
	out := c.ok("new", "--dir", a, "--dir", filepath.Join(c.root, "notes-link")+"/", "--dir", a+"/", "--json")

	// Exactly the fields of a chat's --json (docs/cli.md, "JSON of a
	// chat"): those always there, with foldersViaExpected before a first
	// start and noProject for a chat in its own folder; no broken field.
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"additionalDirectories", "additionalFiles", "agentSessionId", "created", "cwd", "filesVia", "foldersVia", "foldersViaExpected", "harness", "id", "name", "noProject", "origin", "parent", "status"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	id, _ := raw["id"].(string)
	if !sessions.ValidID(id) {
		t.Fatalf("id %q", id)
	}
	for k, v := range map[string]any{
		"harness": "shell", "name": "shell " + id, "cwd": filepath.Join(c.home, "homes", id),
		"parent": "", "origin": "", "agentSessionId": "", "status": "stopped", "foldersVia": "env", "foldersViaExpected": true,
	} {
		if raw[k] != v {
			t.Errorf("%s = %#v, want %#v", k, raw[k], v)
		}
	}
	if got := fmt.Sprint(raw["additionalDirectories"]); got != fmt.Sprint([]any{a, b}) {
		t.Errorf("additionalDirectories %s, want [%s %s]", got, a, b)
	}
	if fi, err := os.Stat(filepath.Join(c.home, "homes", id)); err != nil || !fi.IsDir() {
		t.Errorf("home folder: %v", err)
	}

	// No folders: an empty array, never null; folders reach nothing.
	out = c.ok("new", "--json", "--name", "bare")
	if !strings.Contains(out, `"additionalDirectories": []`) {
		t.Errorf("empty folder list not an array:\n%s", out)
	}
	if j := c.chat("show", "bare", "--json"); j.FoldersVia != "none" || j.AdditionalDirectories == nil {
		t.Errorf("%+v", j)
	}

	// How folders reach each kind of harness.
	proj := c.dir("app")
	for harness, via := range map[string]string{"claude": "argv", "codex": "argv", "gemini": "argv", "shell": "env", "claude-acp": "acp", "codex-acp": "note", "gemini-acp": "flag", "opencode": "note", "pi": "note"} {
		j := c.chat("new", "--harness", harness, "--cwd", proj, "--dir", a, "--name", "via "+harness, "--json")
		if j.FoldersVia != via || j.Harness != harness || j.Cwd != proj || j.Name != "via "+harness {
			t.Errorf("%s: %+v, want foldersVia %s", harness, j, via)
		}
	}
}

func TestCLIRefusalExits2AndWritesNothing(t *testing.T) {
	c := newCLI(t)
	a := c.dir("a")
	file := filepath.Join(c.root, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	nope := filepath.Join(c.root, "nope")
	proj := c.dir("proj")
	for _, args := range [][]string{
		{"new", "--dir", a, "--dir", "rel/dir", "--dir", nope, "--dir", file, "--dir", "", "--json"},
		{"--dir", a, "--dir", "rel/dir", "--dir", nope, "--dir", file, "--dir", ""}, // the bare launch flags
	} {
		r := c.run(args...)
		if r.code != 2 {
			t.Errorf("%q exited %d, want 2\n%s", args, r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("stdout: %q", r.stdout)
		}
		for _, line := range []string{
			"-32602",
			// A relative path is the caller's: resolved, then refused.
			fmt.Sprintf(`[1] "%s": does not exist`, filepath.Join(c.root, "rel/dir")),
			fmt.Sprintf(`[2] "%s": does not exist`, nope),
			fmt.Sprintf(`[3] "%s": not a directory`, file),
			`[4] "": empty path`,
		} {
			if !strings.Contains(r.stderr, line) {
				t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "[0]") {
			t.Errorf("a good entry is named:\n%s", r.stderr)
		}
	}
	// The project folder given again as a folder, through a link.
	if err := os.Symlink(proj, filepath.Join(c.root, "proj-link")); err != nil {
		t.Fatal(err)
	}
	r := c.run("new", "--cwd", proj, "--dir", filepath.Join(c.root, "proj-link"))
	if r.code != 2 || !strings.Contains(r.stderr, "is the chat's own folder") {
		t.Errorf("own folder: %d %s", r.code, r.stderr)
	}
	// 65 folders.
	args := []string{"new"}
	for i := range 65 {
		args = append(args, "--dir", c.dir(fmt.Sprintf("many/%d", i)))
	}
	r = c.run(args...)
	if r.code != 2 || !strings.Contains(r.stderr, "65 folders given, at most 64 allowed") {
		t.Errorf("65 folders: %d %s", r.code, r.stderr)
	}
	// An unknown harness.
	r = c.run("new", "--harness", "nonesuch", "--dir", a)
	if r.code != 2 || !strings.Contains(r.stderr, `unknown harness "nonesuch"`) || !strings.Contains(r.stderr, "claude") {
		t.Errorf("unknown harness: %d %s", r.code, r.stderr)
	}
	// A name no chat file can hold (TOML is UTF-8).
	r = c.run("new", "--name", "bad\xffname")
	if r.code == 0 || !strings.Contains(r.stderr, "not valid UTF-8") {
		t.Errorf("non-UTF-8 name: %d %s", r.code, r.stderr)
	}
	if f := c.chatFiles(); len(f) != 0 {
		t.Errorf("refusals wrote %v", f)
	}
	if h := c.homes(); len(h) != 0 {
		t.Errorf("refusals left home folders %v", h)
	}
	if list := c.ls(); len(list) != 0 {
		t.Errorf("ls after refusals: %+v", list)
	}
}

func TestCLILsAndShow(t *testing.T) {
	c := newCLI(t)
	if out := c.ok("ls", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty ls --json = %q", out)
	}
	if out := c.ok("ls"); !strings.Contains(out, "no chats yet") {
		t.Errorf("empty ls = %q", out)
	}
	a := c.dir("a")
	first := c.chat("new", "--name", "fix the parser", "--dir", a, "--json")
	second := c.chat("new", "--name", "fix the lexer", "--json")
	third := c.chat("new", "--name", "notes", "--json")

	list := c.ls()
	if len(list) != 3 {
		t.Fatalf("ls: %+v", list)
	}
	ids := map[string]bool{}
	for _, j := range list {
		ids[j.ID] = true
		if j.Status != "stopped" || j.AdditionalDirectories == nil || j.Broken != "" {
			t.Errorf("ls entry %+v", j)
		}
	}
	if !ids[first.ID] || !ids[second.ID] || !ids[third.ID] {
		t.Errorf("ls ids %v", ids)
	}

	for _, ref := range []string{first.ID, first.ID[:5], "fix the parser", "fix the p"} {
		if j := c.chat("show", ref, "--json"); j.ID != first.ID || fmt.Sprint(j.AdditionalDirectories) != fmt.Sprint([]string{a}) {
			t.Errorf("show %q = %+v", ref, j)
		}
	}
	// --json before the id works too.
	if j := c.chat("show", "--json", "notes"); j.ID != third.ID {
		t.Errorf("show --json notes = %+v", j)
	}
	// Plain show prints the fields a user reads.
	out := c.ok("show", "fix the parser")
	for _, want := range []string{first.ID, "fix the parser", "shell", a, "no project", "folders via", "env"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	r := c.run("show", "fix")
	if r.code == 0 || !strings.Contains(r.stderr, "ambiguous") || !strings.Contains(r.stderr, first.ID) || !strings.Contains(r.stderr, second.ID) {
		t.Errorf("ambiguous: %d %s", r.code, r.stderr)
	}
	r = c.run("show", "nothing-like-it")
	if r.code == 0 || !strings.Contains(r.stderr, "no such chat") {
		t.Errorf("not found: %d %s", r.code, r.stderr)
	}
	if r := c.run("show"); r.code != 2 {
		t.Errorf("show with no id exited %d", r.code)
	}

	// A broken file is listed as broken, with its error, and left alone.
	broken := filepath.Join(c.home, "chats", "brk.toml")
	text := "version = 1\nid = \"brk\"\nname = \"unterminated\n"
	if err := os.WriteFile(broken, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	list = c.ls()
	var found bool
	for _, j := range list {
		if j.ID == "brk" {
			found = true
			if j.Status != "broken" || !strings.Contains(j.Broken, "load chat brk") {
				t.Errorf("broken entry %+v", j)
			}
		}
	}
	if !found || len(list) != 4 {
		t.Errorf("ls with a broken file: %+v", list)
	}
	if out := c.ok("ls"); !strings.Contains(out, "brk") || !strings.Contains(out, "broken") {
		t.Errorf("ls:\n%s", out)
	}
	// show of a broken file exits 1; --json still prints the object.
	if r := c.run("show", "brk", "--json"); r.code != 1 || !strings.Contains(r.stdout, `"broken": "load chat brk`) {
		t.Errorf("show brk --json: exit %d\n%s", r.code, r.stdout)
	}
	if r := c.run("rm", "brk"); r.code == 0 {
		t.Error("rm deleted a broken file")
	}
	if r := c.run("add-dir", "brk", a); r.code == 0 {
		t.Error("add-dir rewrote a broken file")
	}
	if got, _ := os.ReadFile(broken); string(got) != text {
		t.Errorf("broken file changed: %q", got)
	}
}

func TestCLIAddAndRemoveFolders(t *testing.T) {
	c := newCLI(t)
	a, b, d := c.dir("a"), c.dir("b"), c.dir("d")
	j := c.chat("new", "--name", "work", "--dir", a, "--json")
	out := c.ok("add-dir", "work", b, d+"/", a)
	if !strings.Contains(out, b) || !strings.Contains(out, d) {
		t.Errorf("add-dir output:\n%s", out)
	}
	if got := c.chat("show", j.ID, "--json"); fmt.Sprint(got.AdditionalDirectories) != fmt.Sprint([]string{a, b, d}) {
		t.Errorf("after add-dir: %v", got.AdditionalDirectories)
	}

	// A refused add-dir exits 2, names the bad entry, and changes nothing.
	path := filepath.Join(c.home, "chats", j.ID+".toml")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := c.run("add-dir", "work", c.dir("e"), "relative", filepath.Join(c.home, "homes", j.ID))
	if r.code != 2 || !strings.Contains(r.stderr, "-32602") || !strings.Contains(r.stderr, fmt.Sprintf(`[1] "%s": does not exist`, filepath.Join(c.root, "relative"))) ||
		!strings.Contains(r.stderr, "[2] ") || !strings.Contains(r.stderr, "is the chat's own folder") {
		t.Errorf("refused add-dir: %d\n%s", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("refused add-dir changed the chat file")
	}
	if r := c.run("add-dir", "work"); r.code != 2 {
		t.Errorf("add-dir with no folder exited %d", r.code)
	}

	// rm-dir, also of a folder that has since vanished.
	c.ok("rm-dir", "work", b)
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	c.ok("rm-dir", j.ID, d)
	if got := c.chat("show", j.ID, "--json"); fmt.Sprint(got.AdditionalDirectories) != fmt.Sprint([]string{a}) {
		t.Errorf("after rm-dir: %v", got.AdditionalDirectories)
	}
	r = c.run("rm-dir", "work", b)
	if r.code == 0 || !strings.Contains(r.stderr, b) {
		t.Errorf("rm-dir of a folder not there: %d %s", r.code, r.stderr)
	}
}

func TestCLIRemove(t *testing.T) {
	c := newCLI(t)
	proj := c.dir("project")
	if err := os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := c.chat("new", "--cwd", proj, "--name", "with project", "--json")
	n := c.chat("new", "--name", "no project", "--json")
	w := c.chat("new", "--name", "busy home", "--json")
	if err := os.WriteFile(filepath.Join(w.Cwd, "notes.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}

	if out := c.ok("rm", "with project"); !strings.Contains(out, p.ID) {
		t.Errorf("rm output %q", out)
	}
	if got, err := os.ReadFile(filepath.Join(proj, "main.go")); err != nil || string(got) != "package main\n" {
		t.Errorf("project folder touched: %v", err)
	}
	c.ok("rm", n.ID)
	if _, err := os.Stat(n.Cwd); !os.IsNotExist(err) {
		t.Errorf("home folder of a removed chat: %v", err)
	}

	r := c.run("rm", "busy")
	if r.code == 0 || !strings.Contains(r.stderr, "not empty") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("rm of a busy home: %d %s", r.code, r.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(w.Cwd, "notes.md")); err != nil || string(got) != "mine" {
		t.Errorf("refused rm touched the home folder: %v", err)
	}
	if list := c.ls(); len(list) != 1 || list[0].ID != w.ID {
		t.Errorf("after refused rm: %+v", list)
	}
	c.ok("rm", "--force", "busy")
	if _, err := os.Stat(w.Cwd); !os.IsNotExist(err) {
		t.Errorf("forced rm left the home folder: %v", err)
	}
	if f := c.chatFiles(); len(f) != 0 {
		t.Errorf("left %v", f)
	}
	if r := c.run("rm", w.ID); r.code == 0 || !strings.Contains(r.stderr, "no such chat") {
		t.Errorf("rm of a removed chat: %d %s", r.code, r.stderr)
	}
}

func TestCLIBareLaunchFlagsCreateTheChat(t *testing.T) {
	c := newCLI(t)
	a := c.dir("a")
	out := c.ok("--dir", a, "--name", "launched")
	list := c.ls()
	if len(list) != 1 || list[0].Name != "launched" || fmt.Sprint(list[0].AdditionalDirectories) != fmt.Sprint([]string{a}) || list[0].Harness != "shell" {
		t.Fatalf("ls after launch: %+v", list)
	}
	if !strings.Contains(out, list[0].ID) || !strings.Contains(out, a) {
		t.Errorf("launch printed:\n%s", out)
	}
	// No flags: the chats are listed.
	if out := c.ok(); !strings.Contains(out, list[0].ID) {
		t.Errorf("bare command printed:\n%s", out)
	}
	if r := c.run("--harness", "nonesuch"); r.code != 2 {
		t.Errorf("unknown harness exited %d", r.code)
	}
	if r := c.run("frobnicate"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %d %s", r.code, r.stderr)
	}
}

// An agent home reached through a link still knows a chat's own folder.
func TestCLIHomeThroughSymlink(t *testing.T) {
	c := newCLI(t)
	real := c.dir("real-home")
	link := filepath.Join(c.root, "home-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	c.home = link
	j := c.chat("new", "--name", "linked", "--json")
	if j.Cwd != filepath.Join(real, "homes", j.ID) {
		t.Errorf("cwd %q", j.Cwd)
	}
	if out := c.ok("show", "linked"); !strings.Contains(out, "no project") {
		t.Errorf("show:\n%s", out)
	}
	r := c.run("add-dir", "linked", filepath.Join(link, "homes", j.ID))
	if r.code != 2 || !strings.Contains(r.stderr, "is the chat's own folder") {
		t.Errorf("own folder through the link: %d %s", r.code, r.stderr)
	}
	c.ok("rm", "linked")
	if _, err := os.Stat(j.Cwd); !os.IsNotExist(err) {
		t.Errorf("home folder left: %v", err)
	}
}

func TestCLIVersionAndHelp(t *testing.T) {
	c := newCLI(t)
	if out := c.ok("version"); !strings.HasPrefix(out, "acpmux-tui ") || strings.TrimSpace(out) == "acpmux-tui" {
		t.Errorf("version = %q", out)
	}
	out := c.ok("help")
	for _, cmd := range []string{"new", "ls", "show", "add-dir", "rm-dir", "rm", "harnesses", "version"} {
		if !strings.Contains(out, "  "+cmd+" ") {
			t.Errorf("help lacks %s:\n%s", cmd, out)
		}
	}
	out = c.ok("harnesses")
	for _, h := range []string{"claude", "codex", "gemini", "shell", "claude-acp", "codex-acp", "gemini-acp", "opencode", "pi"} {
		if !strings.Contains(out, "\n"+h+" ") {
			t.Errorf("harnesses lacks %s:\n%s", h, out)
		}
	}
}

func TestCLIConfig(t *testing.T) {
	c := newCLI(t)
	if err := os.WriteFile(c.config, []byte("default_harness = \"claude\"\n\n[harness.claude]\ncolour = \"red\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.run("new")
	if r.code == 0 || !strings.Contains(r.stderr, "line 4") || !strings.Contains(r.stderr, "harness.claude.colour") || !strings.Contains(r.stderr, c.config) {
		t.Errorf("bad config: %d %s", r.code, r.stderr)
	}
	if f := c.chatFiles(); len(f) != 0 {
		t.Errorf("wrote %v", f)
	}
	if err := os.WriteFile(c.config, []byte("default_harness = \"claude\"\n\n[harness.mine]\ncommand = \"my-agent\"\nkind = \"codex\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if j := c.chat("new", "--json"); j.Harness != "claude" {
		t.Errorf("default_harness not used: %+v", j)
	}
	if j := c.chat("new", "--harness", "mine", "--dir", c.dir("a"), "--json"); j.Harness != "mine" || j.FoldersVia != "argv" {
		t.Errorf("added harness: %+v", j)
	}
}

// BenchmarkLsJSON1000Binary is the same through the built binary, process
// start included: what a script calling `acpmux-tui ls --json` waits for.
func BenchmarkLsJSON1000Binary(b *testing.B) {
	c := newCLI(b)
	s, err := sessions.OpenStore(c.home)
	if err != nil {
		b.Fatal(err)
	}
	for range 1000 {
		if _, err := s.Create(sessions.NewChat{Harness: "shell"}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		cmd := exec.Command(binary, "ls", "--json")
		cmd.Env = c.env()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
