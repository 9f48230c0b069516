package mux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fakeHarness and fakeACP are the fake pty harness and the fake ACP agent,
// built once for the package's tests.
var fakeHarness, fakeACP string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.Command {
		os.Exit(sandbox.Main(os.Args[2:])) // a sandboxed chat's wrapper (Options.Wrapper)
	}
	dir, err := os.MkdirTemp("", "acpmux-mux-test")
	if err != nil {
		panic(err)
	}
	fakeHarness = filepath.Join(dir, "ptyfake")
	fakeACP = filepath.Join(dir, "acpfake")
	for bin, pkg := range map[string]string{fakeHarness: "ptyfake", fakeACP: "acpfake"} {
		out, err := exec.Command("go", "build", "-o", bin, "../internal/testharness/"+pkg).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// record is what the fake harness wrote about one start.
type record = startrecord.Record

// rig is one test's agent home, config and mux, with the fake harness in
// place of claude, gemini and shell.
type rig struct {
	t       *testing.T
	store   *sessions.Store
	cfg     *config.Config
	table   *harness.Table
	recFile string
	mux     *Mux
}

func newRig(t *testing.T, mode string, tweak func(*config.Config, *Options)) *rig {
	t.Helper()
	home := t.TempDir()
	store, err := sessions.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, store: store, recFile: filepath.Join(t.TempDir(), "starts.jsonl")}
	env := map[string]string{"ACPMUX_FAKE_RECORD": r.recFile, "ACPMUX_FAKE_MODE": mode,
		"CLAUDE_CONFIG_DIR": filepath.Join(t.TempDir(), "claude"), "GEMINI_CLI_HOME": t.TempDir()}
	r.cfg = config.Defaults()
	r.cfg.Harness = map[string]config.HarnessConfig{
		"claude": {Command: fakeHarness, Env: env},
		"gemini": {Command: fakeHarness, Env: env},
		"shell":  {Command: fakeHarness, Env: env},
	}
	opt := Options{Store: store, Config: r.cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond}
	if tweak != nil {
		tweak(r.cfg, &opt)
	}
	if r.table, err = harness.NewTable(r.cfg); err != nil {
		t.Fatal(err)
	}
	opt.Table = r.table
	r.mux = New(opt)
	t.Cleanup(r.mux.Close)
	return r
}

// reopen closes the mux and makes a new one on the same home, as when
// acpmux-tui itself restarts.
func (r *rig) reopen() {
	r.mux.Close()
	r.mux = New(r.mux.opt)
	r.t.Cleanup(r.mux.Close)
}

func (r *rig) records() []record {
	recs, err := startrecord.Read(r.recFile)
	if err != nil {
		r.t.Fatal(err)
	}
	return recs
}

// waitRecords waits until the fake has recorded n starts.
func (r *rig) waitRecords(n int) []record {
	r.t.Helper()
	var recs []record
	waitFor(r.t, fmt.Sprintf("%d harness starts", n), func() bool {
		recs = r.records()
		return len(recs) >= n
	})
	return recs
}

// waitScreen waits until a line of the chat's screen holds text.
func (r *rig) waitScreen(id, text string) {
	r.t.Helper()
	waitFor(r.t, fmt.Sprintf("%q on the screen", text), func() bool {
		return slices.ContainsFunc(r.mux.PlainLines(id), func(l string) bool { return strings.Contains(l, text) })
	})
}

func (r *rig) folders(n int) []string {
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = filepath.Join(r.t.TempDir(), fmt.Sprintf("folder %d ü", i))
		if err := os.Mkdir(dirs[i], 0o755); err != nil {
			r.t.Fatal(err)
		}
		dirs[i], _ = filepath.EvalSymlinks(dirs[i])
	}
	return dirs
}

