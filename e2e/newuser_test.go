package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// What a new user hit, each a row: a failed chat says why in the
// harness's own words (show's reason, command and exit), a typo in the
// config does not hide the chats, and an export of a worktree chat says
// that the worktree's work stays behind.

// flakyConfig is a harness that prints its error, advice and a link, and
// exits 3, as the real Claude Code does offline (it exits 1).
const flakyConfig = `[harness.flaky]
command = "/bin/sh"
args = ["-c", "echo 'flaky: Error: cannot reach the service: ECONNREFUSED'; echo; echo 'Check your network.'; echo 'https://example.com/help'; exit 3"]
kind = "plain"
`

// TestNewUserFailedChatShowsWhy: a chat whose harness keeps exiting 3
// fails; `show` gives why in the harness's words (its error line, not the
// link it printed last), the command it was started with and its exit,
// each a row, and `show --json` and the server's answer (what a host's
// server answers `show --host`) carry the same.
func TestNewUserFailedChatShowsWhy(t *testing.T) {
	c := newCLI(t)
	writeText(t, c.config, flakyConfig)
	chat := c.chat("new", "--harness", "flaky", "--name", "flaky", "--json")
	conn := c.serve()
	startChat(t, conn, chat.ID)
	var j proto.ChatJSON
	wait.UntilShow(t, "the flaky chat to fail after its respawns", func() bool {
		j = c.chat("show", chat.ID, "--json")
		return j.Status == "failed"
	}, func() string { return "status " + j.Status })

	const said = "flaky: Error: cannot reach the service: ECONNREFUSED"
	if f := j.Failure; f == nil || f.Said != said || f.Exit != "exit status 3" || len(f.Command) != 3 || f.Command[0] != "/bin/sh" || f.Command[1] != "-c" {
		t.Fatalf("show --json of the failed chat: failed %q, failure %+v", j.Failed, j.Failure)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait.Hang)
	defer cancel()
	var answered proto.ChatJSON
	if err := conn.Call(ctx, proto.MethodChat, proto.IDParams{ID: chat.ID}, &answered); err != nil {
		t.Fatal(err)
	}
	if f := answered.Failure; f == nil || f.Said != said || f.Exit != "exit status 3" {
		t.Fatalf("the server answers the failed chat with failure %+v", answered.Failure)
	}

	shown := c.ok("show", chat.ID)
	for _, row := range []string{
		`failed +crashed \d+ times in a row; last: exit status 3`,
		`reason +"` + regexp.QuoteMeta(said) + `"`,
		`command +/bin/sh -c 'echo .*; exit 3'`,
		`exit +exit status 3`,
	} {
		if !regexp.MustCompile(`(?m)^` + row + `$`).MatchString(shown) {
			t.Fatalf("show of the failed chat lacks the row %q:\n%s", row, shown)
		}
	}
	if regexp.MustCompile(`(?m)^reason .*example\.com`).MatchString(shown) {
		t.Fatalf("show quotes the link the harness printed last:\n%s", shown)
	}
}

