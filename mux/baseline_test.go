package mux

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

func gitHere(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", argv, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestFirstStartRecordsTheBaseline: the first start of a chat whose folder
// is a git repository records its HEAD and each folder's (none for a folder
// that is not a repository); a later start, after a commit, keeps it.
func TestFirstStartRecordsTheBaseline(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := newRig(t, "echo", nil)
	dirs := r.folders(2)
	proj := filepath.Join(t.TempDir(), "proj")
	gitHere(t, "", "init", "-q", proj)
	gitHere(t, proj, "commit", "-q", "--allow-empty", "-m", "one")
	gitHere(t, "", "init", "-q", dirs[0])
	gitHere(t, dirs[0], "commit", "-q", "--allow-empty", "-m", "lib")
	head, libHead := gitHere(t, proj, "rev-parse", "HEAD"), gitHere(t, dirs[0], "rev-parse", "HEAD")
	m, err := r.store.Create(sessions.NewChat{Harness: "claude", Cwd: proj, AdditionalDirectories: dirs})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(1)
	var b *sessions.Baseline
	waitFor(t, "the first start's baseline in the chat file", func() bool {
		b = r.loadMeta(m.ID).Baseline
		return b != nil
	})
	if b.Head != head || len(b.Folders) != 2 || b.Folders[0].Head != libHead || b.Folders[1].Head != "" || b.At.IsZero() {
		t.Fatalf("baseline %+v; want head %s, lib %s, the other folder with none", b, head, libHead)
	}
	gitHere(t, proj, "commit", "-q", "--allow-empty", "-m", "two")
	if err := r.mux.Restart(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(2)
	r.mux.Close() // waits for any recording under way
	if again := r.loadMeta(m.ID).Baseline; again == nil || again.Head != head || !again.At.Equal(b.At) {
		t.Fatalf("a later start changed the baseline: %+v, was %+v", again, b)
	}
}

// TestPooledChatRecordsTheBaseline: a chat that takes a prewarmed harness
// gets its baseline too, taken as it takes the harness (not when the pool
// started it), its own folder no repository; a later restart keeps it.
func TestPooledChatRecordsTheBaseline(t *testing.T) {
	r := newRig(t, "echo", func(c *config.Config, _ *Options) {
		c.Pool.Size = config.PoolSize{PerHarness: map[string]int{"shell": 1}}
	})
	if err := r.mux.Fill(); err != nil {
		t.Fatal(err)
	}
	pooled := r.waitRecords(1)[0]
	before := time.Now()
	m, err := r.mux.CreateAndStart(sessions.NewChat{Harness: "shell"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if st := r.mux.State(m.ID); st.Pid != pooled.Pid {
		t.Fatalf("the chat runs pid %d, not the pooled %d", st.Pid, pooled.Pid)
	}
	var b *sessions.Baseline
	waitFor(t, "the pooled chat's baseline in its chat file", func() bool {
		b = r.loadMeta(m.ID).Baseline
		return b != nil
	})
	if b.At.Before(before) || b.Head != "" || len(b.Folders) != 0 {
		t.Fatalf("baseline %+v; want one taken at the adoption (after %s), with no HEAD and no folders", b, before)
	}
	if err := r.mux.Restart(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.mux.Close() // waits for any recording under way
	if again := r.loadMeta(m.ID).Baseline; again == nil || !again.At.Equal(b.At) {
		t.Fatalf("a restart changed the pooled chat's baseline: %+v, was %+v", again, b)
	}
}
