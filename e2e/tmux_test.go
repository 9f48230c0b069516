package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/sessions"
)

// tmuxSession is the real binary running in a detached tmux session of a
// fixed size, on a private server socket, read with capture-pane and driven
// with send-keys.
type tmuxSession struct {
	t    testing.TB
	sock string
}

// needTmux skips a test when tmux is absent, unless ACPMUX_REQUIRE_PEERS=1
// (scripts/test), which makes it a failure. Under -short (scripts/test
// --quick) the end-to-end runs are skipped: they are the slow part.
func needTmux(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the end-to-end tmux runs are left to the full run")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("ACPMUX_REQUIRE_PEERS") == "1" {
			t.Fatal("tmux is required for the end-to-end TUI tests (ACPMUX_REQUIRE_PEERS=1)")
		}
		t.Skip("tmux is not installed; the end-to-end TUI tests need it")
	}
}

// startTmux runs argv in a new detached tmux session of cols x rows, with
// env added to its environment.
func startTmux(t testing.TB, cols, rows int, env, argv []string) *tmuxSession {
	t.Helper()
	return startTmuxIn(t, "", cols, rows, env, argv)
}

// startTmuxIn is startTmux with argv run in the folder dir (the test's
// own folder when "").
func startTmuxIn(t testing.TB, dir string, cols, rows int, env, argv []string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	args := []string{"new-session", "-d", "-s", "e2e", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows)}
	if dir != "" {
		args = append(args, "-c", dir)
	}
	args = append(append(append(args, "env"), env...), argv...)
	s.tmux(args...)
	t.Cleanup(s.kill)
	return s
}

// kill ends the session's tmux server and waits until the programs of its
// panes have ended: tmux hangs them up and does not wait, and a TUI still
// ending could start a server in the test's agent home after the test's
// own kill-server, and write there as its folder is removed.
func (s *tmuxSession) kill() {
	out, _ := exec.Command("tmux", "-S", s.sock, "list-panes", "-a", "-F", "#{pane_pid}").Output()
	_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			srvWaitFor(s.t, fmt.Sprintf("the pane's program (pid %d) to end after tmux's", pid), func() bool { return !srvProcessAlive(pid) })
		}
	}
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen returns the pane as text.
func (s *tmuxSession) screen() string {
	out, err := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-t", "e2e").CombinedOutput()
	if err != nil {
		return "(capture-pane: " + err.Error() + ": " + string(out) + ")"
	}
	return string(out)
}

// keys sends tmux key names (Enter, C-u, C-]...).
func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// text types text literally.
func (s *tmuxSession) text(text string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", "e2e", "-l", text)
}

// e2eDeadline is how long a wait lasts before it is called a hang. It
// detects hangs, it does not measure speed: a loaded machine running the
// race detector must never reach it.
const e2eDeadline = 3 * time.Minute

// waitFor waits, with a deadline, until cond holds; what names it in the
// failure, with the screen as it was.
func (s *tmuxSession) waitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.NewTimer(e2eDeadline)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		scr := s.screen()
		if cond(scr) {
			return scr
		}
		select {
		case <-deadline.C:
			s.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, scr)
		case <-tick.C:
		}
	}
}

func (s *tmuxSession) waitText(texts ...string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q on screen", texts), func(scr string) bool {
		for _, t := range texts {
			if !strings.Contains(scr, t) {
				return false
			}
		}
		return true
	})
}

// buildFakeHarness builds the fake pty harness that records what it gets.
func buildFakeHarness(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ptyfake")
	out, err := exec.Command("go", "build", "-o", path, "github.com/acpmux/acpmux-tui/internal/testharness/ptyfake").CombinedOutput()
	if err != nil {
		t.Fatalf("build ptyfake: %v\n%s", err, out)
	}
	return path
}

