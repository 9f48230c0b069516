package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// The sandbox benchmarks (issue 43): what a sandboxed chat costs against
// the same chat unsandboxed, on a real server whose config holds each
// benchmark harness twice, once plain and once with `sandbox = true`.
//
// The start: from the `_acpmux/start` call on a chat already created (its
// creation is not timed: a sandbox changes nothing there) until the
// harness runs. The harness is date(1) printing the clock in nanoseconds,
// the first thing it does: the time is the harness's own reading, not when
// this process happened to see it (the screen's way back is not the
// start's), and no harness starts faster, so the ratio is the worst a
// real harness (which takes far longer to start itself) can see; the
// added milliseconds are what every harness pays. For a sandboxed chat
// the span holds the bound built and checked by the server, the exec of
// the wrapper (our own binary), its mount namespace, Landlock and canary,
// and the exec of the harness. Each start is of a fresh chat, as `new
// --sandbox` makes one, in a fresh git repository with one commit: the
// common case, and the one whose .git/hooks and .git/config the wrapper
// mounts read-only. A fresh chat's first start also records its review
// baseline (git, in the background): each start waits until the one
// before has recorded it. The starts take turns, a sandboxed and a plain
// one, then a plain and a sandboxed one, so a busy moment or a warm cache
// falls on both alike.
//
// The hook: hook.go's loop (`benchtool hook-loop`) as the harness of a
// sandboxed chat and of a plain one, in sandboxHookRounds rounds that take
// turns the same way; each chat's reports must reach the server (the
// chat's status comes from hooks after it).

// sandboxHookRounds is how many chats of each kind run the hook loop, in
// turn; the runs are shared out between them.
const sandboxHookRounds = 10

// sandboxHarness names the bench harnesses of a kind: plain or sandboxed.
func sandboxHarness(kind string, sandboxed bool) string {
	if sandboxed {
		return "bench-" + kind + "-sandboxed"
	}
	return "bench-" + kind
}

