package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
			if !strings.Contains(out, "landlock") {
				t.Fatalf("show does not give the reason:\n%s", out)
			}
		})
	}
}
