package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
)

// sandboxWorld is a CLI world whose fake ACP agent keeps its state where a
// sandboxed chat may write it (sandbox_state), with a project in a git
// repository, an added folder, an added file, and a folder and a file of
// the user's outside all of them.
type sandboxWorld struct {
	*cli
	proj, extra, notes, outside, secret string
}

func newSandboxWorld(t *testing.T) *sandboxWorld {
	t.Helper()
	requireLandlock(t)
	c := newCLI(t)
	w := &sandboxWorld{cli: c, proj: c.dir("proj"), extra: c.dir("extra"), outside: c.dir("outside")}
	state := c.dir("agent-state")
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_ADVERTISE = \"1\" }\nsandbox_state = [%q]\n",
		buildACPFake(t), state, state+"/")
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", w.proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	w.notes = filepath.Join(c.root, "notes.txt")
	w.secret = filepath.Join(w.outside, "secret.txt")
	for _, f := range []string{w.notes, w.secret} {
		if err := os.WriteFile(f, []byte("the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside the project to the folder outside.
	if err := os.Symlink(w.outside, filepath.Join(w.proj, "leaves")); err != nil {
		t.Fatal(err)
	}
	return w
}

// requireLandlock skips where the kernel has no Landlock the bound can use.
func requireLandlock(t *testing.T) {
	t.Helper()
	abi, err := sandbox.ABI()
	if err != nil || abi < sandbox.MinABI {
		t.Skipf("a sandboxed chat needs Landlock ABI %d or later: %d, %v", sandbox.MinABI, abi, err)
	}
}

// disk has the chat's agent make one system call on the disk and returns
// its outcome: "ok" or the errno's name.
func (w *sandboxWorld) disk(id, op string) string {
	w.t.Helper()
	out := w.ok("prompt", id, "disk "+op)
	got, ok := strings.CutPrefix(strings.TrimSpace(out), "disk: ")
	if !ok {
		w.t.Fatalf("prompt disk %s: %q", op, out)
	}
	return got
}

// TestE2ESandboxedChatWritesOnlyInItsBound: a sandboxed chat's agent, a
// real process under Landlock, writes in its folder, its added folder, its
// added file and its TMPDIR, reads /etc, and gets EACCES writing anywhere
// else, reading the agent home (another chat's file), and through a link
// in its folder that leads outside; .git/hooks and .git/config stay
// read-only and .git cannot be moved aside. The same agent unsandboxed
// writes anywhere. show --json says what the bound is.
func TestE2ESandboxedChatWritesOnlyInItsBound(t *testing.T) {
	w := newSandboxWorld(t)
	other := w.chat("new", "--harness", "fake", "--name", "other", "--json")
	otherFile := filepath.Join(w.home, "chats", other.ID+".toml")
	c := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--dir", w.extra, "--file", w.notes, "--sandbox", "--json")
	if c.Sandbox == nil || c.Sandbox.Summary != "landlock · writes: folder, 1 folder, 1 file, tmp, "+filepath.Join(w.root, "agent-state")+" · .git/hooks read-only" {
		t.Fatalf("new --sandbox --json: sandbox %+v", c.Sandbox)
	}
	scratch := filepath.Join(w.home, "tmp", c.ID)
	for _, tc := range []struct{ op, want string }{
		{"write " + filepath.Join(w.proj, "made.txt"), "ok"},
		{"mkdir " + filepath.Join(w.proj, "sub"), "ok"},
		{"write " + filepath.Join(w.extra, "made.txt"), "ok"},
		{"write " + w.notes, "ok"},
		{"write " + filepath.Join(scratch, "t"), "ok"},
		{"read /etc/passwd", "ok"},
		{"read " + w.secret, "ok"},
		{"write " + w.secret, "EACCES"},
		{"write " + filepath.Join(w.outside, "new.txt"), "EACCES"},
		{"write " + filepath.Join(w.root, "beside-notes.txt"), "EACCES"},
		{"write " + filepath.Join(w.proj, "leaves", "through-link.txt"), "EACCES"},
		{"read " + otherFile, "EACCES"},
		{"list " + w.home, "EACCES"},
		{"write " + filepath.Join(w.home, "chats", "planted.toml"), "EACCES"},
		{"write " + filepath.Join(w.proj, ".git", "hooks", "pre-commit"), "EROFS"},
		{"write " + filepath.Join(w.proj, ".git", "config"), "EROFS"},
		{"mv " + filepath.Join(w.proj, ".git") + " " + filepath.Join(w.proj, "git-aside"), "EBUSY"},
	} {
		if got := w.disk(c.ID, tc.op); got != tc.want {
			t.Errorf("sandboxed: disk %s = %s, want %s", tc.op, got, tc.want)
		}
	}
	for _, p := range []string{filepath.Join(w.outside, "new.txt"), filepath.Join(w.home, "chats", "planted.toml"), filepath.Join(w.proj, ".git", "hooks", "pre-commit")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written from inside the sandbox", p)
		}
	}
	if b, _ := os.ReadFile(w.notes); !strings.Contains(string(b), "written by the agent") {
		t.Errorf("the added file was not written in place: %q", b)
	}

	free := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--sandbox=false", "--json")
	if free.Sandbox != nil {
		t.Fatalf("new --sandbox=false: sandbox %+v", free.Sandbox)
	}
	if got := w.disk(free.ID, "write "+filepath.Join(w.outside, "new.txt")); got != "ok" {
		t.Errorf("unsandboxed: disk write outside = %s, want ok", got)
	}
}

// TestE2ESandboxFollowsTheFolders: a folder added to a running sandboxed
// chat is writable once the change is applied (the agent restarts with it,
// its bound proven again), and one removed is not.
func TestE2ESandboxFollowsTheFolders(t *testing.T) {
	w := newSandboxWorld(t)
	c := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--dir", w.extra, "--sandbox", "--json")
	if got := w.disk(c.ID, "write "+filepath.Join(w.outside, "a.txt")); got != "EACCES" {
		t.Fatalf("before add-dir: write outside = %s", got)
	}
	w.ok("add-dir", c.ID, w.outside)
	w.ok("rm-dir", c.ID, w.extra)
	srvWaitFor(t, "the folder change applied (no pending folders)", func() bool {
		var shown proto.ChatJSON
		err := json.Unmarshal([]byte(w.ok("show", c.ID, "--json")), &shown)
		return err == nil && shown.PendingDirectories == nil && slices.Equal(shown.AdditionalDirectories, []string{w.outside})
	})
	if got := w.disk(c.ID, "write "+filepath.Join(w.outside, "a.txt")); got != "ok" {
		t.Errorf("after add-dir: write in the added folder = %s, want ok", got)
	}
	if got := w.disk(c.ID, "write "+filepath.Join(w.extra, "a.txt")); got != "EACCES" {
		t.Errorf("after rm-dir: write in the removed folder = %s, want EACCES", got)
	}
}

// TestE2ESandboxWithoutLandlockRefusesTheStart: where the kernel offers no
// Landlock (the server run with the ABI capped at 0), a sandboxed chat's
// start is refused with the reason, shown by show, and its agent never
// runs; an older ABI than the bound needs is refused the same way.
func TestE2ESandboxWithoutLandlockRefusesTheStart(t *testing.T) {
	for _, abi := range []string{"0", "3"} {
		t.Run("abi "+abi, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--sandbox", "--json")
			r := w.runIn(w.root, []string{sandbox.EnvMaxABI + "=" + abi}, "prompt", c.ID, "disk write "+filepath.Join(w.proj, "ran.txt"))
			if r.code == 0 || !strings.Contains(r.stderr, "sandbox") || !strings.Contains(r.stderr, "landlock") {
				t.Fatalf("prompt on a sandboxed chat without Landlock: exit %d, %q %q", r.code, r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(w.proj, "ran.txt")); err == nil {
				t.Fatal("the agent ran unsandboxed")
			}
			out := w.ok("show", c.ID)
			failed := ""
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "failed ") {
					failed = l
				}
			}
			if !strings.Contains(failed, "sandbox") || !strings.Contains(failed, "landlock") {
				t.Fatalf("show's failed row does not give the reason (%q):\n%s", failed, out)
			}
		})
	}
}