// TestNewUserConfigTypoKeepsReadCommands: with an unknown key, and with a
// bad value, in the config, `ls`, `show`, `rm` and `doctor` go on: each
// warns on stderr naming the file, the line and the key (doctor in its
// config line, exit 1 as for any failed check), with the built-in
// defaults when no server runs and with the running server's last good
// config when one does; `new`, which would start a harness, still refuses.
func TestNewUserConfigTypoKeepsReadCommands(t *testing.T) {
	c := newCLI(t)
	good := "default_harness = \"mine\"\n[harness.mine]\ncommand = \"/bin/sh\"\nkind = \"plain\"\n"
	writeText(t, c.config, good)
	// A chat with a folder: its harness "mine" (kind plain) takes it as
	// env, which only a config that has "mine" knows.
	keep := c.chat("new", "--name", "keep", "--dir", c.dir("lib"), "--json")
	var gone []string
	for range 3 {
		gone = append(gone, c.chat("new", "--json").ID)
	}
	typos := []struct{ text, line, key string }{
		{"scrolback = 5\n" + good, "line 1", `unknown key "scrolback"`},
		{"scrollback = -1\n" + good, "line 1", "scrollback: -1 out of range"},
	}
	check := func(typo struct{ text, line, key string }, rm, fallback, via string) {
		t.Helper()
		writeText(t, c.config, typo.text)
		why := "config " + c.config + ": " + typo.line + ": " + typo.key
		warned := func(cmd string, r result) {
			t.Helper()
			if r.code != 0 || !strings.Contains(r.stderr, "acpmux-tui: warning: "+why) || !strings.Contains(r.stderr, "going on with "+fallback) {
				t.Fatalf("%s with %q in the config: exit %d, stderr %q; want 0 and a warning naming %q, going on with %s\nstdout:\n%s",
					cmd, typo.text, r.code, r.stderr, why, fallback, r.stdout)
			}
		}
		r := c.run("ls")
		warned("ls", r)
		if !strings.Contains(r.stdout, "keep") || !strings.Contains(r.stdout, rm) {
			t.Fatalf("ls with a typo in the config lists:\n%s", r.stdout)
		}
		r = c.run("show", keep.ID)
		warned("show", r)
		if !regexp.MustCompile(`(?m)^folders via +` + via + `( \(expected: not started yet\))?$`).MatchString(r.stdout) {
			t.Fatalf("show with a typo in the config (going on with %s): want folders via %s:\n%s", fallback, via, r.stdout)
		}
		r = c.run("rm", rm)
		warned("rm", r)
		if r.stdout != "removed "+rm+"\n" {
			t.Fatalf("rm with a typo in the config: stdout %q", r.stdout)
		}
		checks := c.doctor(1)
		if ch := checks["config"]; ch.Status != "fail" || !strings.Contains(ch.Detail, why) {
			t.Fatalf("doctor's config check with a typo: %+v, want fail naming %q", ch, why)
		}
		if ch, ok := checks["harness shell"]; !ok || ch.Status != "ok" {
			t.Fatalf("doctor stopped at the config: harness shell %+v (%v)", ch, ok)
		}
		files := len(c.chatFiles())
		if r := c.run("new", "--name", "refused"); r.code != 1 || !strings.Contains(r.stderr, why) || strings.Contains(r.stderr, "warning") {
			t.Fatalf("new with a typo in the config: exit %d, stderr %q; want 1 naming %q", r.code, r.stderr, why)
		}
		if n := len(c.chatFiles()); n != files {
			t.Fatalf("a refused new wrote a chat file: %d files, were %d", n, files)
		}
	}
	// No server: the built-in defaults, which have no harness "mine".
	for i, typo := range typos {
		check(typo, gone[i], "the built-in defaults", "none")
	}
	// A server that read the good file keeps it in effect, "mine" in it.
	writeText(t, c.config, good)
	c.serve()
	// The server has read the good file before the typo is written (a CI
	// run once wrote it first, and the server held the defaults).
	wait.Until(t, "show through the server to say folders via env", func() bool {
		return regexp.MustCompile(`(?m)^folders via +env`).MatchString(c.run("show", keep.ID).stdout)
	})
	check(typos[0], gone[2], "the last good config the server holds", "env")
}

