package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file checks the harnesses: each one installed (its program on
// PATH), its version (`COMMAND --version`, bounded), how a chat's folders
// reach it, and whether it is signed in where that can be told without
// the network. A harness nothing names (no setting, no chat) that is not
// installed is no problem: those share one line.

// checkHarnesses makes one check per harness that is installed or that
// something needs, and one line for the rest.
func checkHarnesses(ctx context.Context, opt Options, cfg *config.Config, table *harness.Table, home string) []Check {
	used, broken, total := chatsByHarness(home)
	checks := []Check{checkChats(home, broken, total)}
	var unused []string
	type probe struct {
		at   int
		spec harness.Spec
		path string
	}
	var probes []probe
	for _, s := range table.All() {
		path, err := s.ResolveCommand(opt.Getenv)
		why := neededBy(s.Name, cfg, used)
		if err != nil {
			if why == "" {
				unused = append(unused, s.Name)
				continue
			}
			c := Check{Name: "harness " + s.Name, Status: StatusWarn,
				Detail: fmt.Sprintf("not installed: %q is not on PATH (%s)", commandOf(s, opt.Getenv), why),
				Fix:    fmt.Sprintf("install %s, or set [harness.%s] command to where it is", s.Command, s.Name)}
			if s.Name == cfg.DefaultHarness || s.Name == cfg.DefaultACPHarness {
				c.Status = StatusFail
			}
			checks = append(checks, c)
			continue
		}
		probes = append(probes, probe{at: len(checks), spec: s, path: path})
		checks = append(checks, Check{Name: "harness " + s.Name})
	}
	progs := map[string]harness.Spec{}
	for _, p := range probes {
		// A shell's --version says nothing of use, when it has one.
		if _, ok := progs[p.path]; !ok && p.spec.Kind != harness.KindPlain {
			progs[p.path] = p.spec
		}
	}
	versions := harnessVersions(ctx, opt, progs)
	for _, p := range probes {
		c := &checks[p.at]
		c.Status = StatusOK
		parts := []string{p.path}
		if v := versions[p.path]; v != "" {
			parts = append(parts, "version: "+v)
		}
		parts = append(parts, "folders: "+foldersWords(p.spec))
		signed, fix := signedIn(p.spec, opt.Getenv)
		if signed != "" {
			parts = append(parts, "signed in: "+signed)
		}
		if fix != "" {
			c.Status, c.Fix = StatusWarn, fix
		}
		c.Detail = strings.Join(parts, "; ")
	}
	if len(unused) > 0 {
		checks = append(checks, Check{Name: "harnesses", Status: StatusOK,
			Detail: "not installed, and no setting or chat names them: " + strings.Join(unused, ", ")})
	}
	return checks
}

// neededBy says what needs the harness: a default, a table of its own in
// the config, chats; "" when nothing does.
func neededBy(name string, cfg *config.Config, used map[string]int) string {
	var why []string
	if name == cfg.DefaultHarness {
		why = append(why, "it is default_harness")
	}
	if name == cfg.DefaultACPHarness {
		why = append(why, "it is default_acp_harness")
	}
	if _, ok := cfg.Harness[name]; ok {
		why = append(why, "the config has [harness."+name+"]")
	}
	if n := used[name]; n == 1 {
		why = append(why, "1 chat runs it")
	} else if n > 1 {
		why = append(why, fmt.Sprintf("%d chats run it", n))
	}
	return strings.Join(why, ", ")
}

// chatsByHarness counts the agent home's chats by harness, and lists the
// chat files that do not parse. A home with no chats folder is not made.
func chatsByHarness(home string) (map[string]int, []sessions.Entry, int) {
	out := map[string]int{}
	if _, err := os.Stat(filepath.Join(home, "chats")); err != nil {
		return out, nil, 0
	}
	store, err := sessions.OpenStore(home)
	if err != nil {
		return out, nil, 0
	}
	list, err := store.List()
	if err != nil {
		return out, nil, 0
	}
	var broken []sessions.Entry
	for _, e := range list {
		switch {
		case e.Broken != nil:
			broken = append(broken, e)
		case e.Meta != nil:
			out[e.Meta.Harness]++
		}
	}
	return out, broken, len(list)
}

// checkChats says how many chats the home holds, and names each chat file
// that does not parse (it is listed as broken, and left as it is).
func checkChats(home string, broken []sessions.Entry, total int) Check {
	c := Check{Name: "chats", Status: StatusOK, Detail: count(total, "chat")}
	if len(broken) == 0 {
		return c
	}
	var names []string
	for _, e := range broken {
		// The parse error may quote the file: text from outside.
		names = append(names, fmt.Sprintf("%s (%s)", e.ID, plaintext.Line(e.Broken.Error())))
	}
	c.Status = StatusWarn
	c.Detail = fmt.Sprintf("%s; %d whose file does not parse: %s", count(total, "chat"), len(broken), strings.Join(names, "; "))
	c.Fix = "fix or move each file by hand, in " + filepath.Join(home, "chats") + " (nothing overwrites or deletes it)"
	return c
}

// commandOf is the program a harness names, $SHELL expanded.
func commandOf(s harness.Spec, getenv func(string) string) string {
	if strings.HasPrefix(s.Command, "$") {
		if v := getenv(s.Command[1:]); v != "" {
			return v
		}
	}
	return s.Command
}

// foldersWords says how a chat's folders reach the harness, in words.
func foldersWords(s harness.Spec) string {
	switch via := s.FoldersVia(1, nil); via {
	case harness.ViaArgv:
		return fmt.Sprintf("argv (%s DIR per folder)", s.FolderFlag)
	case harness.ViaEnv:
		return "env (" + harness.EnvAdditionalDirectories + ")"
	case harness.ViaACP:
		return "acp (the additionalDirectories field)"
	case harness.ViaFlag:
		return fmt.Sprintf("flag (%s DIR on its command line)", s.FolderFlag)
	case harness.ViaNote:
		return "note (named at the head of the first prompt)"
	default:
		return via
	}
}

// versionLine bounds the version shown.
const versionLine = 80

// harnessVersions runs `PROGRAM --version` for each program at once, each
// bounded by opt.VersionTimeout and killed with its process group past
// it, and returns the first line each printed, cleaned (it is the
// program's text): "" when it printed nothing in time.
func harnessVersions(ctx context.Context, opt Options, progs map[string]harness.Spec) map[string]string {
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for path, s := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := programVersion(ctx, path, s.Env, opt.VersionTimeout)
			mu.Lock()
			out[path] = v
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func programVersion(ctx context.Context, path string, env map[string]string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = os.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var b bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &b, n: 4096}
	cmd.Stderr = cmd.Stdout
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Sprintf("unknown (no answer to --version within %v)", timeout)
	}
	if err != nil {
		// What a program that refuses --version prints is its complaint.
		return fmt.Sprintf("unknown (--version: %v)", err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if l := cleanVersion(line); l != "" {
			return l
		}
	}
	return "unknown (--version printed nothing)"
}

// cleanVersion makes a program's line fit to show on one line.
func cleanVersion(line string) string {
	l := sessions.AgentTitle(line)
	if r := []rune(l); len(r) > versionLine {
		l = strings.TrimSpace(string(r[:versionLine-1])) + "…"
	}
	return l
}

// limitedBuffer keeps the first n bytes written and drops the rest.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// signedIn says where the harness's credentials are, as far as can be told
// offline: an environment variable (the process's or the harness's env),
// or the file the harness keeps them in. It returns "unknown" for a
// harness whose sign-in cannot be told, and a fix when none is found.
func signedIn(s harness.Spec, getenv func(string) string) (where, fix string) {
	env := func(k string) bool { return getenv(k) != "" || s.Env[k] != "" }
	home := getenv("HOME")
	dir := func(override, rel string) string {
		if d := getenv(override); d != "" {
			return d
		}
		if d := s.Env[override]; d != "" {
			return d
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, rel)
	}
	var keys, files []string
	switch family(s) {
	case "claude":
		keys = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}
		files = []string{filepath.Join(dir("CLAUDE_CONFIG_DIR", ".claude"), ".credentials.json")}
		fix = "run claude and sign in (/login), or set ANTHROPIC_API_KEY"
	case "codex":
		keys = []string{"OPENAI_API_KEY", "CODEX_API_KEY"}
		files = []string{filepath.Join(dir("CODEX_HOME", ".codex"), "auth.json")}
		fix = "run codex login, or set OPENAI_API_KEY"
	case "gemini":
		keys = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}
		files = []string{filepath.Join(dir("GEMINI_DIR", ".gemini"), "oauth_creds.json")}
		fix = "run gemini and sign in, or set GEMINI_API_KEY"
	case "plain":
		return "", ""
	default:
		return "unknown", ""
	}
	for _, k := range keys {
		if env(k) {
			return k, ""
		}
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			return tildePath(f, home), ""
		}
	}
	return fmt.Sprintf("not as far as can be told offline (no %s, no %s)", strings.Join(keys, ", "), tildePath(files[0], home)), fix
}

// family is the agent a harness runs, from its program's name.
func family(s harness.Spec) string {
	if s.Kind == harness.KindPlain {
		return "plain"
	}
	switch filepath.Base(s.Command) {
	case "claude", "claude-agent-acp":
		return "claude"
	case "codex", "codex-acp":
		return "codex"
	case "gemini":
		return "gemini"
	}
	return ""
}

// tildePath writes a path under home as ~/….
func tildePath(p, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + rel
		}
	}
	return p
}