func readRecords(t *testing.T, path string) []startrecord.Record {
	t.Helper()
	recs, err := startrecord.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestE2ELaunchFlagsAndPicker starts the real binary in tmux with two
// folders and a fake claude, finds both folders in the summary pane and
// both --add-dir in what the harness received, then adds a folder through
// the picker: a relative one is refused with -32602 on screen, a real one
// is accepted and lands in the chat's TOML.
func TestE2ELaunchFlagsAndPicker(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	a, b, extra := c.dir("folder-a"), c.dir("folder-b"), c.dir("folder-extra")
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n", fake, rec)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary, "--dir", a, "--dir", b, "--harness", "claude"})

	// The chat was created before the screen opened, then opened: its
	// harness runs and has the keyboard.
	s.waitText("ready>", a, b, "folders via argv", "--add-dir", "keys go to claude")
	recs := readRecords(t, rec)
	if len(recs) != 1 {
		t.Fatalf("the harness started %d times: %+v", len(recs), recs)
	}
	argv := strings.Join(recs[0].Argv[1:], " ")
	if !strings.Contains(argv, "--add-dir "+a+" --add-dir "+b) {
		t.Errorf("harness argv %q lacks both folders", recs[0].Argv)
	}
	list := c.ls()
	if len(list) != 1 || !slices.Equal(list[0].AdditionalDirectories, []string{a, b}) {
		t.Fatalf("stored chats: %+v", list)
	}
	id := list[0].ID

	// Keys typed reach the harness.
	s.text("hello")
	s.keys("Enter")
	s.waitText("echo: hello")

	// Back to the sidebar, then the picker.
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	s.keys("a")
	s.waitText(`add folders to`, "tab complete")
	s.keys("C-u")
	s.text("rel/dir")
	s.keys("Enter")
	s.waitText("-32602", `"rel/dir": not an absolute path`)
	if m := loadChat(t, c, id); !slices.Equal(m.AdditionalDirectories, []string{a, b}) {
		t.Fatalf("a refusal changed the chat: %v", m.AdditionalDirectories)
	}
	s.keys("C-u")
	s.text(extra)
	s.keys("Enter")
	s.waitText("selected " + extra)
	s.keys("Down", "Tab", "Enter") // to the list, to [ accept ], press it
	s.waitText("1 folder added")
	if m := loadChat(t, c, id); !slices.Equal(m.AdditionalDirectories, []string{a, b, extra}) {
		t.Fatalf("after accept the chat has %v", m.AdditionalDirectories)
	}
	s.waitText(extra) // and the summary shows it

	// Quit: the harness keeps running in the server; kill-server stops it,
	// and nothing is left behind.
	s.keys("q")
	s.waitFor("the TUI to exit", func(string) bool {
		return exec.Command("tmux", "-S", s.sock, "has-session", "-t", "e2e").Run() != nil
	})
	pid := recs[0].Pid
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("quitting the TUI stopped the harness")
	}
	c.ok("kill-server")
	s.waitFor("the harness to be gone", func(string) bool { return syscall.Kill(pid, 0) != nil })
}

func loadChat(t *testing.T, c *cli, id string) *sessions.Meta {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.home, "chats", id+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := sessions.ParseMeta(data)
	if err != nil {
		t.Fatalf("%s: %v\n%s", id, err, data)
	}
	return m
}

// BenchmarkTUICPU10Chats measures the CPU time the acpmux-tui process (TUI
// and mux together) uses over 10 s while 10 shell chats print: "steady"
// prints about 100 coloured lines a second in each, "flood" as fast as the
// shells can. One chat is on screen; the others run in the background.
func BenchmarkTUICPU10Chats(b *testing.B) {
	for _, tc := range []struct{ name, loop string }{
		{"steady", `i=0; while :; do i=$((i+1)); printf '\033[3%dmline %d of steady output\033[0m\n' $((i%7)) $i; sleep 0.01; done`},
		{"flood", `i=0; while :; do i=$((i+1)); printf '\033[3%dmline %d of flooding output\033[0m\n' $((i%7)) $i; done`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			needTmux(b)
			c := newCLI(b)
			for i := range 10 {
				c.ok("new", "--harness", "shell", "--name", fmt.Sprintf("printer %d", i))
			}
			env := append(c.env(), "PATH=/usr/bin:/bin", "TERM=xterm-256color")
			s := startTmux(b, 160, 50, env, []string{binary})
			s.waitText("chats 10")
			for i := range 10 {
				s.keys("Enter")
				s.waitText("keys go to shell")
				s.text(tc.loop)
				s.keys("Enter")
				s.waitText(" of ")
				if i < 9 {
					s.keys("C-]", "j")
				}
			}
			pid, err := strconv.Atoi(strings.TrimSpace(s.tmux("list-panes", "-t", "e2e", "-F", "#{pane_pid}")))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				before := cpuTicks(b, pid)
				<-time.After(10 * time.Second)                 // the measured window
				used := float64(cpuTicks(b, pid)-before) / 100 // USER_HZ
				b.ReportMetric(used, "cpu-s/10s")
				b.ReportMetric(used*10, "cpu-%")
			}
			s.keys("C-]", "q")
		})
	}
}

// cpuTicks returns the user and system time of a process in clock ticks.
func cpuTicks(tb testing.TB, pid int) int {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The command name may hold spaces; the fields after it do not.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return utime + stime
}

// BenchmarkTUIFirstFrame1000Binary is the wait for the first frame of the
// real binary over a home of 1,000 chats: from starting the process in
// tmux to the list on screen (read with capture-pane every few ms, so the
// figure includes up to one poll of delay).
func BenchmarkTUIFirstFrame1000Binary(b *testing.B) {
	needTmux(b)
	c := newCLI(b)
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		b.Fatal(err)
	}
	dirs := []string{c.dir("a"), c.dir("b")}
	for range 1000 {
		if _, err := store.Create(sessions.NewChat{Harness: "shell", AdditionalDirectories: dirs}); err != nil {
			b.Fatal(err)
		}
	}
	env := append(c.env(), "TERM=xterm-256color")
	for b.Loop() {
		s := startTmux(b, 160, 50, env, []string{binary})
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(s.screen(), "chats 1000") {
			if time.Now().After(deadline) {
				b.Fatalf("no list on screen:\n%s", s.screen())
			}
			<-time.After(2 * time.Millisecond)
		}
		b.StopTimer()
		s.keys("q")
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
		b.StartTimer()
	}
}