// TestE2ESandboxAsAnotherUser: for a user who is not root the wrapper
// gets its mount namespace in a user namespace in which it is itself, and
// the agent runs as that user; its bound holds as root's does,
// .git/hooks included.
func TestE2ESandboxAsAnotherUser(t *testing.T) {
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("switching to another user needs root")
	}
	const nobody = 65534
	// The wrapper of a user who is not root needs a user namespace of its
	// own: a kernel or container that refuses one refuses such a start
	// (with the reason); there is nothing to test here then.
	probe := exec.Command("unshare", "--user", "true") // made by that user, as its wrapper's is
	probe.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("this kernel or container gives another user no user namespace (unshare --user: %v %s)", err, out)
	}
	root, err := os.MkdirTemp("", "acpmux-sandbox-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "bin")
	for _, d := range []string{bin, filepath.Join(root, "agent-state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, exe := range []string{binary, buildACPFake(t)} {
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, filepath.Base(exe)), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home, proj, outside := filepath.Join(root, "home"), filepath.Join(root, "proj"), filepath.Join(root, "outside")
	for _, d := range []string{home, proj, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	config := filepath.Join(root, "config.toml")
	state := filepath.Join(home, "agent-state")
	text := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_ADVERTISE = \"1\" }\nsandbox_state = [%q]\n",
		filepath.Join(bin, "acpfake"), state, state+"/")
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "acpmux-tui"), args...)
		cmd.Env = []string{"ACPMUX_HOME=" + filepath.Join(home, "agent"), "ACPMUX_CONFIG=" + config, "HOME=" + home, "PATH=/usr/bin:/bin"}
		cmd.Dir = root
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			err = fmt.Errorf("%w: %s", err, stderr.String())
		}
		return string(out), err
	}
	t.Cleanup(func() { run("kill-server") })
	out, err := run("new", "--harness", "fake", "--cwd", proj, "--sandbox", "--json")
	if err != nil {
		t.Fatalf("new as another user: %v\n%s", err, out)
	}
	var c proto.ChatJSON
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ op, want string }{
		{"write " + filepath.Join(proj, "made.txt"), "ok"},
		{"write " + filepath.Join(outside, "new.txt"), "EACCES"},
		{"write " + filepath.Join(proj, ".git", "hooks", "pre-commit"), "EROFS"},
		{"read /proc/self/status", "ok"},
	} {
		out, err := run("prompt", c.ID, "disk "+tc.op)
		if got := strings.TrimPrefix(strings.TrimSpace(out), "disk: "); err != nil || got != tc.want {
			t.Errorf("as another user: disk %s = %q (%v), want %s", tc.op, out, err, tc.want)
		}
	}
	st, err := os.Stat(filepath.Join(proj, "made.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if owner := st.Sys().(*syscall.Stat_t).Uid; owner != nobody {
		t.Errorf("the agent wrote as uid %d, want the user's %d", owner, nobody)
	}
}

