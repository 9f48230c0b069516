//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/hookearly"
	"github.com/acpmux/acpmux-tui/sandbox"
	"golang.org/x/sys/unix"
)

// These tests hold the hook to what it remembers of a hung server
// (internal/hookearly/hung.go): the hook that gives up on the server
// leaves a marker in its TMPDIR; the hooks that follow within
// hookearly.HungWindow still report, but give the server
// hookearly.HungBudget only, and leave the marker as it is; a server that
// answers removes it; and the marker counts only as a regular file of the
// user's own.

// hungEnv is hookEnv with TMPDIR, where the hook keeps its marker.
func hungEnv(home, tmpdir string) []string {
	return append(hookEnv(home), "TMPDIR="+tmpdir)
}

// hookMarker returns the marker the hook keeps in tmpdir for home.
func hookMarker(home, tmpdir string) string {
	return hookearly.MarkerPath(tmpdir, home, os.Getuid())
}

// ownMarker fails unless path is a marker the hook made: a regular file of
// the user's, readable by no one else. It returns what lstat says of it.
func ownMarker(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("no marker after a hook gave up on the server: %v", err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || int(st.Uid) != os.Getuid() {
		t.Fatalf("the marker %s is %v, owner %d; want a regular file, 0600, of uid %d", path, fi.Mode(), st.Uid, os.Getuid())
	}
	return fi
}

// sameMarker fails unless path is still the file it was (the same inode, the
// same modification time).
func sameMarker(t *testing.T, path string, was os.FileInfo, what string) {
	t.Helper()
	now, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s: the marker is gone: %v", what, err)
	}
	if !os.SameFile(was, now) || !now.ModTime().Equal(was.ModTime()) {
		t.Fatalf("%s: the marker was made again (%v, now %v)", what, was.ModTime(), now.ModTime())
	}
}

// ageMarker makes the file at path (not a link it holds) older than the window.
func ageMarker(t *testing.T, path string) {
	t.Helper()
	old := unix.NsecToTimespec(time.Now().Add(-2 * hookearly.HungWindow).UnixNano())
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{old, old}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
}

// TestHookRemembersAHungServer: against a server that accepts and never
// answers, and one that never accepts, the first hook waits its budget,
// gives up and leaves the marker; the hooks that follow still report (the
// server that accepts gets every line) but give up within HungBudget and
// leave the marker as it is: each ends while a hook started just before
// it, which meets no marker, still waits. Once the marker is older than the
// window, the next hook waits in full again and makes it anew.
func TestHookRemembersAHungServer(t *testing.T) {
	for _, deaf := range []struct {
		name string
		make func(t *testing.T, home string) *hookListener
	}{
		{"accepts, never answers", func(t *testing.T, home string) *hookListener { return newHookListener(t, home, answerNever) }},
		{"never accepts", func(t *testing.T, home string) *hookListener { newFullListener(t, home); return nil }},
	} {
		t.Run(deaf.name, func(t *testing.T) {
			home, tmp := hookHome(t), t.TempDir()
			l := deaf.make(t, home)
			marker := hookMarker(home, tmp)
			hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
			first := ownMarker(t, marker)

			// Each hook within the window races one that meets no marker,
			// started first: the marked one ends first. On a loaded
			// machine one process may be held back long enough to lose a
			// race now and then, so the test asks it of most races, not
			// of each: a hook that ignored the marker would lose them all.
			const followers = 5
			lost := 0
			for range followers {
				unmarked := startHook(t, hungEnv(home, t.TempDir()), strings.NewReader(preToolUse), "PreToolUse")
				marked := startHook(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
				marked.silent()
				if unmarked.exited() {
					lost++
				}
				unmarked.silent()
				sameMarker(t, marker, first, "a hook within the window")
			}
			if lost > followers/2 {
				t.Errorf("%d of %d hooks after the marker waited as long as one that met none", lost, followers)
			}
			if l != nil {
				// Every hook reported: 1 + followers, and as many beside them.
				if got := len(l.got()); got != 2*followers+1 {
					t.Fatalf("the server got %d reports, want %d", got, 2*followers+1)
				}
			}

			ageMarker(t, marker)
			old, err := os.Lstat(marker)
			if err != nil {
				t.Fatal(err)
			}
			hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
			renewed := ownMarker(t, marker)
			if !renewed.ModTime().After(old.ModTime()) {
				t.Fatalf("the hook after the window left the marker at %v; want it made again", renewed.ModTime())
			}
		})
	}
}

// TestHookMarkerClearedByAnAnswer: a server that answers again takes the
// report of the first hook within the window, and its answer removes the
// marker; a marker older than the window is removed by an answer too.
// A hook to a server that is not there (nothing listens) leaves no marker.
func TestHookMarkerClearedByAnAnswer(t *testing.T) {
	home, tmp := hookHome(t), t.TempDir()
	marker := hookMarker(home, tmp)
	hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
	if _, err := os.Lstat(marker); !os.IsNotExist(err) {
		t.Fatalf("a hook with no server left a marker: %v", err)
	}

	l := newHookListener(t, home, answerHeld) // deaf until released
	hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
	ownMarker(t, marker)
	close(l.release)
	hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "Stop")
	if _, err := os.Lstat(marker); !os.IsNotExist(err) {
		t.Fatalf("the marker stayed after the server answered: %v", err)
	}
	if got := l.got(); len(got) != 2 || got[1] != hookLine(`{"id":"k3x9q2","event":"Stop"}`) {
		t.Fatalf("the server got %q; want the Stop within the window too", got)
	}

	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ageMarker(t, marker)
	hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
	if _, err := os.Lstat(marker); !os.IsNotExist(err) {
		t.Fatalf("an old marker stayed after the server answered: %v", err)
	}
}