// TestNewUserExportWarnsWorkStaysBehind: `export` of a worktree chat whose
// worktree has an uncommitted file and an unpushed commit writes the
// bundle and warns on stderr that the work stays behind, naming both; a
// clean worktree, and the server's export (the TUI's), say the same.
func TestNewUserExportWarnsWorkStaysBehind(t *testing.T) {
	c := newCLI(t)
	repo, git := gitWorld(t, c)
	git(repo, "add", "-A")
	git(repo, "commit", "-q", "-m", "the base's own edit")
	chat := c.chat("new", "--worktree", "--cwd", repo, "--harness", "shell", "--name", "wt", "--json")
	w := chat.Worktree
	if w == nil {
		t.Fatalf("no worktree: %+v", chat)
	}
	bundle := filepath.Join(c.root, "wt.acpmux.tgz")
	if r := c.run("export", chat.ID, "-o", bundle); r.code != 0 || strings.Contains(r.stderr+r.stdout, "stays behind") {
		t.Fatalf("export of a clean worktree chat: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	sha := leaveWork(t, w.Path, git)

	wants := []string{"acpmux-tui: warning: the work in its git worktree stays behind (the bundle does not carry it): ",
		"1 uncommitted change (?? notes.txt)", "1 commit on no other branch (" + sha + " add the parser)",
		"in " + w.Path + " (branch " + w.Branch + ")", "push the branch"}
	r := c.run("export", chat.ID, "-o", bundle)
	if r.code != 0 {
		t.Fatalf("export: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range wants {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("export of a worktree chat with work: stderr %q lacks %q", r.stderr, want)
		}
	}
	if strings.Contains(r.stdout, "stays behind") || !strings.Contains(r.stdout, "exported chat "+chat.ID) {
		t.Fatalf("export's report on stdout: %q", r.stdout)
	}
	if fi, err := os.Stat(bundle); err != nil || fi.Size() == 0 {
		t.Fatalf("the bundle was not written: %v", err)
	}
	// To stdout, the bundle alone is on stdout.
	r = c.run("export", chat.ID, "-o", "-")
	if r.code != 0 || !strings.Contains(r.stderr, wants[0]) || strings.Contains(r.stdout, "stays behind") {
		t.Fatalf("export -o -: exit %d, stderr %q", r.code, r.stderr)
	}

	// The server's export, which the TUI's dialog calls, notes it.
	conn := c.serve()
	ctx, cancel := context.WithTimeout(context.Background(), wait.Hang)
	defer cancel()
	var rep proto.ExportReport
	if err := conn.Call(ctx, proto.MethodExport, proto.ExportParams{ID: chat.ID, Path: filepath.Join(c.root, "by-server.tgz")}, &rep); err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "stays behind") || !strings.Contains(notes, "?? notes.txt") {
		t.Fatalf("the server's export notes %q", rep.Notes)
	}
}

// leaveWork commits a file on the worktree at path's branch (a commit no
// other branch has) and leaves another uncommitted; it returns the
// commit's short sha.
func leaveWork(t *testing.T, path string, git func(dir string, argv ...string) string) string {
	t.Helper()
	writeText(t, filepath.Join(path, "parser.go"), "package parser\n")
	git(path, "add", "parser.go")
	git(path, "commit", "-q", "-m", "add the parser")
	writeText(t, filepath.Join(path, "notes.txt"), "not committed\n")
	return strings.TrimSpace(git(path, "rev-parse", "--short", "HEAD"))
}

// TestNewUserTUIExportDialogWarnsWorkStaysBehind: in the TUI, `e` on a
// worktree chat whose worktree has an uncommitted file and an unpushed
// commit opens the export dialog saying, before anything is written, that
// the work stays behind, naming both.
func TestNewUserTUIExportDialogWarnsWorkStaysBehind(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	repo, git := gitWorld(t, c)
	git(repo, "add", "-A")
	git(repo, "commit", "-q", "-m", "the base's own edit")
	chat := c.chat("new", "--worktree", "--cwd", repo, "--harness", "shell", "--name", "wt", "--json")
	sha := leaveWork(t, chat.Worktree.Path, git)

	s := startTmuxIn(t, c.root, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("q quit", "wt")
	s.keys("e")
	s.waitText("export chat", "the work in its git worktree stays behind", "?? notes.txt", sha+" add the parser",
		"push branch "+chat.Worktree.Branch)
	s.keys("Escape")
	s.waitFor("the export dialog to close", func(scr string) bool { return !strings.Contains(scr, "export chat") })
	if m, _ := filepath.Glob(filepath.Join(c.root, "*.acpmux.tgz")); len(m) != 0 {
		t.Fatalf("the dialog wrote %v before enter", m)
	}
	s.quit()
}