// sandboxBench runs the sandbox benchmarks on a server over the fresh
// agent home home: starts starts of each kind and hookRuns hooks from
// inside each kind of chat. With no usable Landlock it prints skipped=WHY
// and succeeds: a machine without it has nothing to measure.
func sandboxBench(binary, home string, starts, hookRuns int) error {
	emit("bench", "sandbox")
	abi, err := sandbox.ABI()
	if err == nil && abi < sandbox.MinABI {
		err = fmt.Errorf("landlock ABI %d, older than the %d a sandboxed chat needs", abi, sandbox.MinABI)
	}
	if err != nil {
		emit("skipped", strings.ReplaceAll(err.Error(), "\n", " "))
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return err
	}
	date, err := exec.LookPath("date")
	if err != nil {
		return err
	}
	if home, err = filepath.Abs(home); err != nil {
		return err
	}
	// The projects and the hook loops' times live beside the agent home,
	// not in it: a sandboxed chat may not read the agent home, and a folder
	// it may write must not hold it.
	if err := os.MkdirAll(filepath.Dir(home), 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(filepath.Dir(home), filepath.Base(home)+".work-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	timesDir := filepath.Join(work, "times")
	if err := os.Mkdir(timesDir, 0o700); err != nil {
		return err
	}
	per := max(1, hookRuns/sandboxHookRounds)
	times := map[bool]string{false: filepath.Join(timesDir, "plain"), true: filepath.Join(timesDir, "sandboxed")}
	on, off := true, false
	harnesses := map[string]config.HarnessConfig{}
	for _, sandboxed := range []bool{false, true} {
		sb := &off
		var state []string
		if sandboxed {
			sb, state = &on, []string{timesDir + "/"}
		}
		harnesses[sandboxHarness("start", sandboxed)] = config.HarnessConfig{Command: date, Args: []string{"+%s%N"}, Sandbox: sb}
		harnesses[sandboxHarness("hook", sandboxed)] = config.HarnessConfig{
			Command: self, Args: []string{"hook-loop", abs, strconv.Itoa(per), times[sandboxed]},
			Sandbox: sb, SandboxState: state,
		}
	}
	r, err := newServerRig(binary, home, harnesses)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.watch(); err != nil {
		return err
	}
	projects := 0
	project := func() (string, error) {
		projects++
		return gitProject(filepath.Join(work, "projects", fmt.Sprintf("p%03d", projects)))
	}

	got := map[bool][]time.Duration{}
	for i := range starts {
		for _, sandboxed := range turns(i) {
			dir, err := project()
			if err != nil {
				return err
			}
			d, err := timeSandboxStart(r, sandboxHarness("start", sandboxed), dir, sandboxed)
			if err != nil {
				return fmt.Errorf("start %d (sandboxed %v): %w", i+1, sandboxed, err)
			}
			got[sandboxed] = append(got[sandboxed], d)
		}
	}
	hooks := map[bool]map[string][]time.Duration{false: {}, true: {}}
	for i := range sandboxHookRounds {
		for _, sandboxed := range turns(i) {
			dir, err := project()
			if err != nil {
				return err
			}
			byKind, err := sandboxHookRound(r, sandboxHarness("hook", sandboxed), dir, times[sandboxed], per, sandboxed)
			if err != nil {
				return fmt.Errorf("hook round %d (sandboxed %v): %w", i+1, sandboxed, err)
			}
			for k, v := range byKind {
				hooks[sandboxed][k] = append(hooks[sandboxed][k], v...)
			}
		}
	}

	emit("landlock_abi", abi)
	emit("starts", starts)
	sb, plain := got[true], got[false]
	emit("starts_sandboxed_p50_ms", ms(median(sb)))
	emit("starts_sandboxed_p90_ms", ms(percentile(sb, 0.90)))
	emit("starts_sandboxed_max_ms", ms(percentile(sb, 1)))
	emit("starts_plain_p50_ms", ms(median(plain)))
	emit("starts_plain_p90_ms", ms(percentile(plain, 0.90)))
	emit("starts_plain_max_ms", ms(percentile(plain, 1)))
	emit("ratio_p50", float64(median(sb))/float64(median(plain)))
	emit("ratio_p90", float64(percentile(sb, 0.90))/float64(percentile(plain, 0.90)))
	added := make([]time.Duration, len(sb))
	for i := range sb {
		added[i] = sb[i] - plain[i]
	}
	emit("added_p50_ms", ms(median(added)))

	emit("hook_runs", per*sandboxHookRounds)
	emit("hook_rounds", sandboxHookRounds)
	for _, kind := range []string{"server", "noserver", "true", "busy_server"} {
		for _, sandboxed := range []bool{true, false} {
			name := "hook_plain_" + kind
			if sandboxed {
				name = "hook_sandboxed_" + kind
			}
			if n := len(hooks[sandboxed][kind]); n != per*sandboxHookRounds {
				return fmt.Errorf("the hook loops timed %d %s runs, want %d", n, name, per*sandboxHookRounds)
			}
			emitTimes(name, hooks[sandboxed][kind])
		}
	}
	hs, hp := hooks[true]["server"], hooks[false]["server"]
	emit("hook_ratio_p50", float64(percentile(hs, 0.50))/float64(percentile(hp, 0.50)))
	emit("hook_ratio_p99", float64(percentile(hs, 0.99))/float64(percentile(hp, 0.99)))
	return nil
}

// turns is the order of run i's two kinds: sandboxed first on even runs,
// plain first on odd ones.
func turns(i int) []bool {
	if i%2 == 0 {
		return []bool{true, false}
	}
	return []bool{false, true}
}

// gitProject makes dir a git repository with one commit, as a user's
// project is.
func gitProject(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("a project\n"), 0o644); err != nil {
		return "", err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "README"}, {"commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=bench", "-c", "user.email=bench@localhost"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, out)
		}
	}
	return filepath.EvalSymlinks(dir)
}