// TestE2ESandboxedChatsHooksReachTheServer: Claude Code's hooks, run from
// inside a sandboxed chat (which may not read the agent home), still
// report to the server, also when the agent home's path is so long that
// the socket is reached through its folder's descriptor.
func TestE2ESandboxedChatsHooksReachTheServer(t *testing.T) {
	requireLandlock(t)
	needTmux(t)
	c := newCLI(t)
	// The socket's path past what a sockaddr holds (107 bytes).
	c.home = filepath.Join(c.root, strings.Repeat("h", 50), strings.Repeat("o", 50), "agent")
	fake := buildFakeHarness(t)
	recs := c.dir("recs")
	// Its state: where it records its starts, and Claude Code's folder,
	// where it keeps its session as Claude Code does.
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\nsandbox_state = [%q, \"~/.claude/\"]\n",
		fake, filepath.Join(recs, "fake-record.jsonl"), recs+"/")
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/sh", filepath.Join(c.root, "bin", "sh")); err != nil {
		t.Fatal(err)
	}
	env := append(c.env(), "TERM=xterm-256color")
	s := startTmux(t, 160, 50, env, []string{binary, "--harness", "claude", "--sandbox", "--name", "hooked", "--cwd", c.dir("proj")})
	s.waitText("ready>", "keys go to claude")
	if got := only(t, c); got.Sandbox == nil {
		t.Fatalf("the chat is not sandboxed: %+v", got)
	}
	s.text("hook Notification permission_prompt")
	s.keys("Enter")
	s.waitText("hooked: Notification")
	waitStatus(t, c, "asking", "hooks")
	s.text("hook Stop")
	s.keys("Enter")
	waitStatus(t, c, "waiting", "hooks")
}