// TestHookIgnoresAMarkerNotItsOwn: at the marker's path, a link (to a
// marker of the user's), a folder, a fifo or (run as root) another user's
// file is not the hook's: an answer does not remove it, a server that
// does not answer does not make the hook write through it or replace it,
// and the hook never blocks on it.
func TestHookIgnoresAMarkerNotItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"link", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"another user's", func(t *testing.T, path string) {
			if os.Getuid() != 0 {
				t.Skip("making another user's file takes root")
			}
			if err := os.WriteFile(path, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(path, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, tmp := hookHome(t), t.TempDir()
			marker := hookMarker(home, tmp)
			tc.make(t, marker)
			ageMarker(t, marker) // a fresh one of the user's would not be renewed
			was, err := os.Lstat(marker)
			if err != nil {
				t.Fatal(err)
			}
			var target os.FileInfo
			if was.Mode()&os.ModeSymlink != 0 {
				if target, err = os.Stat(marker); err != nil {
					t.Fatal(err)
				}
			}
			check := func(what string) {
				t.Helper()
				now, err := os.Lstat(marker)
				if err != nil {
					t.Fatalf("%s: what was at the marker's path is gone: %v", what, err)
				}
				if !os.SameFile(was, now) || !now.ModTime().Equal(was.ModTime()) || now.Mode() != was.Mode() {
					t.Fatalf("%s: what was at the marker's path changed: %v %v, now %v %v", what, was.Mode(), was.ModTime(), now.Mode(), now.ModTime())
				}
				if target != nil {
					if now, err := os.Stat(marker); err != nil || !now.ModTime().Equal(target.ModTime()) || now.Size() != 0 {
						t.Fatalf("%s: the link's target changed: %v", what, err)
					}
				}
			}
			deaf := newHookListener(t, home, answerHeld)
			hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "PreToolUse")
			check("after a server that did not answer")
			close(deaf.release)
			hookSilent(t, hungEnv(home, tmp), strings.NewReader(preToolUse), "Stop")
			check("after a server that answered")
			if got := len(deaf.got()); got != 2 {
				t.Fatalf("the server got %d reports, want 2", got)
			}
		})
	}
}

// TestHookMarkerInASandbox: a sandboxed chat's hooks, which may not read
// the agent home, keep the marker in their TMPDIR, the chat's scratch
// folder inside the agent home, as the server starts them
// (harness.ChatBound): the one that gives up on the server makes it
// there, the next within the window leaves it, and once the server
// answers, the hook's report removes it.
func TestHookMarkerInASandbox(t *testing.T) {
	requireLandlock(t)
	home := hookHome(t)
	scratch := filepath.Join(home, "tmp", hookChat)
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	l := newHookListener(t, home, answerHeld)
	bound := sandbox.Bound{Writable: []string{scratch}, Hidden: []string{home}}
	run := func(event string) {
		t.Helper()
		path, argv, err := sandbox.Wrap(binary, bound, binary, []string{binary, "hook", event})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(path, argv[1:]...)
		cmd.Env, cmd.Stdin = hungEnv(home, scratch), strings.NewReader(preToolUse)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("the sandboxed hook: %v, %q", err, out)
		}
	}
	// The bound holds: the agent home outside the scratch folder is hidden.
	path, argv, err := sandbox.Wrap(binary, bound, "/bin/ls", []string{"ls", home})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, argv[1:]...)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the sandbox let ls read the agent home: %s", out)
	}

	marker := hookMarker(home, scratch)
	run("PreToolUse")
	first := ownMarker(t, marker)
	run("PostToolUse")
	sameMarker(t, marker, first, "a sandboxed hook within the window")
	close(l.release)
	run("Stop")
	if _, err := os.Lstat(marker); !os.IsNotExist(err) {
		t.Fatalf("the marker stayed after the server answered: %v", err)
	}
	if got := l.got(); len(got) != 3 {
		t.Fatalf("the server got %q, want 3 reports", got)
	}
}

// TestHookDocsGiveItsFigures: docs/cli.md's hook section states the
// ceiling, the window and the budget the hook has.
func TestHookDocsGiveItsFigures(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n### hook\n")
	section, _, _ = strings.Cut(section, "\n### ")
	section = strings.Join(strings.Fields(section), " ")
	for _, want := range []string{
		fmt.Sprintf("within %d ms of its start", hookearly.Ceiling.Milliseconds()),
		fmt.Sprintf("For %d s after it", int(hookearly.HungWindow.Seconds())),
		fmt.Sprintf("give the server %d ms only", hookearly.HungBudget.Milliseconds()),
		fmt.Sprintf("costs one hook %d ms", hookearly.Ceiling.Milliseconds()),
	} {
		if !strings.Contains(section, want) {
			t.Errorf("docs/cli.md's hook section does not say %q", want)
		}
	}
}