// timeSandboxStart creates a chat of the harness (date) in dir, and times
// its start: from the start call until the harness's own reading of the
// clock, which it prints and exits. It then waits until the server has
// recorded the chat's baseline, so the next start is not timed beside it.
func timeSandboxStart(r *serverRig, harnessName, dir string, sandboxed bool) (time.Duration, error) {
	meta, err := r.remote.Create(sessions.NewChat{Harness: harnessName, Cwd: dir})
	if err != nil {
		return 0, err
	}
	if meta.Sandbox != sandboxed {
		return 0, fmt.Errorf("chat %s was made with sandbox %v, want %v", meta.ID, meta.Sandbox, sandboxed)
	}
	begin := time.Now()
	if err := r.remote.Start(meta.ID, benchCols, benchRows); err != nil {
		return 0, fmt.Errorf("start chat %s: %w", meta.ID, err)
	}
	s, err := waitChat(r, meta.ID, "exited", func(s proto.State) bool { return !s.Status.Live() && s.Status != proto.StatusStopped })
	if err != nil {
		return 0, err
	}
	if s.Status != proto.StatusExited || s.ExitCode != 0 {
		return 0, fmt.Errorf("chat %s: %s (exit %d): %s %s", meta.ID, s.Status, s.ExitCode, s.Reason, s.LastOutput)
	}
	if (s.Bound != "") != sandboxed {
		return 0, fmt.Errorf("chat %s ran with bound %q, want it sandboxed %v", meta.ID, s.Bound, sandboxed)
	}
	ran, err := parseStartStamp(s.LastOutput)
	if err != nil {
		return 0, fmt.Errorf("chat %s: %w", meta.ID, err)
	}
	d := ran.Sub(begin)
	if d <= 0 || d > serverWait {
		return 0, fmt.Errorf("chat %s: the harness ran %s after the start call", meta.ID, d)
	}
	if err := waitBaseline(r, meta.ID); err != nil {
		return 0, err
	}
	return d, nil
}

// parseStartStamp reads what `date +%s%N` printed: the wall clock in
// nanoseconds.
func parseStartStamp(s string) (time.Time, error) {
	ns, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || ns <= 0 {
		return time.Time{}, fmt.Errorf("the harness printed %q, want the clock in nanoseconds", s)
	}
	return time.Unix(0, ns), nil
}

// waitChat polls the chat's state as the Remote last heard it (no call to
// the server) until ok holds, and returns it; what names the state for
// the error at serverWait.
func waitChat(r *serverRig, id, what string, ok func(proto.State) bool) (proto.State, error) {
	deadline := time.Now().Add(serverWait)
	for {
		s := r.remote.State(id)
		if ok(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("chat %s: not %s after %s (status %s %s)", id, what, serverWait, s.Status, s.Reason)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitBaseline waits until the server has recorded the chat's baseline
// (after its first start, in the background).
func waitBaseline(r *serverRig, id string) error {
	deadline := time.Now().Add(serverWait)
	for {
		e, err := r.remote.Chat(id)
		if err != nil {
			return err
		}
		if e.Meta != nil && e.Meta.Baseline != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("chat %s: no baseline recorded after %s", id, serverWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sandboxHookRound runs one chat of the hook loop harness in dir: it
// waits for the loop's times (file), checks that its reports reached the
// server, stops the chat, and returns the times by kind.
func sandboxHookRound(r *serverRig, harnessName, dir, file string, runs int, sandboxed bool) (map[string][]time.Duration, error) {
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	meta, err := r.remote.CreateAndStart(sessions.NewChat{Harness: harnessName, Cwd: dir}, benchCols, benchRows)
	if err != nil {
		return nil, err
	}
	defer r.remote.Stop(meta.ID)
	wait := time.Duration(runs)*time.Second + 5*time.Minute
	s, err := waitChatOrFile(r, meta.ID, file, wait)
	if err != nil {
		return nil, err
	}
	if !s.Status.Live() {
		return nil, fmt.Errorf("chat %s: %s before its hook loop wrote its times: %s %s", meta.ID, s.Status, s.Reason, s.LastOutput)
	}
	if (s.Bound != "") != sandboxed {
		return nil, fmt.Errorf("chat %s ran with bound %q, want it sandboxed %v", meta.ID, s.Bound, sandboxed)
	}
	got, err := waitHookTimes(file, time.Second)
	if err != nil {
		return nil, err
	}
	// The loop's last run was a report the server took, from the chat's
	// own process: the chat's status comes from hooks now.
	if _, err := waitChat(r, meta.ID, "reported on by hooks", func(s proto.State) bool { return s.StatusFrom == proto.SourceHooks }); err != nil {
		return nil, err
	}
	return got, nil
}

// waitChatOrFile polls until file exists or the chat is no longer live,
// at most wait, and returns the chat's state then.
func waitChatOrFile(r *serverRig, id, file string, wait time.Duration) (proto.State, error) {
	deadline := time.Now().Add(wait)
	for {
		s := r.remote.State(id)
		if _, err := os.Stat(file); err == nil {
			return s, nil
		}
		if s.Status != proto.StatusStopped && !s.Status.Live() {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("chat %s: its hook loop wrote no times to %s within %s (status %s)", id, file, wait, s.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