// TestE2ESandboxedAgentCannotDriveTheServer: what a sandboxed agent finds
// at the server's socket serves its hooks only: a call that would make,
// start or change a chat (which would run outside its bound) is refused
// (-32601), as is one through the hook-only socket's own name, and it
// may not signal the server. The same agent unsandboxed is served.
func TestE2ESandboxedAgentCannotDriveTheServer(t *testing.T) {
	w := newSandboxWorld(t)
	boxed := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--sandbox", "--json")
	free := w.chat("new", "--harness", "fake", "--cwd", w.extra, "--json")
	socket, hooks := proto.SocketPath(w.home), proto.HookSocketPath(w.home)
	for _, method := range []string{proto.MethodNew, proto.MethodList, proto.MethodKill, "initialize"} {
		if got := w.disk(boxed.ID, "call "+socket+" "+method); got != "-32601" {
			t.Errorf("sandboxed: %s on the socket = %s, want -32601", method, got)
		}
		if got := w.disk(boxed.ID, "call "+hooks+" "+method); got != "-32601" {
			t.Errorf("sandboxed: %s on the hook socket = %s, want -32601", method, got)
		}
	}
	if got := w.disk(free.ID, "call "+socket+" "+proto.MethodList); got != "ok" {
		t.Errorf("unsandboxed: list on the socket = %s, want ok", got)
	}
	// Run as root, it has no power that goes around a bound on files
	// (loading a module, mounts, another process's memory...).
	if os.Geteuid() == 0 {
		for _, id := range []string{boxed.ID, free.ID} {
			bnd, err := strconv.ParseUint(w.disk(id, "caps CapBnd"), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			const sysModule, sysAdmin = 1 << 16, 1 << 21
			if hasPowers := bnd&(sysModule|sysAdmin) != 0; hasPowers != (id == free.ID) {
				t.Errorf("chat %s (sandboxed %v): bounding set %x", id, id == boxed.ID, bnd)
			}
		}
	}
	// Nor may it signal the server (Landlock's scopes, ABI 6 and later).
	if abi, _ := sandbox.ABI(); abi >= 6 {
		server := strconv.Itoa(proto.LockHolder(w.home))
		if got := w.disk(boxed.ID, "signal "+server); got != "EPERM" {
			t.Errorf("sandboxed: signal the server = %s, want EPERM", got)
		}
		if got := w.disk(free.ID, "signal "+server); got != "ok" {
			t.Errorf("unsandboxed: signal the server = %s, want ok", got)
		}
	}
	if n := len(w.ls()); n != 2 {
		t.Errorf("%d chats, want the 2 made", n)
	}
}
