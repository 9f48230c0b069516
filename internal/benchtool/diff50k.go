package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/internal/review"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// diff50k is `benchtool diff-50k BIN WORK N CHANGED RUNS`: a git repository
// of N small files in WORK/repo (100 to a folder), one commit, packed by
// git gc; a chat on it
// in the agent home WORK/home whose baseline is that commit (as its first
// start records it); then CHANGED of the files get a line appended. It
// times `BIN diff ID --stat` and `git diff --stat` in the repository, RUNS
// times each in turn, checks that both name CHANGED files, and prints the
// medians (ours_median_seconds, git_median_seconds, ratio), and the median
// of review.Compute in this process (compute_median_seconds: what the TUI's
// review pane waits for before its first frame with the list), and the
// real pane (paneTimer, diff50k_pane.go): the TUI in a pty, d typed, timed
// until the emulated screen shows the file list; its median is
// pane_median_seconds, and pane_ratio that to git's. The four are timed in
// turn in each run.
func diff50k(bin, work string, n, changed, runs int) (err error) {
	if changed > n {
		return fmt.Errorf("diff-50k: %d changed files of %d", changed, n)
	}
	if err := freshDir(work); err != nil {
		return err
	}
	repo, home := filepath.Join(work, "repo"), filepath.Join(work, "home")
	gitRun := func(args ...string) error {
		// gc.auto=0: the commit of 50,000 new objects would start an
		// automatic gc that detaches and packs them in the background,
		// through the timed runs (and into the removal of the tree); the
		// gc is run after the commit instead, in the foreground.
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "gc.auto=0"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", args[0], err, out)
		}
		return nil
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	if err := gitRun("init", "-q"); err != nil {
		return err
	}
	path := func(i int) string {
		return filepath.Join(repo, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.txt", i))
	}
	for i := range n {
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(path(i)), 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(path(i), fmt.Appendf(nil, "file %d\nline two\n", i), 0o644); err != nil {
			return err
		}
	}
	if err := gitRun("add", "-A"); err != nil {
		return err
	}
	if err := gitRun("commit", "-q", "-m", "50k"); err != nil {
		return err
	}
	// Packed, as a repository of that size is once cloned or gc'd: git
	// reads a tree from a pack faster than from 500 loose files.
	if err := gitRun("gc", "-q"); err != nil {
		return err
	}
	store, err := sessions.OpenStore(home)
	if err != nil {
		return err
	}
	m, err := store.Create(sessions.NewChat{Harness: "shell", Cwd: repo})
	if err != nil {
		return err
	}
	if _, err := store.RecordBaseline(m.ID, sessions.NewBaseline(time.Now(), repo, nil)); err != nil {
		return err
	}
	step := n / changed
	for k := range changed {
		f, err := os.OpenFile(path(k*step), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString("changed\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	want := fmt.Appendf(nil, " %d files changed, %d insertions(+)", changed, changed)
	env := append(os.Environ(), "ACPMUX_HOME="+home, "ACPMUX_CONFIG="+filepath.Join(work, "none.toml"))
	timed := func(cmd *exec.Cmd) (time.Duration, error) {
		var out bytes.Buffer
		cmd.Stdout = &out
		d, err := timeRun(cmd)
		if err == nil && !bytes.Contains(out.Bytes(), want) {
			err = fmt.Errorf("%s printed no %q:\n%s", cmd, want, lastBytes(out.Bytes(), 500))
		}
		return d, err
	}
	meta, err := store.Load(m.ID)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(repo, path(0))
	if err != nil {
		return err
	}
	pane, err := newPaneTimer(bin, env, meta, changed, rel)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := pane.close(); err == nil {
			err = cerr
		}
	}()
	// The tree is written out and each command run once untimed, so no
	// timed run pays for the writeback of the files just made, a cold
	// page cache, or the index entries git finds racy until its first
	// refresh (git diff writes that refresh back, as it does in any
	// repository).
	syscall.Sync()
	ourCmd := func() *exec.Cmd {
		cmd := exec.Command(bin, "diff", m.ID, "--stat")
		cmd.Env = env
		return cmd
	}
	gitCmd := func() *exec.Cmd {
		cmd := exec.Command("git", "-C", repo, "diff", "--stat")
		cmd.Env = append(os.Environ(), "GIT_PAGER=cat")
		return cmd
	}
	for _, cmd := range []*exec.Cmd{ourCmd(), gitCmd()} {
		if _, err := timed(cmd); err != nil {
			return fmt.Errorf("untimed run: %w", err)
		}
	}
	// Each run times the four in turn, so a busy moment of the machine
	// falls on all of them alike.
	var ours, git, compute, panes []time.Duration
	for i := range runs {
		d, err := timed(ourCmd())
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		ours = append(ours, d)
		if d, err = timed(gitCmd()); err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		git = append(git, d)
		begin := time.Now()
		sections, err := review.OfChat(context.Background(), meta, nil, proto.ReviewSide{})
		if err != nil {
			return err
		}
		compute = append(compute, time.Since(begin))
		if len(sections) != 1 || len(sections[0].Files) != changed {
			return fmt.Errorf("review.Compute found %d sections, want 1 with %d files", len(sections), changed)
		}
		if d, err = pane.run(); err != nil {
			return fmt.Errorf("review pane run %d: %w", i+1, err)
		}
		panes = append(panes, d)
	}
	o, g, p := median(ours), median(git), median(panes)
	fmt.Printf("files=%d\nchanged=%d\nruns=%d\n", n, changed, runs)
	fmt.Printf("ours_median_seconds=%.6f\ngit_median_seconds=%.6f\nratio=%.3f\n", o.Seconds(), g.Seconds(), o.Seconds()/g.Seconds())
	fmt.Printf("compute_median_seconds=%.6f\n", median(compute).Seconds())
	fmt.Printf("pane_median_seconds=%.6f\npane_ratio=%.3f\n", p.Seconds(), p.Seconds()/g.Seconds())
	return nil
}

// lastBytes is the end of b, at most n bytes, for an error message.
func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