func (r *rig) create(harnessName string, dirs []string) *sessions.Meta {
	m, err := r.store.Create(sessions.NewChat{Harness: harnessName, AdditionalDirectories: dirs})
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func (r *rig) loadMeta(id string) *sessions.Meta {
	r.t.Helper()
	m, err := r.store.Load(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// hangDeadline is how long a test waits for something before it calls it a
// hang. It detects hangs, it does not measure speed: a loaded 2-core machine
// running the race detector must never reach it.
const hangDeadline = 3 * time.Minute

// waitFor waits for cond (see wait.Until: a tick that backs off, so a long
// wait does not steal the CPU from the work it waits for).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, cond)
}

func wantFolderArgs(flag string, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		out = append(out, flag, d)
	}
	return out
}

func TestClaudeGetsFoldersAndSessionOnEveryStart(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(3)
	m := r.create("claude", dirs)

	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(1)[0]
	stored, err := r.store.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	sid := stored.AgentSessionID
	if sid == "" {
		t.Fatal("first start did not store a session id")
	}
	if stored.FoldersVia != harness.ViaArgv {
		t.Fatalf("first start recorded foldersVia %q, want argv", stored.FoldersVia)
	}
	want := append([]string{fakeHarness, "--session-id", sid}, wantFolderArgs("--add-dir", dirs)...)
	if !slices.Equal(first.Argv, want) {
		t.Fatalf("first start argv\n got %q\nwant %q", first.Argv, want)
	}
	if first.Cwd != m.Cwd || !first.StdinIsTTY || first.Pgid != first.Pid || first.Cols != 100 || first.Rows != 30 {
		t.Fatalf("first start: cwd %q (want %q), tty %v, pgid %d pid %d, size %dx%d", first.Cwd, m.Cwd, first.StdinIsTTY, first.Pgid, first.Pid, first.Cols, first.Rows)
	}
	if v, _ := first.Getenv("ACPMUX_CHAT_ID"); v != m.ID {
		t.Fatalf("ACPMUX_CHAT_ID = %q", v)
	}

	resume := append([]string{fakeHarness, "--resume", sid}, wantFolderArgs("--add-dir", dirs)...)
	// A crash once the harness has stored its session (the fake, like
	// Claude Code, does so before its prompt): the mux respawns it with the
	// folders, resuming the session.
	r.waitScreen(m.ID, "ready>")
	if first.Pid <= 0 {
		t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", first.Pid)
	}
	if err := syscall.Kill(first.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	respawned := r.waitRecords(2)[1]
	if !slices.Equal(respawned.Argv, resume) {
		t.Fatalf("respawn argv\n got %q\nwant %q", respawned.Argv, resume)
	}
	waitFor(t, "respawned harness running", func() bool { return r.mux.State(m.ID).Pid == respawned.Pid })
	if st := r.mux.State(m.ID); st.Restarts != 1 {
		t.Fatalf("restarts = %d, want 1", st.Restarts)
	}

	// A restart on request.
	if err := r.mux.Restart(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	restarted := r.waitRecords(3)[2]
	if !slices.Equal(restarted.Argv, resume) {
		t.Fatalf("restart argv\n got %q\nwant %q", restarted.Argv, resume)
	}
	if processAlive(respawned.Pid) {
		t.Fatalf("restart left the old harness %d running", respawned.Pid)
	}

	// acpmux-tui itself restarts: a new mux on the same home.
	r.reopen()
	if processAlive(restarted.Pid) {
		t.Fatalf("closing the mux left harness %d running", restarted.Pid)
	}
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	again := r.waitRecords(4)[3]
	if !slices.Equal(again.Argv, resume) {
		t.Fatalf("start in a new mux argv\n got %q\nwant %q", again.Argv, resume)
	}
}

// A Claude Code chat whose first start dies before Claude Code stores the
// session is started again under the same id, never --resume'd into "No
// conversation found" until it is marked failed.
func TestClaudeFirstStartThatDiesIsStartedAgain(t *testing.T) {
	r := newRig(t, "die-first", nil)
	dirs := r.folders(1)
	m := r.create("claude", dirs)
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	recs := r.waitRecords(2)
	stored, err := r.store.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	sid := stored.AgentSessionID
	fresh := append([]string{fakeHarness, "--session-id", sid}, wantFolderArgs("--add-dir", dirs)...)
	for i, rec := range recs[:2] {
		if !slices.Equal(rec.Argv, fresh) {
			t.Fatalf("start %d argv\n got %q\nwant %q", i+1, rec.Argv, fresh)
		}
	}
	waitFor(t, "the second start running", func() bool { return r.mux.State(m.ID).Pid == recs[1].Pid })
	r.waitScreen(m.ID, "ready>")

	// The second start stored the session: from now on it is resumed.
	if err := r.mux.Restart(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	third := r.waitRecords(3)[2]
	resume := append([]string{fakeHarness, "--resume", sid}, wantFolderArgs("--add-dir", dirs)...)
	if !slices.Equal(third.Argv, resume) {
		t.Fatalf("restart argv\n got %q\nwant %q", third.Argv, resume)
	}
}

// A fork of a Claude Code chat branches the parent's conversation at its
// first start (--resume PARENT --fork-session under the fork's own id), and
// resumes its own session after; the parent's session is untouched. A side
// chat starts a fresh conversation.
func TestClaudeForkBranchesTheParentsConversation(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(2)
	parent := r.create("claude", dirs)
	if err := r.mux.Start(parent.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(1)
	r.waitScreen(parent.ID, "ready>") // the fake has stored its session
	parentSid := r.loadMeta(parent.ID).AgentSessionID

	fork, err := r.store.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(fork.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(2)[1]
	forkSid := r.loadMeta(fork.ID).AgentSessionID
	if forkSid == "" || forkSid == parentSid {
		t.Fatalf("the fork's session id %q (parent's %q)", forkSid, parentSid)
	}
	want := append([]string{fakeHarness, "--resume", parentSid, "--fork-session", "--session-id", forkSid}, wantFolderArgs("--add-dir", dirs)...)
	if !slices.Equal(first.Argv, want) {
		t.Fatalf("the fork's first start\n got %q\nwant %q", first.Argv, want)
	}
	r.waitScreen(fork.ID, "ready>")
	if err := r.mux.Restart(fork.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	again := r.waitRecords(3)[2]
	want = append([]string{fakeHarness, "--resume", forkSid}, wantFolderArgs("--add-dir", dirs)...)
	if !slices.Equal(again.Argv, want) {
		t.Fatalf("the fork's restart\n got %q\nwant %q", again.Argv, want)
	}
	if got := r.loadMeta(parent.ID).AgentSessionID; got != parentSid {
		t.Fatalf("the parent's session became %q", got)
	}

	side, err := r.store.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginSide})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(side.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	if rec := r.waitRecords(4)[3]; slices.Contains(rec.Argv, "--resume") || slices.Contains(rec.Argv, "--fork-session") {
		t.Fatalf("a side chat carried the conversation: %q", rec.Argv)
	}
}

func TestFoldersReachEachKind(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(2)

	gem := r.create("gemini", dirs)
	if err := r.mux.Start(gem.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(1)[0]
	gemSid := r.loadMeta(gem.ID).AgentSessionID
	if want := append([]string{fakeHarness, "--session-id", gemSid}, wantFolderArgs("--include-directories", dirs)...); gemSid == "" || !slices.Equal(rec.Argv, want) {
		t.Fatalf("gemini argv %q, want %q", rec.Argv, want)
	}

	sh := r.create("shell", dirs)
	if err := r.mux.Start(sh.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec = r.waitRecords(2)[1]
	if len(rec.Argv) != 1 {
		t.Fatalf("shell argv %q: folders must not be on the command line", rec.Argv)
	}
	if v, _ := rec.Getenv(harness.EnvAdditionalDirectories); v != strings.Join(dirs, ":") {
		t.Fatalf("%s = %q, want %q", harness.EnvAdditionalDirectories, v, strings.Join(dirs, ":"))
	}

	// No folders: the variable is absent even if acpmux-tui inherited one.
	r.mux.opt.Environ = func() []string { return append(os.Environ(), harness.EnvAdditionalDirectories+"=/leaked") }
	bare := r.create("shell", nil)
	if err := r.mux.Start(bare.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec = r.waitRecords(3)[2]
	if v, ok := rec.Getenv(harness.EnvAdditionalDirectories); ok {
		t.Fatalf("chat without folders got %s=%q", harness.EnvAdditionalDirectories, v)
	}
}

func TestVanishedFolderRefusesStart(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(2)
	m := r.create("claude", dirs)
	if err := os.Remove(dirs[1]); err != nil {
		t.Fatal(err)
	}
	err := r.mux.Start(m.ID, 80, 24)
	var gone *proto.FoldersGoneError
	if !errors.As(err, &gone) {
		t.Fatalf("start with a vanished folder: %v, want FoldersGoneError", err)
	}
	if !strings.Contains(err.Error(), dirs[1]) || strings.Contains(err.Error(), dirs[0]+" ") {
		t.Fatalf("error %q must name the missing folder only", err)
	}
	st := r.mux.State(m.ID)
	if st.Status != proto.StatusFailed || !strings.Contains(st.Reason, dirs[1]) {
		t.Fatalf("state %+v: want failed naming %s", st, dirs[1])
	}
	if len(r.records()) != 0 {
		t.Fatal("the harness was started despite a vanished folder")
	}
	stored, _ := r.store.Load(m.ID)
	if !slices.Equal(stored.AdditionalDirectories, dirs) {
		t.Fatalf("stored folders changed to %q: nothing may be dropped silently", stored.AdditionalDirectories)
	}
	// The one-key fix, then the start goes ahead without it.
	if _, _, err := r.store.RemoveMissingFolders(m.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(1)[0]
	if !slices.Contains(rec.Argv, dirs[0]) || slices.Contains(rec.Argv, dirs[1]) {
		t.Fatalf("argv %q after removing the missing folder", rec.Argv)
	}
}

func TestPoolIsTakenOnlyByChatsWithoutFolders(t *testing.T) {
	r := newRig(t, "echo", func(c *config.Config, _ *Options) {
		c.Pool.Size = config.PoolSize{PerHarness: map[string]int{"shell": 1}}
	})
	if err := r.mux.Fill(); err != nil {
		t.Fatal(err)
	}
	pooled := r.waitRecords(1)[0]
	if r.mux.PoolSize("shell") != 1 {
		t.Fatalf("pool size %d, want 1", r.mux.PoolSize("shell"))
	}

	// A chat with folders never takes the pooled harness: a new spawn.
	withDirs, err := r.mux.CreateAndStart(sessions.NewChat{Harness: "shell", AdditionalDirectories: r.folders(1)}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(2)[1]
	if rec.Pid == pooled.Pid || rec.Cwd != withDirs.Cwd {
		t.Fatalf("chat with folders: pid %d cwd %q; pooled pid %d", rec.Pid, rec.Cwd, pooled.Pid)
	}
	if _, ok := rec.Getenv(harness.EnvAdditionalDirectories); !ok {
		t.Fatal("chat with folders started without them")
	}

	// A chat with nothing takes it: no new spawn, and it runs in its home.
	bare, err := r.mux.CreateAndStart(sessions.NewChat{Harness: "shell"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if st := r.mux.State(bare.ID); st.Pid != pooled.Pid {
		t.Fatalf("bare chat runs pid %d, want the pooled %d", st.Pid, pooled.Pid)
	}
	if bare.Cwd != pooled.Cwd || bare.Cwd != r.store.HomeDir(bare.ID) {
		t.Fatalf("bare chat cwd %q; pooled ran in %q", bare.Cwd, pooled.Cwd)
	}
	// The pool refills in the background; the bare chat spawned nothing.
	recs := r.waitRecords(3)
	if recs[2].Pid == pooled.Pid || recs[2].Cwd == bare.Cwd {
		t.Fatalf("third start %+v should be the pool refilling in a fresh folder", recs[2])
	}
	waitFor(t, "the pool to refill", func() bool { return r.mux.PoolSize("shell") == 1 })
	refillHome := recs[2].Cwd

	r.mux.Close()
	for _, rec := range recs {
		if processAlive(rec.Pid) {
			t.Fatalf("harness %d left running after close", rec.Pid)
		}
	}
	if _, err := os.Stat(refillHome); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the unused pooled home %s was not removed: %v", refillHome, err)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	r := newRig(t, "child", nil)
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(1)[0]
	if rec.ChildPid == 0 || !processAlive(rec.ChildPid) {
		t.Fatal("fake did not start its child")
	}
	r.mux.Close()
	if processAlive(rec.Pid) || processAlive(rec.ChildPid) {
		t.Fatal("a process is left running after close")
	}
	// The orphaned child is killed too; init reaps it, after which the group
	// is empty.
	waitFor(t, "the process group to empty", func() bool {
		return errors.Is(syscall.Kill(-rec.Pgid, 0), syscall.ESRCH)
	})
	if st := r.mux.State(m.ID); st.Status != proto.StatusStopped {
		t.Fatalf("status after close %v, want stopped", st.Status)
	}
}

func TestStopKillsAHarnessThatIgnoresSIGTERM(t *testing.T) {
	r := newRig(t, "stubborn", func(_ *config.Config, o *Options) { o.Grace = 100 * time.Millisecond })
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(1)[0]
	waitFor(t, "the prompt", func() bool { return strings.Contains(strings.Join(r.mux.PlainLines(m.ID), "\n"), "ready>") })
	r.mux.Stop(m.ID)
	if processAlive(rec.Pid) {
		t.Fatal("a harness ignoring SIGTERM survived stop")
	}
}

func TestInputEchoAndWaiting(t *testing.T) {
	r := newRig(t, "bell", nil)
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "waiting after the bell", func() bool {
		st := r.mux.State(m.ID)
		return st.Status == proto.StatusWaiting && st.Unread
	})
	if err := r.mux.Write(m.ID, []byte("hello there\r")); err != nil {
		t.Fatal(err)
	}
	if r.mux.State(m.ID).Unread {
		t.Fatal("input did not clear the unread mark")
	}
	waitFor(t, "the echo on screen", func() bool {
		return slices.Contains(r.mux.PlainLines(m.ID), "echo: hello there")
	})
}

func TestCrashLoopIsMarkedFailed(t *testing.T) {
	r := newRig(t, "exit:7", nil)
	m := r.create("shell", r.folders(1))
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat to fail", func() bool { return r.mux.State(m.ID).Status == proto.StatusFailed })
	st := r.mux.State(m.ID)
	if !strings.Contains(st.Reason, "exit status 7") || !strings.Contains(st.Reason, "crashed 6 times") {
		t.Fatalf("reason %q", st.Reason)
	}
	recs := r.records()
	if len(recs) != 6 {
		t.Fatalf("%d starts, want the first and 5 respawns", len(recs))
	}
	for i, rec := range recs {
		if _, ok := rec.Getenv(harness.EnvAdditionalDirectories); !ok {
			t.Fatalf("start %d had no folders", i)
		}
	}
}

func processAlive(pid int) bool {
	// A zombie still answers kill 0; it is dead, waiting to be reaped.
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func countFDs(t *testing.T) int {
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(des)
}

func TestQuickExitsLeakNothing(t *testing.T) {
	r := newRig(t, "exit:0", nil)
	m := r.create("shell", nil)
	const n = 1000
	// One start to warm up lazily created state (the screen, timers).
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.mux.Wait(m.ID)
	waitFor(t, "exited", func() bool { return r.mux.State(m.ID).Status == proto.StatusExited })
	fds, goroutines := countFDs(t), runtime.NumGoroutine()
	for i := range n {
		if err := r.mux.Start(m.ID, 80, 24); err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		r.mux.Wait(m.ID)
	}
	waitFor(t, "goroutines to settle", func() bool { return runtime.NumGoroutine() <= goroutines })
	if got := countFDs(t); got > fds {
		t.Fatalf("file descriptors %d after %d quick exits, %d before", got, n, fds)
	}
	if st := r.mux.State(m.ID); st.Status != proto.StatusExited || st.ExitCode != 0 {
		t.Fatalf("state %+v", st)
	}
}
